/**
 * A run's defaults and limits, in a module of their own with no imports: the CLI's option tables read them, and
 * `cubist solve` must not load the protobuf code (about 120 ms at start) to print its help or solve alone.
 */

export const DEFAULT_TARGET_CUBES = 64;
export const DEFAULT_CELL_ORDER = "most-constrained";
export const DEFAULT_CUBE_TIME_LIMIT_SEC = 60;
/**
 * The native placement engine runs beside the SAT solver for the cube's whole budget (search_ms is capped by it):
 * each its own process, first proof wins (issue 10; BENCHMARKS.md "Conquer engine").
 */
export const DEFAULT_SEARCH_MS = 3_600_000;
/**
 * Above 200 cells the engine runs alone: on 16x16 cubes Kissat never decided one (the E2 hint ladder at k = 150 was
 * not solved in 600 s with a 1 s engine opener and Kissat, and in 30 s with the engine for 60 s; BENCHMARKS.md), so
 * its core is better spent on another cube's engine.
 */
export function defaultSolver(puzzle: { rows: number; cols: number }): "kissat" | "none" {
  return puzzle.rows * puzzle.cols <= 200 ? "kissat" : "none";
}
/**
 * An initial cube's budget: it doubles with every re-split generation and retry up to the cube time limit, so the
 * first pass visits every region of the space briefly and no single hard cube holds the answer hostage.
 */
export const DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC = 2;
/** The budget of a cube `generations` re-splits and retries below the initial split. */
export function cubeBudgetSec(solver: { timeLimitSec: number; firstTimeLimitSec: number }, generations: number): number {
  const cap = solver.timeLimitSec;
  if (!(solver.firstTimeLimitSec > 0)) return cap;
  const grown = solver.firstTimeLimitSec * 2 ** Math.min(generations, 40);
  return cap > 0 ? Math.min(cap, grown) : grown;
}
export const DEFAULT_RESPLIT_DEPTH = 1;
export const MAX_PUZZLE_SIDE = 32;
export const MAX_PUZZLE_TEXT_BYTES = 1 << 20;
export const MAX_TARGET_CUBES = 2_000_000;
