/**
 * A counted cube's verdict (objective "count", docs/cluster.md "Counting"), read against the run's own puzzle and
 * the cube's own placements: the coordinator trusts no worker. Every board the verdict carries must be a whole
 * board, accepted by the shape's independent verifier (core/verify.ts, core/triangle/verify.ts), inside the cube (its
 * cells show the cube's placements' colours or labels), and different from the others (a solution is what a board
 * shows: copies of identical pieces are one board). The verdict must carry all of the cube's boards, or the task's `count_boards` of them when it
 * has more; the count beyond those boards is then taken on the worker's word, exactly as a refuted cube is (the
 * engine's exhausted search of the cube, not re-checked). A run that records every board (`every_board`) takes no
 * count on a worker's word: such a cube is re-split instead. Pure: nothing here records or changes state.
 */

import type { Placement } from "../../core/puzzle.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { RunShape } from "./shape.js";

export type CountCheck =
  /** Counted: `boards` verified (placements in cell order); `verified` true when every solution of the cube is among them. */
  | { kind: "counted"; solutions: number; boards: Placement[][]; verified: boolean }
  /** The cube has more solutions than a verdict carries and the run records every board: re-split it. */
  | { kind: "too-many"; solutions: number }
  | { kind: "rejected"; reason: string };

/**
 * Checks a counted cube's verdict. `cube` is the cube's placements from the run's own table; `cap` the boards the
 * task asked for (spec.solver.countBoards); `everyBoard` the run's every_board.
 */
export function checkCount(shape: Pick<RunShape, "checkBoard" | "shows">, cube: readonly Placement[], v: Verdict, cap: number, everyBoard: boolean): CountCheck {
  const c = v.counted;
  if (!c) return { kind: "rejected", reason: "a counting run's verdict without a count" };
  const solutions = c.solutions;
  if (!Number.isSafeInteger(solutions) || solutions < 0) return { kind: "rejected", reason: `count ${solutions} out of range` };
  if ((solutions > 0) !== (v.kind === VerdictKind.VERDICT_KIND_SAT)) return { kind: "rejected", reason: `count ${solutions} with a ${v.kind === VerdictKind.VERDICT_KIND_SAT ? "SAT" : "UNSAT"} verdict` };
  const expected = Math.min(solutions, cap);
  if (c.boards.length !== expected) return { kind: "rejected", reason: `count ${solutions} with ${c.boards.length} boards, expected ${expected}` };
  if (everyBoard && solutions > c.boards.length) return { kind: "too-many", solutions };
  const boards: Placement[][] = [];
  const keys = new Set<string>();
  for (const [i, b] of c.boards.entries()) {
    const board = shape.checkBoard(b.cells);
    if (!board.ok) return { kind: "rejected", reason: `board ${i}: ${board.reason}` };
    for (const p of cube) {
      if (board.shown[p.cell] !== shape.shows(p)) return { kind: "rejected", reason: `board ${i} is not in the cube: cell ${p.cell} differs from its placement` };
    }
    const key = board.shown.join(",");
    if (keys.has(key)) return { kind: "rejected", reason: `board ${i} repeats an earlier board` };
    keys.add(key);
    boards.push(board.cells);
  }
  return { kind: "counted", solutions, boards, verified: boards.length === solutions };
}
