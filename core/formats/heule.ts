/**
 * Marijn Heule's edge-matching format (benchmarks of "Solving edge-matching problems with satisfiability
 * solvers", 2008; read by encoder/em-encode.c):
 *
 *   line 1        h, the number of hints
 *   next h lines  `row col piece rot` (row, col and piece 1-based)
 *   then          one piece per line `N E S W`, 0 = grey; piece ids are 1-based line order
 *
 * The board size is not in the file: it is inferred from the piece kinds (4 corners, 2(r-2)+2(c-2) border
 * pieces, r*c pieces in all), choosing rows <= cols. An unbounded file (no grey) must be square.
 *
 * Hint rotation: Heule's encoder fixes a hinted centre piece as placed side d = listed side (d - rot) mod 4,
 * which is Cubist's convention (clockwise quarter turns). For corner and border pieces his encoder ignores
 * the rotation field (the rim fixes the orientation), so this reader does the same: it uses the only
 * rotation that puts the piece's grey sides on the rim.
 */

import { InvalidPuzzleError } from "../errors.js";
import { cellKind, pieceKind, rimSides, rotatedEdge, type Edges, type Hint, type Piece, type Puzzle } from "../puzzle.js";
import { checkPiece, validatePuzzle } from "../validate.js";
import { inferBoardSize } from "./board-size.js";
import { emptyFileError, parseColour, parseIntField, puzzleName, splitLines } from "./text.js";

/** Reads a puzzle in Heule's format; throws InvalidPuzzleError naming file:line. */
export function readHeule(text: string, file: string): Puzzle {
  const { data, comments } = splitLines(text, file);
  if (data.length === 0) throw emptyFileError(file);
  const first = data[0];
  if (first.fields.length !== 1) {
    throw new InvalidPuzzleError(
      file,
      first.line,
      `missing header: heule format starts with the hint count alone on a line, found ${first.fields.length} fields`,
    );
  }
  const hintCount = parseIntField(first.fields[0], file, first.line, "hint count");
  if (hintCount < 0) throw new InvalidPuzzleError(file, first.line, `hint count ${hintCount} is negative`);
  if (data.length - 1 < hintCount) {
    throw new InvalidPuzzleError(file, 0, `file ends after ${data.length - 1} of ${hintCount} hint lines`);
  }

  const rawHints: Array<{ line: number; row: number; col: number; piece: number; rot: number }> = [];
  for (const d of data.slice(1, 1 + hintCount)) {
    if (d.fields.length !== 4) {
      throw new InvalidPuzzleError(file, d.line, `expected a hint \`row col piece rot\` (4 fields), found ${d.fields.length}`);
    }
    const [row, col, piece, rot] = d.fields.map((f, k) =>
      parseIntField(f, file, d.line, ["hint row", "hint col", "hint piece", "hint rotation"][k]),
    );
    rawHints.push({ line: d.line, row, col, piece, rot });
  }

  const pieces: Piece[] = [];
  const pieceLines: number[] = [];
  for (const d of data.slice(1 + hintCount)) {
    const id = pieces.length + 1;
    if (d.fields.length !== 4) {
      throw new InvalidPuzzleError(file, d.line, `expected a piece \`N E S W\` (4 fields), found ${d.fields.length}`);
    }
    const edges = d.fields.map((f) => parseColour(f, file, d.line, `piece ${id}`)) as unknown as Edges;
    const piece: Piece = { id, edges };
    checkPiece(piece, file, d.line);
    pieces.push(piece);
    pieceLines.push(d.line);
  }
  if (pieces.length === 0) throw new InvalidPuzzleError(file, 0, "no pieces found after the hint lines");

  const { rows, cols } = inferBoardSize(pieces, file);
  const hints: Hint[] = rawHints.map((h) => {
    if (h.row < 1 || h.row > rows || h.col < 1 || h.col > cols) {
      throw new InvalidPuzzleError(
        file, h.line, `hint at (row ${h.row}, col ${h.col}) is off the ${rows}x${cols} board (heule rows and cols are 1-based)`,
      );
    }
    if (h.piece < 1 || h.piece > pieces.length) {
      throw new InvalidPuzzleError(file, h.line, `hint names unknown piece ${h.piece} (pieces are 1..${pieces.length})`);
    }
    if (h.rot < 0 || h.rot > 3) {
      throw new InvalidPuzzleError(file, h.line, `hint rotation ${h.rot} is not in 0..3`);
    }
    const hint: Hint = { row: h.row - 1, col: h.col - 1, piece: h.piece - 1, rot: h.rot };
    return { ...hint, rot: rimRotation({ rows, cols }, hint, pieces[hint.piece]) ?? hint.rot };
  });

  const puzzle: Puzzle = { rows, cols, pieces, hints, name: puzzleName(comments, file) };
  validatePuzzle(puzzle, file, { pieces: pieceLines, hints: rawHints.map((h) => h.line), cellBase: 1 });
  return puzzle;
}

/**
 * The rotation that puts exactly the grey sides of a corner/border piece on the rim of the hinted cell,
 * or undefined for centre pieces and for pieces that do not fit the cell (validation reports those).
 */
function rimRotation(board: { rows: number; cols: number }, hint: Hint, piece: Piece): number | undefined {
  const kind = pieceKind(piece);
  if (kind === "center" || !piece.edges.includes(0)) return undefined;
  const cell = hint.row * board.cols + hint.col;
  if (cellKind(board, cell) !== kind) return undefined;
  const rim = rimSides(board, cell);
  for (let rot = 0; rot < 4; rot++) {
    let ok = true;
    for (let d = 0; d < 4 && ok; d++) ok = (rotatedEdge(piece.edges, rot, d) === 0) === rim[d];
    if (ok) return rot;
  }
  return undefined;
}
