/**
 * The solver process runner: run kissat or cadical on a DIMACS formula and get a typed outcome.
 * See runner.ts for the process lifecycle and classify.ts for how exits map to outcomes and errors.
 */

export { runSolver } from "./runner.js";
export { locateSolver } from "./locate.js";
export { SolverCrashedError, SolverNotFoundError, SolverOutputError } from "./errors.js";
export { DEFAULT_KILL_GRACE_MS, DEFAULT_WATCHDOG_SLACK_MS } from "./args.js";
export { SOLVER_NAMES } from "./types.js";
export type { SolverInput, SolverName, SolverOptions, SolverOutcome, SolverStats, UnknownReason } from "./types.js";
