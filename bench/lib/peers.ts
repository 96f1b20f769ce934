/**
 * Reference times of a public single-threaded C row-scan backtracker, for issue 10's frontier benchmark
 * (bench/frontier.ts and BENCHMARKS.md), measured once and kept here:
 *
 *   david3x3x3/eternity2 (eternity2.c, CPU path; GPL-2, not part of this project): a plain row-scan backtracker with
 *   precomputed candidate tables, about 30 M placements/s on one core. Measured on a 2-core machine like ours (Heule
 *   suite 2026-11-23, Brendan's boards 2026-11-26), one job at a time, time to the first solution (every board it
 *   printed was verified). Each input was made with `cubist puzzle shuffle FILE --seed S` (seeds 1, 2, 3) and the
 *   pieces passed in that order, except that the first corner piece of the file was fixed at the top-left (the
 *   program's symmetry break), on a board whose rows run along its short side (9 rows of 6 for 9x6), as a row scan
 *   runs best. The Brendan table of 2026-11-23 had the rows along the long side, which overstated the program's
 *   times up to 1000x (9x6 seed 3: > 120 s then, 0.04 s now). bench/frontier2.ts runs the program side by side
 *   (bench/lib/reference-eternity2.ts).
 *
 * Seconds per board and seed; `null` is "> limit" (not solved within `limitSec`, or the board's own limit in
 * `boardLimitSec`); a seed that is absent was not run.
 */

/** One table of reference times. */
export interface ReferenceTable {
  /** Where the figures come from, one line (for the benchmark's output). */
  readonly source: string;
  /** The time limit of the measurement, seconds. */
  readonly limitSec: number;
  /** Boards measured with another limit. */
  readonly boardLimitSec: Readonly<Record<string, number>>;
  /** board -> seed -> seconds, or null for "> limit". */
  readonly times: Readonly<Record<string, Readonly<Record<number, number | null>>>>;
}

const SOURCE = "david3x3x3/eternity2 (public single-threaded C row-scan backtracker, 1 core, rows along the short side), measured 2026-11-26";
const SOURCE_HEULE = "david3x3x3/eternity2 (public single-threaded C row-scan backtracker, 1 core), measured 2026-11-23";

/**
 * Brendan Owen's set 1 (the frontier suite), 120 s limit, re-measured 2026-11-26 with the rows along the short side;
 * the 8x8: > 900 s on seed 1 (2026-11-23, rows along a side of 8 either way).
 */
export const REFERENCE_FRONTIER: ReferenceTable = {
  source: SOURCE,
  limitSec: 120,
  boardLimitSec: { "8x8": 900 },
  times: {
    "7x6": { 1: 0.05, 2: 0.02, 3: 0.27 },
    "8x5": { 1: 0.01, 2: 0.03, 3: 0.03 },
    "7x7": { 1: 0.25, 2: 0.13, 3: 0.32 },
    "8x6": { 1: 0.49, 2: 0.13, 3: 0.08 },
    "9x5": { 1: 0.29, 2: 0.08, 3: 0.02 },
    "8x7": { 1: 5.85, 2: 47.38, 3: 8.23 },
    "9x6": { 1: 4.11, 2: 7.89, 3: 0.04 },
    "10x5": { 1: 0.10, 2: 0.03, 3: 0.15 },
    "8x8": { 1: null },
  },
};

/** Brendan Owen's set 1, the next sizes (bench/frontier2.ts), 120 s limit (14x5: 300 s), 2026-11-26; 8x8 not run. */
export const REFERENCE_FRONTIER2: ReferenceTable = {
  source: SOURCE,
  limitSec: 120,
  boardLimitSec: { "14x5": 300 },
  times: {
    "11x5": { 1: 3.46, 2: 1.83, 3: 1.10 },
    "12x5": { 1: 41.26, 2: 35.72, 3: 3.29 },
    "10x6": { 1: 1.99, 2: 16.02, 3: 1.61 },
    "9x7": { 1: 13.98, 2: 5.19, 3: 3.13 },
    "13x5": { 1: 13.79, 2: 16.49, 3: 32.81 },
    "14x5": { 1: 65.73, 2: null, 3: 174.76 },
  },
};

/** Heule's 2008 em-* suite, 60 s limit. */
export const REFERENCE_HEULE: ReferenceTable = {
  source: SOURCE_HEULE,
  limitSec: 60,
  boardLimitSec: {},
  times: {
    "em_7_3_6": { 1: 0.26, 2: 0.42, 3: 0.10 },
    "em_7_4_8": { 1: 0.07, 2: 0.07, 3: 0.12 },
    "em_7_4_9": { 1: 0.02, 2: 0.01, 3: 0.01 },
    "em_8_4_5": { 1: 0.24, 2: 0.22, 3: 0.99 },
    "em_9_3_5": { 1: 2.89, 2: null, 3: null },
    "em_11_3_4": { 1: null, 2: 11.5, 3: 8.11 },
    "em_12_2_4": { 1: 0.95, 2: 3.48, 3: 0.01 },
    "em_14_7_3": { 1: null, 2: null, 3: null },
  },
};

/** A reference time: seconds (null for "> limitSec"); undefined when that board and seed were not run. */
export interface ReferenceTime {
  readonly seconds: number | null;
  readonly limitSec: number;
}

/** The reference time of a board and seed in either table, or undefined. */
export function referenceTime(board: string, seed: number): ReferenceTime | undefined {
  for (const table of [REFERENCE_FRONTIER, REFERENCE_FRONTIER2, REFERENCE_HEULE]) {
    const row = table.times[board];
    if (!row || !(seed in row)) continue;
    return { seconds: row[seed], limitSec: table.boardLimitSec[board] ?? table.limitSec };
  }
  return undefined;
}
