/**
 * The solution verifier: checks a board against a puzzle with nothing but the rules of the game,
 * independent of every encoder (it never imports core/encode/), so a decoded model can be trusted
 * only after it passes here.
 *
 * Rules of a complete solution, checked in this order, every violation reported:
 * 1. the board has the puzzle's rows and columns (nothing else is checked when it does not);
 * 2. every cell holds a piece, the piece index is in range and the rotation is an integer 0..3;
 * 3. every piece is used exactly once (missing pieces and duplicates are both reported);
 * 4. every inner edge joins equal colours;
 * 5. bounded puzzles (some piece has grey): every rim side is grey and no inner side is grey;
 *    unbounded puzzles have no rim rule;
 * 6. every hint cell holds the hint's piece with the hint's rotation.
 *
 * A partial board (`verifyPartial`) may have empty (null) cells: the same rules apply to placed
 * cells and to edges between two placed cells; missing pieces and empty hint cells are not errors.
 *
 * Cells are named `(row,col)`, 0-based from the top-left; pieces by their user-facing `id`.
 */

import {
  isBounded,
  neighbour,
  rimSides,
  rotatedEdge,
  EAST,
  SOUTH,
  type Board,
  type Hint,
  type Puzzle,
} from "./puzzle.js";
import { InvalidOptionError } from "./errors.js";

/** One broken rule. `message` is for people; the other fields are for programs. */
export type Violation =
  | {
      readonly kind: "size-mismatch";
      readonly expected: { readonly rows: number; readonly cols: number; readonly cells: number };
      readonly actual: { readonly rows: number; readonly cols: number; readonly cells: number };
      readonly message: string;
    }
  | { readonly kind: "empty-cell"; readonly cell: number; readonly message: string }
  | { readonly kind: "piece-out-of-range"; readonly cell: number; readonly piece: number; readonly message: string }
  | { readonly kind: "rot-out-of-range"; readonly cell: number; readonly rot: number; readonly message: string }
  | { readonly kind: "missing-piece"; readonly piece: number; readonly message: string }
  | {
      readonly kind: "duplicate-piece";
      readonly piece: number;
      /** Every cell that holds the piece. */
      readonly cells: readonly number[];
      readonly message: string;
    }
  | {
      readonly kind: "edge-mismatch";
      /** The west/north cell first, then its east/south neighbour. */
      readonly cells: readonly [number, number];
      readonly colours: readonly [number, number];
      readonly message: string;
    }
  | { readonly kind: "rim-not-grey"; readonly cell: number; readonly side: number; readonly colour: number; readonly message: string }
  | { readonly kind: "grey-inside"; readonly cell: number; readonly side: number; readonly message: string }
  | { readonly kind: "hint-violated"; readonly cell: number; readonly hint: Hint; readonly message: string };

/** The kinds of violation, in check order. */
export type ViolationKind = Violation["kind"];

/** The verdict of the verifier: ok, or every violation found (the first is the one to name). */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly violations: readonly Violation[] };

const SIDE_NAMES = ["north", "east", "south", "west"] as const;

/** `(row,col)` of a cell, 0-based from the top-left. */
export function cellName(puzzle: { cols: number }, cell: number): string {
  return `(${Math.floor(cell / puzzle.cols)},${cell % puzzle.cols})`;
}

/** Verifies a complete board: every rule of the module comment. */
export function verifySolution(puzzle: Puzzle, board: Board): VerifyResult {
  return check(puzzle, board, true);
}

/** Verifies a partial board: null cells allowed; only placed cells and edges between placed cells are checked. */
export function verifyPartial(puzzle: Puzzle, board: Board): VerifyResult {
  return check(puzzle, board, false);
}

/** Number of inner edges of the puzzle's board: the maximum score (480 for Eternity II). */
export function innerEdgeCount(puzzle: { rows: number; cols: number }): number {
  return puzzle.rows * (puzzle.cols - 1) + (puzzle.rows - 1) * puzzle.cols;
}

/**
 * Number of inner edges whose two sides are placed and carry the same colour (the Eternity II score,
 * out of `innerEdgeCount`). In a bounded puzzle a grey-grey join inside does not count, as in the
 * e2.bucas.name viewer. Empty cells and cells with an invalid piece or rotation score nothing.
 * @throws InvalidOptionError when the board does not have the puzzle's size.
 */
export function scoreBoard(puzzle: Puzzle, board: Board): number {
  if (!sizeMatches(puzzle, board)) {
    throw new InvalidOptionError(
      "board",
      `is ${board.rows}x${board.cols} with ${board.cells.length} cells, the puzzle is ${puzzle.rows}x${puzzle.cols}`,
    );
  }
  const bounded = isBounded(puzzle);
  let score = 0;
  forEachJoin(puzzle, placedEdges(puzzle, board), (_cell, _other, _dir, a, b) => {
    if (a === b && !(bounded && a === 0)) score++;
  });
  return score;
}

function sizeMatches(puzzle: Puzzle, board: Board): boolean {
  return board.rows === puzzle.rows && board.cols === puzzle.cols && board.cells.length === puzzle.rows * puzzle.cols;
}

/** Placed colours [N, E, S, W] per cell, or null for empty cells and cells with an invalid piece or rotation. */
function placedEdges(puzzle: Puzzle, board: Board): Array<readonly number[] | null> {
  const out: Array<readonly number[] | null> = [];
  for (let cell = 0; cell < board.cells.length; cell++) {
    const c = board.cells[cell];
    if (c == null || !validPiece(puzzle, c.piece) || !validRot(c.rot)) {
      out.push(null);
      continue;
    }
    const edges = puzzle.pieces[c.piece].edges;
    out.push([0, 1, 2, 3].map((d) => rotatedEdge(edges, c.rot, d)));
  }
  return out;
}

/** Calls `fn` for every inner edge between two cells of `placed` that are both non-null (east and south joins). */
function forEachJoin(
  puzzle: Puzzle,
  placed: ReadonlyArray<readonly number[] | null>,
  fn: (cell: number, other: number, dir: number, a: number, b: number) => void,
): void {
  for (let cell = 0; cell < placed.length; cell++) {
    const here = placed[cell];
    if (here === null) continue;
    for (const dir of [EAST, SOUTH]) {
      const other = neighbour(puzzle, cell, dir);
      if (other < 0) continue;
      const there = placed[other];
      if (there === null) continue;
      fn(cell, other, dir, here[dir], there[(dir + 2) & 3]);
    }
  }
}

function validPiece(puzzle: Puzzle, piece: number): boolean {
  return Number.isInteger(piece) && piece >= 0 && piece < puzzle.pieces.length;
}

function validRot(rot: number): boolean {
  return Number.isInteger(rot) && rot >= 0 && rot <= 3;
}

function check(puzzle: Puzzle, board: Board, complete: boolean): VerifyResult {
  const v: Violation[] = [];
  const name = (cell: number): string => cellName(puzzle, cell);

  if (!sizeMatches(puzzle, board)) {
    const expected = { rows: puzzle.rows, cols: puzzle.cols, cells: puzzle.rows * puzzle.cols };
    const actual = { rows: board.rows, cols: board.cols, cells: board.cells.length };
    v.push({
      kind: "size-mismatch",
      expected,
      actual,
      message:
        `board is ${actual.rows}x${actual.cols} with ${actual.cells} cells, ` +
        `the puzzle is ${expected.rows}x${expected.cols} (${expected.cells} cells)`,
    });
    return { ok: false, violations: v };
  }

  // 2. cell contents
  for (let cell = 0; cell < board.cells.length; cell++) {
    const c = board.cells[cell];
    if (c === null || c === undefined) {
      if (complete) v.push({ kind: "empty-cell", cell, message: `cell ${name(cell)} is empty` });
      continue;
    }
    if (!validPiece(puzzle, c.piece)) {
      v.push({
        kind: "piece-out-of-range",
        cell,
        piece: c.piece,
        message: `cell ${name(cell)} holds piece index ${c.piece}, outside 0..${puzzle.pieces.length - 1}`,
      });
    }
    if (!validRot(c.rot)) {
      v.push({ kind: "rot-out-of-range", cell, rot: c.rot, message: `cell ${name(cell)} has rotation ${c.rot}, outside 0..3` });
    }
  }

  // 3. each piece exactly once
  const cellsOf: number[][] = puzzle.pieces.map(() => []);
  board.cells.forEach((c, cell) => {
    if (c && validPiece(puzzle, c.piece)) cellsOf[c.piece].push(cell);
  });
  for (let piece = 0; piece < cellsOf.length; piece++) {
    const at = cellsOf[piece];
    const id = puzzle.pieces[piece].id;
    if (at.length === 0 && complete) {
      v.push({ kind: "missing-piece", piece, message: `piece ${id} is not on the board` });
    } else if (at.length > 1) {
      v.push({
        kind: "duplicate-piece",
        piece,
        cells: at,
        message: `piece ${id} is placed ${at.length} times, at ${at.map(name).join(", ")}`,
      });
    }
  }

  // 4. inner edges; 5. grey on the rim only (bounded puzzles)
  const placed = placedEdges(puzzle, board);
  const bounded = isBounded(puzzle);
  forEachJoin(puzzle, placed, (cell, other, dir, a, b) => {
    if (a === b) return;
    v.push({
      kind: "edge-mismatch",
      cells: [cell, other],
      colours: [a, b],
      message: `cells ${name(cell)} and ${name(other)} disagree: ${SIDE_NAMES[dir]} ${a} vs ${SIDE_NAMES[(dir + 2) & 3]} ${b}`,
    });
  });
  if (bounded) {
    const greyInside: Violation[] = [];
    for (let cell = 0; cell < placed.length; cell++) {
      const here = placed[cell];
      if (here === null) continue;
      const rim = rimSides(puzzle, cell);
      for (let dir = 0; dir < 4; dir++) {
        if (rim[dir] && here[dir] !== 0) {
          v.push({
            kind: "rim-not-grey",
            cell,
            side: dir,
            colour: here[dir],
            message: `cell ${name(cell)} has colour ${here[dir]} on its ${SIDE_NAMES[dir]} side, on the rim (must be grey 0)`,
          });
        } else if (!rim[dir] && here[dir] === 0) {
          greyInside.push({
            kind: "grey-inside",
            cell,
            side: dir,
            message: `cell ${name(cell)} has grey on its ${SIDE_NAMES[dir]} side, inside the board`,
          });
        }
      }
    }
    v.push(...greyInside);
  }

  // 6. hints
  for (const hint of puzzle.hints) {
    const cell = hint.row * puzzle.cols + hint.col;
    const hintId = validPiece(puzzle, hint.piece) ? puzzle.pieces[hint.piece].id : `index ${hint.piece}`;
    const want = `piece ${hintId} rot ${hint.rot}`;
    if (hint.row < 0 || hint.row >= puzzle.rows || hint.col < 0 || hint.col >= puzzle.cols) {
      v.push({ kind: "hint-violated", cell, hint, message: `hint ${want} at (${hint.row},${hint.col}) is off the board` });
      continue;
    }
    const c = board.cells[cell];
    if (c === null || c === undefined) {
      if (complete) v.push({ kind: "hint-violated", cell, hint, message: `hint cell ${name(cell)} is empty, wants ${want}` });
      continue;
    }
    if (c.piece !== hint.piece || c.rot !== hint.rot) {
      const gotId = validPiece(puzzle, c.piece) ? puzzle.pieces[c.piece].id : `index ${c.piece}`;
      v.push({
        kind: "hint-violated",
        cell,
        hint,
        message: `hint cell ${name(cell)} holds piece ${gotId} rot ${c.rot}, wants ${want}`,
      });
    }
  }

  return v.length === 0 ? { ok: true } : { ok: false, violations: v };
}
