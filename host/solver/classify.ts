/**
 * Turning what happened to a solver process (exit status, what we did to it, what it printed) into an outcome
 * or an error. Exit 10 = sat, 20 = unsat, 0 = unknown (a limit, or an interruption); the output must agree.
 *
 * If we stopped the process ourselves (abort or watchdog), the outcome is unknown with our reason, unless it
 * managed to exit 10/20 with a complete, valid answer first: a found solution is never thrown away.
 */

import { SolverCrashedError, SolverOutputError } from "./errors.js";
import type { SolverOutputParser } from "./output-parser.js";
import type { SolverOptions, SolverOutcome, SolverStats, UnknownReason } from "./types.js";

/** Termination requests: a solver that dies of one of these (not sent by us) was interrupted, not crashed. */
const INTERRUPT_SIGNALS: ReadonlySet<string> = new Set(["SIGINT", "SIGTERM", "SIGHUP"]);

/** A run ended at the solver's time limit when at least this share of it had passed. */
const TIME_LIMIT_SHARE = 0.9;

/** Everything known about a finished run. */
export interface SolverRunFacts {
  binary: string;
  options: SolverOptions;
  exitCode: number | null;
  signal: string | null;
  /** Why we sent SIGTERM/SIGKILL, or null if we did not. */
  stoppedBy: "time-limit" | "aborted" | null;
  parser: SolverOutputParser;
  stats: SolverStats;
  stderrTail: string;
}

/** The problem with a 10/20 exit's output, or null when it is a complete, consistent answer. */
function answerProblem(exitCode: 10 | 20, parser: SolverOutputParser): string | null {
  if (parser.problem !== null) return parser.problem;
  const expected = exitCode === 10 ? "SATISFIABLE" : "UNSATISFIABLE";
  if (parser.status === null) return `exit code ${exitCode} without an s line`;
  if (parser.status !== expected) return `s ${parser.status} contradicts exit code ${exitCode}`;
  if (exitCode === 20) return parser.sawModelLines ? "v lines with an UNSATISFIABLE answer" : null;
  if (!parser.sawModelLines) return "s SATISFIABLE without a model (no v lines)";
  if (!parser.modelTerminated) return "the model is not terminated by 0 (truncated output?)";
  return null;
}

/** Which limit explains an exit 0 (no answer) that we did not cause. */
function limitReason(options: SolverOptions, parser: SolverOutputParser, wallMs: number): UnknownReason {
  const { conflictLimit, timeLimitSec } = options;
  const conflicts = parser.stats.conflicts;
  if (conflictLimit !== undefined && conflicts !== undefined && conflicts >= conflictLimit) return "conflict-limit";
  if (timeLimitSec !== undefined && wallMs >= TIME_LIMIT_SHARE * timeLimitSec * 1000) return "time-limit";
  if (conflictLimit !== undefined && conflicts === undefined) return "conflict-limit";
  return "interrupted";
}

/**
 * The outcome of a finished run.
 * @throws SolverOutputError when the output does not back up the exit code.
 * @throws SolverCrashedError for another exit code, or a signal that is neither ours nor a termination request.
 */
export function classifyRun(facts: SolverRunFacts): SolverOutcome {
  const { binary, exitCode, signal, stoppedBy, parser, stats } = facts;
  if (exitCode === 10 || exitCode === 20) {
    const problem = answerProblem(exitCode, parser);
    if (problem === null) {
      return exitCode === 10 ? { kind: "sat", model: parser.takeModel(), stats } : { kind: "unsat", stats };
    }
    if (stoppedBy !== null) return { kind: "unknown", reason: stoppedBy, stats };
    throw new SolverOutputError(binary, exitCode, problem, parser.tail());
  }
  if (stoppedBy !== null) return { kind: "unknown", reason: stoppedBy, stats };
  if (signal !== null) {
    if (INTERRUPT_SIGNALS.has(signal)) return { kind: "unknown", reason: "interrupted", stats };
    throw new SolverCrashedError(binary, null, signal, facts.stderrTail, parser.tail());
  }
  if (exitCode === 0) {
    if (parser.problem !== null) throw new SolverOutputError(binary, 0, parser.problem, parser.tail());
    if (parser.status === "SATISFIABLE" || parser.status === "UNSATISFIABLE") {
      throw new SolverOutputError(binary, 0, `s ${parser.status} contradicts exit code 0`, parser.tail());
    }
    return { kind: "unknown", reason: limitReason(facts.options, parser, stats.wallMs), stats };
  }
  throw new SolverCrashedError(binary, exitCode, null, facts.stderrTail, parser.tail());
}
