/**
 * Links to the e2.bucas.name board viewer (source: github.com/jfbucas/eternityII-viewer, `puzzle.js`
 * `readParameters`, which reads the parameters from the query string or the location hash):
 *
 *   https://e2.bucas.name/#puzzle=NAME&board_w=COLS&board_h=ROWS&board_edges=...&board_pieces=...
 *
 * - `board_edges`: 4 letters per cell, cells row-major from the top-left (space s = x + y * board_w),
 *   each cell's placed colours in up, right, down, left order (our N, E, S, W); colour k is the letter
 *   `chr(97 + k)` (the viewer's default motifs order: a = grey). An empty cell is `aaaa`.
 * - `board_pieces`: 3 decimal digits per cell, the piece number shown by the viewer. By default the
 *   piece's user-facing `id` (for Eternity II these are the official numbers 1..256, as in the
 *   viewer's Louis_Verhaard_467 links); `pieceNumbers: "index"` writes 0-based indices (as the
 *   viewer's Sample_4x4). An empty cell is `000`. Without `board_pieces` the viewer would try to
 *   match cells against the official Eternity II set, so it is always written.
 *
 * Checked against the viewer's own links: the Joshua_Blackwood_468 and Louis_Verhaard_467* boards
 * (default motifs order) re-encode to exactly their `board_edges`.
 *
 * Any board size is written; the viewer takes board_w/board_h and draws any rectangle, but only
 * recognises ("verifies") the official 16x16 set. Colours above 25 have no letter and piece numbers
 * above 999 no 3-digit form: both are refused with InvalidOptionError.
 */

import { InvalidOptionError } from "../errors.js";
import { rotatedEdge, type Board, type Puzzle } from "../puzzle.js";

/** The viewer's address. */
export const BUCAS_VIEWER_URL = "https://e2.bucas.name/";

/** Options of `bucasLink`. */
export interface BucasLinkOptions {
  /** Puzzle name shown by the viewer; characters outside [A-Za-z0-9_.-] become `_`. @default puzzle.name ?? "cubist" */
  readonly name?: string;
  /** Numbers in `board_pieces`: the piece id, or its 0-based index. @default "id" */
  readonly pieceNumbers?: "id" | "index";
  /** Ask the viewer to show piece numbers (`show_piecenumber=1`). @default false */
  readonly showPieceNumbers?: boolean;
}

/** The `board_edges` value of `board`: 4 letters (up, right, down, left) per cell, row-major. */
export function bucasBoardEdges(puzzle: Puzzle, board: Board): string {
  checkBoard(board);
  let s = "";
  for (let cell = 0; cell < board.cells.length; cell++) {
    const c = board.cells[cell];
    if (!isPlaced(puzzle, c)) {
      s += "aaaa";
      continue;
    }
    const edges = puzzle.pieces[c.piece].edges;
    for (let d = 0; d < 4; d++) {
      const k = rotatedEdge(edges, c.rot, d);
      if (!Number.isInteger(k) || k < 0 || k > 25) {
        throw new InvalidOptionError("board", `colour ${k} at cell ${cell} has no bucas letter (a..z covers colours 0..25)`);
      }
      s += String.fromCharCode(97 + k);
    }
  }
  return s;
}

/** The `board_pieces` value of `board`: 3 digits per cell, `000` for an empty cell. */
export function bucasBoardPieces(puzzle: Puzzle, board: Board, pieceNumbers: "id" | "index" = "id"): string {
  if (pieceNumbers !== "id" && pieceNumbers !== "index") {
    throw new InvalidOptionError("pieceNumbers", `'${pieceNumbers}' is not id or index`);
  }
  checkBoard(board);
  let s = "";
  for (let cell = 0; cell < board.cells.length; cell++) {
    const c = board.cells[cell];
    if (!isPlaced(puzzle, c)) {
      s += "000";
      continue;
    }
    const n = pieceNumbers === "id" ? puzzle.pieces[c.piece].id : c.piece;
    if (!Number.isInteger(n) || n < 0 || n > 999) {
      throw new InvalidOptionError("pieceNumbers", `piece number ${n} at cell ${cell} does not fit 3 digits`);
    }
    s += String(n).padStart(3, "0");
  }
  return s;
}

/** A link that opens `board` in the e2.bucas.name viewer (any size; see the module comment). */
export function bucasLink(puzzle: Puzzle, board: Board, opts: BucasLinkOptions = {}): string {
  const name = (opts.name ?? puzzle.name ?? "cubist").replace(/[^A-Za-z0-9_.-]/g, "_") || "cubist";
  const params = [
    `puzzle=${name}`,
    `board_w=${board.cols}`,
    `board_h=${board.rows}`,
    `board_edges=${bucasBoardEdges(puzzle, board)}`,
    `board_pieces=${bucasBoardPieces(puzzle, board, opts.pieceNumbers ?? "id")}`,
  ];
  if (opts.showPieceNumbers) params.push("show_piecenumber=1");
  return `${BUCAS_VIEWER_URL}#${params.join("&")}`;
}

function checkBoard(board: Board): void {
  if (board.cells.length !== board.rows * board.cols) {
    throw new InvalidOptionError("board", `has ${board.cells.length} cells for ${board.rows}x${board.cols}`);
  }
}

function isPlaced(puzzle: Puzzle, c: Board["cells"][number]): c is { piece: number; rot: number } {
  return c !== null && c !== undefined && Number.isInteger(c.piece) && c.piece >= 0 && c.piece < puzzle.pieces.length;
}
