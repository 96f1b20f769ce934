/**
 * Reference times of a public single-threaded C row-scan backtracker, for issue 10's frontier benchmark
 * (bench/frontier.ts and BENCHMARKS.md), measured once and kept here:
 *
 *   david3x3x3/eternity2 (eternity2.c, CPU path; GPL-2, not part of this project): a plain row-scan backtracker with
 *   precomputed candidate tables, about 30 M placements/s on one core. Measured 2026-11-23 on a 2-core machine like
 *   ours, one job at a time, time to the first solution (every board it printed was verified). Each input was made
 *   with `cubist puzzle shuffle FILE --seed S` (seeds 1, 2, 3) and the pieces passed in that order, except that the
 *   first corner piece of the file was fixed at the top-left (the program's symmetry break).
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

const SOURCE = "david3x3x3/eternity2 (public single-threaded C row-scan backtracker, 1 core), measured 2026-11-23";

/** Brendan Owen's set 1 (the frontier suite) and the 8x8, 120 s limit (the 8x8: 900 s, seed 1 only). */
export const REFERENCE_FRONTIER: ReferenceTable = {
  source: SOURCE,
  limitSec: 120,
  boardLimitSec: { "8x8": 900 },
  times: {
    "7x6": { 1: 0.67, 2: 0.13, 3: 0.22 },
    "8x5": { 1: 0.05, 2: 0.06, 3: 0.04 },
    "7x7": { 1: 0.21, 2: 0.13, 3: 0.29 },
    "8x6": { 1: 0.74, 2: 0.08, 3: 0.04 },
    "9x5": { 1: 1.62, 2: 0.16, 3: 1.58 },
    "8x7": { 1: 12.8, 2: 20.3, 3: 113 },
    "9x6": { 1: 96.4, 2: 1.77, 3: null },
    "10x5": { 1: 7.82, 2: 2.83, 3: 12.6 },
    "8x8": { 1: null },
  },
};

/** Heule's 2008 em-* suite, 60 s limit. */
export const REFERENCE_HEULE: ReferenceTable = {
  source: SOURCE,
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
  for (const table of [REFERENCE_FRONTIER, REFERENCE_HEULE]) {
    const row = table.times[board];
    if (!row || !(seed in row)) continue;
    return { seconds: row[seed], limitSec: table.boardLimitSec[board] ?? table.limitSec };
  }
  return undefined;
}
