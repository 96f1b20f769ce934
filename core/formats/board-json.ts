/**
 * The JSON shape of a board (as printed by `cubist solve --json`): `board[row][col] = [id, rot]`, where
 * id is the user-facing piece id (`piece.id`), rot the clockwise quarter turns of the listed piece, and
 * `null` marks an empty cell. Rows run top to bottom.
 */

import { InvalidPuzzleError } from "../errors.js";
import type { Board, Puzzle } from "../puzzle.js";

/** `board[row][col] = [pieceId, rot]` or null. */
export type BoardJSON = Array<Array<[number, number] | null>>;

/** The JSON shape of `board`, with user-facing piece ids of `puzzle`. */
export function boardToJSON(board: Board, puzzle: Pick<Puzzle, "pieces">): BoardJSON {
  const out: BoardJSON = [];
  for (let r = 0; r < board.rows; r++) {
    const row: Array<[number, number] | null> = [];
    for (let c = 0; c < board.cols; c++) {
      const cell = board.cells[r * board.cols + c];
      row.push(cell ? [puzzle.pieces[cell.piece].id, cell.rot] : null);
    }
    out.push(row);
  }
  return out;
}

/**
 * Reads a board in the JSON shape for `puzzle`: `value` is JSON text or an already parsed value, either
 * the array itself or an object with a `board` array (or `"board": null` and a `best` object with one, as `cubist solve
 * --json` prints a board that is not a solution). Checks the size, known ids, rotations 0..3 and that
 * no piece is used twice (not that edges match).
 */
export function readBoardJSON(value: unknown, puzzle: Puzzle, file = "<board>"): Board {
  let v = value;
  if (typeof v === "string") {
    try {
      v = JSON.parse(v) as unknown;
    } catch (err) {
      throw new InvalidPuzzleError(file, 0, `board is not valid JSON: ${(err as Error).message}`, { cause: err });
    }
  }
  if (v !== null && typeof v === "object" && !Array.isArray(v) && "board" in v) {
    // `cubist solve --json` without a solution (unknown, or a score search) has "board": null and its best board in
    // "best": {"board": ...}; that is the board such output is about.
    const o = v as { board: unknown; best?: unknown };
    const best = o.best !== null && typeof o.best === "object" ? (o.best as { board?: unknown }).board : undefined;
    v = o.board === null && best !== undefined ? best : o.board;
  }
  const fail = (reason: string): never => { throw new InvalidPuzzleError(file, 0, reason); };
  if (!Array.isArray(v)) fail("board must be an array of rows");
  const rowsIn = v as unknown[];
  if (rowsIn.length !== puzzle.rows) fail(`board has ${rowsIn.length} rows, the puzzle has ${puzzle.rows}`);
  const indexById = new Map<number, number>();
  puzzle.pieces.forEach((p, i) => indexById.set(p.id, i));
  const used = new Set<number>();
  const cells: Array<{ piece: number; rot: number } | null> = [];
  rowsIn.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== puzzle.cols) {
      fail(`board row ${r} must be an array of ${puzzle.cols} cells`);
    }
    (row as unknown[]).forEach((cell, c) => {
      if (cell === null) { cells.push(null); return; }
      if (!Array.isArray(cell) || cell.length !== 2 || !Number.isInteger(cell[0]) || !Number.isInteger(cell[1])) {
        fail(`board cell (row ${r}, col ${c}) must be [id, rot] or null`);
      }
      const [id, rot] = cell as [number, number];
      const piece = indexById.get(id);
      if (piece === undefined) fail(`board cell (row ${r}, col ${c}) names unknown piece ${id}`);
      if (rot < 0 || rot > 3) fail(`board cell (row ${r}, col ${c}) has rotation ${rot}, expected 0..3`);
      if (used.has(piece!)) fail(`piece ${id} is used twice on the board`);
      used.add(piece!);
      cells.push({ piece: piece!, rot });
    });
  });
  return { rows: puzzle.rows, cols: puzzle.cols, cells };
}
