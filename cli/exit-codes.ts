/**
 * Exit codes of the `cubist` command (documented in README.md and `cubist --help`), and the one mapping from an
 * error that ends a command to its exit code. `solve` follows SAT-solver habits for its verdicts but keeps 0 for
 * "a verified solution was printed".
 */
import { EncoderBugError } from "../core/errors.js";
import { UsageError } from "./args.js";
import { WrongModelError } from "../core/cnf/cnf.js";

export const EXIT = {
  /** Success; for `solve`: a solution was found and verified. */
  OK: 0,
  /** Bad input (puzzle file, option value), a solver crash or garbage output, an unreachable service. */
  ERROR: 1,
  /** The command line itself is wrong (unknown flag, missing argument). */
  USAGE: 2,
  /** A model decoded to a board that failed verification: an encoder or solver bug. Never a solution. */
  ENCODER_BUG: 3,
  /** `solve`: the puzzle has no solution (proved). */
  UNSAT: 20,
  /** `solve`: no answer within the limits (time, conflicts), or the run was stopped. */
  UNKNOWN: 30,
  /** Interrupted by SIGINT / SIGTERM. */
  INTERRUPTED: 130,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0    success (solve: a solution was found and verified; --objective score: also a best board at --time)
  1    error: bad input file or option value, solver crash or garbage output, service unreachable
  2    usage error (unknown flag, missing argument)
  3    a model failed verification (encoder or solver bug; nothing is printed as a solution)
  20   solve: proved unsatisfiable (no solution exists)
  30   solve: unknown (a limit was hit, or the run was stopped)
  130  interrupted (Ctrl-C)`;

/** The exit code of a command that ended with `err`: a usage error 2, an encoder bug 3, anything else 1. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof EncoderBugError || err instanceof WrongModelError) return EXIT.ENCODER_BUG;
  return EXIT.ERROR;
}
