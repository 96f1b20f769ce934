/**
 * Validating SolverOptions and turning them into each solver's command line.
 * kissat: `--time=S --conflicts=N --seed=N [extra] [file]`; cadical: `-t S -c N --seed=N [extra] [file]`.
 * Both read DIMACS from stdin when no file is given. Neither accepts fractional seconds.
 */

import { InvalidOptionError } from "../../core/errors.js";
import { SOLVER_NAMES, type SolverName, type SolverOptions } from "./types.js";

/** Default time between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 1000;
/** Default time the watchdog waits past the time limit before stopping the solver itself. */
export const DEFAULT_WATCHDOG_SLACK_MS = 2000;

const MAX_SEED = 2 ** 31 - 1;

function checkNonNegativeInteger(option: string, value: number | undefined, max = Number.MAX_SAFE_INTEGER): void {
  if (value === undefined) return;
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new InvalidOptionError(option, `must be an integer in 0..${max}, got ${value}`);
  }
}

/**
 * Checks the options and the variable count; throws InvalidOptionError naming the first bad one.
 * Returns the solver name (defaulted).
 */
export function validateOptions(numVars: number, options: SolverOptions): SolverName {
  const solver = options.solver ?? "kissat";
  if (!SOLVER_NAMES.includes(solver)) {
    throw new InvalidOptionError("solver", `must be one of ${SOLVER_NAMES.join(", ")}, got ${String(solver)}`);
  }
  checkNonNegativeInteger("numVars", numVars);
  const t = options.timeLimitSec;
  if (t !== undefined && !(Number.isFinite(t) && t > 0)) {
    throw new InvalidOptionError("timeLimitSec", `must be a positive number of seconds, got ${t}`);
  }
  checkNonNegativeInteger("conflictLimit", options.conflictLimit);
  checkNonNegativeInteger("seed", options.seed, MAX_SEED);
  checkNonNegativeInteger("killGraceMs", options.killGraceMs);
  checkNonNegativeInteger("watchdogSlackMs", options.watchdogSlackMs);
  return solver;
}

/** The solver's argument list; `file` is the DIMACS path, or undefined to read stdin. */
export function buildSolverArgs(solver: SolverName, options: SolverOptions, file: string | undefined): string[] {
  const args: string[] = [];
  const seconds = options.timeLimitSec === undefined ? undefined : Math.max(1, Math.ceil(options.timeLimitSec));
  if (solver === "kissat") {
    if (seconds !== undefined) args.push(`--time=${seconds}`);
    if (options.conflictLimit !== undefined) args.push(`--conflicts=${options.conflictLimit}`);
  } else {
    if (seconds !== undefined) args.push("-t", String(seconds));
    if (options.conflictLimit !== undefined) args.push("-c", String(options.conflictLimit));
  }
  if (options.seed !== undefined) args.push(`--seed=${options.seed}`);
  if (options.extraArgs) args.push(...options.extraArgs);
  // A path that looks like an option would be parsed as one.
  const safe = (p: string): string => (p.startsWith("-") ? `./${p}` : p);
  if (file !== undefined) args.push(safe(file));
  if (options.proofPath !== undefined) {
    if (file === undefined) throw new InvalidOptionError("proofPath", "a proof needs the formula as a file, not on stdin");
    args.push(safe(options.proofPath));
  }
  return args;
}
