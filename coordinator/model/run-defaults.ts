/**
 * A run's defaults and limits, in a module of their own with no heavy imports: the CLI's option tables read them,
 * and `cubist solve` must not load the protobuf code (about 120 ms at start) to print its help or solve alone.
 */

import type { Puzzle } from "../../core/puzzle.js";
import { log10ExpectedSolutions, MANY_SOLUTIONS_LOG10 } from "../../core/solution-estimate.js";

export const DEFAULT_TARGET_CUBES = 64;
/**
 * A certified run's initial split: each certified cube costs two processes, a proof upload and a drat-trim run, so
 * fewer and larger cubes certify faster (BENCHMARKS.md "Certified UNSAT": 6x6 1.56 s with 8 cubes, 4.81 s with 64;
 * the hard 7x7 14.2 s, 20.0 s).
 */
export const DEFAULT_CERTIFIED_TARGET_CUBES = 8;
export const DEFAULT_CELL_ORDER = "most-constrained";
/** The most free cells (cells no hint fixes) for which a run splits along the scan by default. */
export const SCAN_MAX_FREE_CELLS = 200;
/**
 * The cell order a run splits by when none is asked for: "scan" (cubes along the engine's own scan, docs/cubing.md
 * "Scan cubes") where the engine runs alone on a board of up to 200 free cells with few expected solutions
 * (Brendan's sets: BENCHMARKS.md "Cluster scheduling"; an Eternity II-size board with 56 or more cells given as hints,
 * as in the hint ladder: BENCHMARKS.md "Scan cubes for hint boards"), else DEFAULT_CELL_ORDER. The expected count is
 * the whole board's, which the hints only lower.
 */
export function defaultCellOrder(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces" | "hints">, solver: string, objective: string): string {
  const nearUnique = freeCells(puzzle) <= SCAN_MAX_FREE_CELLS && log10ExpectedSolutions(puzzle) < MANY_SOLUTIONS_LOG10;
  return solver === "none" && objective !== "score" && nearUnique ? "scan" : DEFAULT_CELL_ORDER;
}

/** The cells no hint fixes. */
export function freeCells(puzzle: Pick<Puzzle, "rows" | "cols" | "hints">): number {
  const fixed = new Set(puzzle.hints.map((h) => h.row * puzzle.cols + h.col));
  return puzzle.rows * puzzle.cols - fixed.size;
}
/** The one cell order of triangle runs: the placement search's own (rows from the base up, each left to right). */
export const TRIANGLE_CELL_ORDER = "base-up";
/** The encoding name a triangle run records: core/triangle/encode.ts, its one encoding. */
export const TRIANGLE_ENCODING = "triangle";
export const DEFAULT_CUBE_TIME_LIMIT_SEC = 60;

/**
 * A formula run's cube budget: 600 s, not the puzzles' 60 s. Measured (BENCHMARKS.md "CNF on the cluster: Sudoku and
 * edge-matching formulas"): with 60 s a busy machine's Kissat got a few CPU seconds per cube, cubes of the hard 7x7's
 * CNF and of a 25x25 Sudoku were re-split and their children started from scratch: 0.69x and 0.11x Kissat alone;
 * without a budget the same formulas ran 1.71x and 1.56x faster than Kissat alone, no cube taking 120 s. A budget
 * stays, so that a cube far harder than the rest is still re-split in a long run.
 */
export const FORMULA_CUBE_TIME_LIMIT_SEC = 600;

/**
 * The native placement engine runs beside the SAT solver for the cube's whole budget (search_ms is capped by it):
 * each its own process, first proof wins (issue 10; BENCHMARKS.md "Conquer engine").
 */
export const DEFAULT_SEARCH_MS = 3_600_000;
/**
 * Where Kissat measurably never wins, the engine runs alone and Kissat's core serves another cube's engine: above
 * 200 cells (on 16x16 cubes Kissat never decided one: the E2 hint ladder at k = 150 was not solved in 600 s with a
 * 1 s engine opener and Kissat, and in 30 s with the engine for 60 s), and on near-unique boards (log10 of the
 * expected solution count below MANY_SOLUTIONS_LOG10: Kissat won none of the 24 shuffled frontier runs, and the
 * engine refutes the hard UNSAT 7x7 in 0.3 s where Kissat needs 36 s). BENCHMARKS.md "Conquer engine".
 */
export function defaultSolver(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces">): "kissat" | "none" {
  if (puzzle.rows * puzzle.cols > 200) return "none";
  return log10ExpectedSolutions(puzzle) < MANY_SOLUTIONS_LOG10 ? "none" : "kissat";
}
/**
 * An initial cube's budget: it doubles with every re-split generation and retry up to the cube time limit, so the
 * first pass visits every region of the space briefly and no single hard cube holds the answer hostage.
 */
export const DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC = 2;
/** The budget of a cube `generations` re-splits and retries below the initial split. */
export function cubeBudgetSec(solver: { timeLimitSec: number; firstTimeLimitSec?: number }, generations: number): number {
  const cap = solver.timeLimitSec;
  const first = solver.firstTimeLimitSec ?? 0;
  if (!(first > 0)) return cap;
  const grown = first * 2 ** Math.min(generations, 40);
  return cap > 0 ? Math.min(cap, grown) : grown;
}
/**
 * A scan cube's budget `generations` re-splits and retries below the initial split: the whole cap at once (taken in
 * order, scan cubes need no budget to spread the search), doubling per generation (a search resumes where its parent
 * stopped, so a longer budget loses nothing; a part held up by one subtree larger than its budget gets past it).
 */
export function scanCubeBudgetSec(solver: { timeLimitSec: number }, generations: number): number {
  return solver.timeLimitSec > 0 ? solver.timeLimitSec * 2 ** Math.min(generations, 16) : 0;
}
export const DEFAULT_RESPLIT_DEPTH = 1;
export const MAX_TARGET_CUBES = 2_000_000;

/** At most this many parts per scan cube (`--cube-parts`); a re-split multiplies a part's n further (CubePart). */
export const MAX_CUBE_PARTS = 256;
/** Scan runs: the most of the workers' time the portfolio member may take (`--member-share`); the cubes keep the rest. */
export const MAX_MEMBER_SHARE = 0.9;

/**
 * Scan cube parts are dealt this many free positions below the cube (the engine's --part-depth). Deep enough that
 * the subtrees dealt out are small beside a hard cube's search, so n parts meet its first board after about 1/n of
 * its placements each; shallow enough that walking the levels above (which every part repeats) costs little.
 * Chosen by measurement (BENCHMARKS.md "Cube parts"): on Brendan's 8x7 and 9x6, two parts dealt at depth 3 put
 * the whole search before the board in one part, at 8 and 12 both parts share it.
 */
export const CUBE_PART_DEPTH = 10;

/** The most score slots a score run keeps going (`--score-slots`; coordinator/model/score-slots.ts). */
export const MAX_SCORE_SLOTS = 1024;
/**
 * A score slot's budget when the run sets none (its time limit, `--cube-time`, which a score run does not take from
 * the cubes' default): long enough that the engine's restart schedule runs as in `cubist solve` (a slot's next
 * attempt goes on with it, worker/score-search.ts), short enough that workers come back to the queue (priorities
 * between runs) every few minutes.
 */
export const SCORE_SLOT_SEC = 300;

/**
 * Refuted cubes re-solved by another worker before they close, percent (coordinator/model/run-trust.ts); chosen by
 * its measured cost (BENCHMARKS.md "Spot checks").
 */
export const DEFAULT_SPOT_CHECK_PERCENT = 5;
