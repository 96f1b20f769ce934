/**
 * Exit codes of the `cubist` command (documented in README.md and `cubist --help`).
 * `solve` follows SAT-solver habits for its verdicts but keeps 0 for "a verified solution was printed".
 */
export { EXIT } from "../core/errors.js";

export const EXIT_CODES_HELP = `Exit codes:
  0    success (solve: a solution was found and verified)
  1    error: bad input file or option value, solver crash or garbage output, service unreachable
  2    usage error (unknown flag, missing argument)
  3    a model failed verification (encoder or solver bug; nothing is printed as a solution)
  20   solve: proved unsatisfiable (no solution exists)
  30   solve: unknown (a limit was hit, or the run was stopped)
  130  interrupted (Ctrl-C)`;
