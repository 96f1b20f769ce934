/**
 * Errors of the solver runner. A missing solver, a crash and garbage output are errors, never outcomes, and the
 * fault of the machine that ran the solver (core/errors.ts): another worker may succeed, and this one is
 * quarantined when they go on.
 */

import { CubistError } from "../../core/errors.js";

/** The solver binary does not exist or is not executable. */
export class SolverNotFoundError extends CubistError {
  override readonly name = "SolverNotFoundError";
  override readonly fault = "worker";
  /** `binary` is the name or path that was asked for. */
  constructor(readonly binary: string, readonly reason: string, options?: { cause?: unknown }) {
    super(`solver ${binary} not found: ${reason}; run scripts/setup.sh to install the solvers`, options);
  }
}

/**
 * The solver died by a signal we did not send (other than SIGINT/SIGTERM/SIGHUP), or exited with a code other than
 * 10 (sat), 20 (unsat) or 0 (unknown). Carries the last lines of its stderr and stdout.
 */
export class SolverCrashedError extends CubistError {
  override readonly name = "SolverCrashedError";
  override readonly fault = "worker";
  constructor(
    readonly binary: string,
    readonly exitCode: number | null,
    readonly signal: string | null,
    readonly stderrTail: string,
    readonly stdoutTail: string,
    options?: { cause?: unknown },
  ) {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    const tail = stderrTail.trim() !== "" ? stderrTail : stdoutTail;
    super(`solver ${binary} ${how}${tail.trim() !== "" ? `; last output:\n${tail.trimEnd()}` : " with no output"}`, options);
  }
}

/**
 * The solver exited 10, 20 or 0 but its output does not back that up: no or a contradicting `s` line, a missing or
 * unterminated model, model literals out of range or contradictory, unparsable `v` lines.
 */
export class SolverOutputError extends CubistError {
  override readonly name = "SolverOutputError";
  override readonly fault = "worker";
  constructor(
    readonly binary: string,
    readonly exitCode: number | null,
    readonly reason: string,
    readonly stdoutTail: string,
    options?: { cause?: unknown },
  ) {
    super(`solver ${binary} (exit ${exitCode}) gave unusable output: ${reason}`, options);
  }
}
