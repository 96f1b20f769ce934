/**
 * A counted cube's verdict (objective "count", docs/cluster.md "Counting"), read against the run's own puzzle and
 * the cube's own placements: the coordinator trusts no worker. Every board the verdict carries must be a whole
 * board, accepted by the independent verifier (core/verify.ts), inside the cube (its cells show the cube's
 * placements' colours), and different from the others (a solution is a board's colours: copies of identical pieces
 * are one board). The verdict must carry all of the cube's boards, or the task's `count_boards` of them when it
 * has more; the count beyond those boards is then taken on the worker's word, exactly as a refuted cube is (the
 * engine's exhausted search of the cube, not re-checked). A run that records every board (`every_board`) takes no
 * count on a worker's word: such a cube is re-split instead. Pure: nothing here records or changes state.
 */

import { acceptBoard } from "../core/accept.js";
import { boardFromPlacements, rotateEdges, type Board, type Placement, type Puzzle } from "../core/puzzle.js";
import { VerdictKind, type Verdict } from "../proto/gen/cubist/v1/cube.js";

export type CountCheck =
  /** Counted: `boards` verified; `verified` true when every solution of the cube is among them. */
  | { kind: "counted"; solutions: number; boards: Board[]; verified: boolean }
  /** The cube has more solutions than a verdict carries and the run records every board: re-split it. */
  | { kind: "too-many"; solutions: number }
  | { kind: "rejected"; reason: string };

/** The colours a board shows, cell by cell: two boards are one solution when these are equal. */
function coloursKey(puzzle: Puzzle, board: Board): string {
  return board.cells.map((c) => rotateEdges(puzzle.pieces[c!.piece].edges, c!.rot).join(".")).join(",");
}

function wholeBoard(puzzle: Puzzle, cells: readonly Placement[]): Board | string {
  const n = puzzle.rows * puzzle.cols;
  if (cells.length !== n) return `a board with ${cells.length} placements on ${n} cells`;
  const seen = new Uint8Array(n);
  for (const p of cells) {
    if (!Number.isInteger(p.cell) || p.cell < 0 || p.cell >= n || seen[p.cell]) return `cell ${p.cell} out of range or placed twice`;
    if (!Number.isInteger(p.piece) || p.piece < 0 || p.piece >= puzzle.pieces.length || !Number.isInteger(p.rot) || p.rot < 0 || p.rot > 3) {
      return `placement ${p.cell}:${p.piece}:${p.rot} out of range`;
    }
    seen[p.cell] = 1;
  }
  return boardFromPlacements(puzzle, cells);
}

/**
 * Checks a counted cube's verdict. `cube` is the cube's placements from the run's own table; `cap` the boards the
 * task asked for (spec.solver.countBoards); `everyBoard` the run's every_board.
 */
export function checkCount(puzzle: Puzzle, cube: readonly Placement[], v: Verdict, cap: number, everyBoard: boolean): CountCheck {
  const c = v.counted;
  if (!c) return { kind: "rejected", reason: "a counting run's verdict without a count" };
  const solutions = c.solutions;
  if (!Number.isSafeInteger(solutions) || solutions < 0) return { kind: "rejected", reason: `count ${solutions} out of range` };
  if ((solutions > 0) !== (v.kind === VerdictKind.VERDICT_KIND_SAT)) return { kind: "rejected", reason: `count ${solutions} with a ${v.kind === VerdictKind.VERDICT_KIND_SAT ? "SAT" : "UNSAT"} verdict` };
  const expected = Math.min(solutions, cap);
  if (c.boards.length !== expected) return { kind: "rejected", reason: `count ${solutions} with ${c.boards.length} boards, expected ${expected}` };
  if (everyBoard && solutions > c.boards.length) return { kind: "too-many", solutions };
  const boards: Board[] = [];
  const keys = new Set<string>();
  for (const [i, b] of c.boards.entries()) {
    const board = wholeBoard(puzzle, b.cells);
    if (typeof board === "string") return { kind: "rejected", reason: `board ${i}: ${board}` };
    const accepted = acceptBoard(puzzle, board);
    if (!accepted.ok) return { kind: "rejected", reason: `board ${i}: ${accepted.reason}` };
    for (const p of cube) {
      const at = board.cells[p.cell]!;
      if (rotateEdges(puzzle.pieces[at.piece].edges, at.rot).join(".") !== rotateEdges(puzzle.pieces[p.piece].edges, p.rot).join(".")) {
        return { kind: "rejected", reason: `board ${i} is not in the cube: cell ${p.cell} differs from its placement` };
      }
    }
    const key = coloursKey(puzzle, board);
    if (keys.has(key)) return { kind: "rejected", reason: `board ${i} repeats an earlier board` };
    keys.add(key);
    boards.push(accepted.board);
  }
  return { kind: "counted", solutions, boards, verified: boards.length === solutions };
}
