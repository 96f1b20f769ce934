/**
 * The boards of issue 10's frontier benchmark (bench/frontier.ts), grouped in suites, with what each run must
 * answer and the issue's per-board target.
 *
 * - frontier: Brendan Owen's E2-like set 1, the eight boards the issue names. bench/puzzles/brendan/pieces_WWxHH.txt
 *   are his files as published in jfbucas/eternityII-viewer (data/brendan; Brendan's format: `W H`, then
 *   `up right down left` per piece, 0 = grey). pieces_07x06.txt is the 7x6 board (7 columns, 6 rows). Target per
 *   board and seed: `cubist solve` within max(1 s, the reference's time).
 * - heule: Heule's 2008 em-* instances, test/fixtures/heule2008 (the files bench/cluster-speedup.ts uses). Target:
 *   within 1.2 s on one machine, em_9_3_5 within 3 s.
 * - hard: Brendan's 8x8 (goal: within 30 min), bench/puzzles/unsat-hard.txt and bench/puzzles/unsat-8x8.txt (refuted;
 *   no target time; unsat-8x8 is the cluster-scheduling UNSAT of about 60 s on one worker with the bucket-scan
 *   engine, unsat-8x8-60s the same kind for the bit-set engine, unsat-8x8-b4 for the bit-set engine with symmetry breaking).
 */

import { referenceTime } from "./peers.js";

export type SuiteName = "frontier" | "heule" | "hard";
export const SUITES: readonly SuiteName[] = ["frontier", "heule", "hard"];

/** One board of a suite. */
export interface SuiteBoard {
  readonly suite: SuiteName;
  /** The name in results and tables ("7x6", "em_9_3_5", "unsat-hard"). */
  readonly name: string;
  /** Puzzle file, relative to the repository root. */
  readonly file: string;
  /** The answer a correct run gives. */
  readonly expect: "sat" | "unsat";
}

const brendan = (cols: number, rows: number, suite: SuiteName): SuiteBoard => ({
  suite,
  name: `${cols}x${rows}`,
  file: `bench/puzzles/brendan/pieces_${String(cols).padStart(2, "0")}x${String(rows).padStart(2, "0")}.txt`,
  expect: "sat",
});

export const BOARDS: readonly SuiteBoard[] = [
  ...([[7, 6], [8, 5], [7, 7], [8, 6], [9, 5], [8, 7], [9, 6], [10, 5]] as const).map(([c, r]) => brendan(c, r, "frontier")),
  ...["em_7_3_6", "em_7_4_8", "em_7_4_9", "em_8_4_5", "em_9_3_5", "em_11_3_4", "em_12_2_4", "em_14_7_3"].map(
    (name): SuiteBoard => ({ suite: "heule", name, file: `test/fixtures/heule2008/${name}.txt`, expect: "sat" }),
  ),
  brendan(8, 8, "hard"),
  { suite: "hard", name: "unsat-hard", file: "bench/puzzles/unsat-hard.txt", expect: "unsat" },
  // Cluster scheduling (issue 10): an UNSAT that takes one engine about 60 s (bench/puzzles/unsat-8x8.txt says how it was made).
  { suite: "hard", name: "unsat-8x8", file: "bench/puzzles/unsat-8x8.txt", expect: "unsat" },
  // The same kind, about 60 s for one bit-set engine (4.85 G placements; bench/puzzles/unsat-8x8-60s.txt).
  { suite: "hard", name: "unsat-8x8-60s", file: "bench/puzzles/unsat-8x8-60s.txt", expect: "unsat" },
  // Since scan cubes break the symmetry (about a quarter of the work), unsat-8x8-60s takes one worker about 40 s; this
  // one about 60 s of search (2.7 G placements with --symmetry; bench/puzzles/unsat-8x8-b4.txt).
  { suite: "hard", name: "unsat-8x8-b4", file: "bench/puzzles/unsat-8x8-b4.txt", expect: "unsat" },
];

/** The target for one board and seed, seconds, and how it was set; undefined where there is none. */
export function targetOf(board: SuiteBoard, seed: number): { seconds: number; why: string } | undefined {
  if (board.suite === "frontier") {
    const ref = referenceTime(board.name, seed);
    if (!ref) return undefined;
    // A reference "> L" is beaten by anything within L.
    return ref.seconds === null ? { seconds: ref.limitSec, why: `ref > ${ref.limitSec}` } : { seconds: Math.max(1, ref.seconds), why: "max(1 s, ref)" };
  }
  if (board.suite === "heule") return board.name === "em_9_3_5" ? { seconds: 3, why: "issue" } : { seconds: 1.2, why: "issue" };
  if (board.name === "8x8") return { seconds: 1800, why: "goal" };
  return undefined;
}
