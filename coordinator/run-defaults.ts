/**
 * A run's defaults and limits, in a module of their own with no imports: the CLI's option tables read them, and
 * `cubist solve` must not load the protobuf code (about 120 ms at start) to print its help or solve alone.
 */

export const DEFAULT_TARGET_CUBES = 64;
export const DEFAULT_CELL_ORDER = "most-constrained";
export const DEFAULT_CUBE_TIME_LIMIT_SEC = 60;
/**
 * Per-cube placement search before the SAT solver, by board size (BENCHMARKS.md). Up to 200 cells (every Heule em-*
 * board; 14x14 is the largest), 1 s: on the shuffled Heule suite with 2 workers it cut the median time from 3.6 to
 * 2.4 s and the hard UNSAT 7x7 from 33 to 4.4 s; 5 s was no better. Larger boards, 60 s: the 16x16 hint ladder at
 * k = 150 is solved in 30 s with it and not in 600 s with 1 s, where Kissat gets nowhere on the cubes.
 */
export function defaultSearchMs(puzzle: { rows: number; cols: number }): number {
  return puzzle.rows * puzzle.cols <= 200 ? 1000 : 60_000;
}
export const DEFAULT_RESPLIT_DEPTH = 1;
export const MAX_PUZZLE_SIDE = 32;
export const MAX_PUZZLE_TEXT_BYTES = 1 << 20;
export const MAX_TARGET_CUBES = 2_000_000;
