/**
 * Brendan Owen's benchmark format (pieces_WWxHH.txt) and his solution files (solutions_WWxHH.txt).
 *
 * Pieces: first line `W H` (W = columns, H = rows), then one piece per line `up right down left`
 * (clockwise from the top, 0 = grey). Piece ids are 1-based line order.
 *
 * Solutions: first line `W H`, then line i+2 is `x y r` for piece i: x = column from the left (0-based),
 * y = row counted FROM THE BOTTOM (0-based), r = clockwise quarter turns of the listed piece.
 */

import { InvalidPuzzleError } from "../errors.js";
import type { Board, Edges, Piece, Puzzle } from "../puzzle.js";
import { validatePuzzle } from "../validate.js";
import { emptyFileError, parseColour, parseIntField, puzzleName, splitLines, type DataLine } from "./text.js";

function readSizeHeader(header: DataLine, file: string): { rows: number; cols: number } {
  if (header.fields.length !== 2) {
    throw new InvalidPuzzleError(
      file, header.line, `missing header: expected \`W H\` (columns rows), found ${header.fields.length} fields`,
    );
  }
  const cols = parseIntField(header.fields[0], file, header.line, "width");
  const rows = parseIntField(header.fields[1], file, header.line, "height");
  return { rows, cols };
}

/** Reads a puzzle in Brendan Owen's format; throws InvalidPuzzleError naming file:line. */
export function readBrendan(text: string, file: string): Puzzle {
  const { data, comments } = splitLines(text, file);
  if (data.length === 0) throw emptyFileError(file);
  const header = data[0];
  const { rows, cols } = readSizeHeader(header, file);
  const pieces: Piece[] = [];
  const pieceLines: number[] = [];
  for (const d of data.slice(1)) {
    const id = pieces.length + 1;
    if (d.fields.length !== 4) {
      throw new InvalidPuzzleError(
        file, d.line, `expected a piece \`up right down left\` (4 fields), found ${d.fields.length}`,
      );
    }
    const edges = d.fields.map((f) => parseColour(f, file, d.line, `piece ${id}`)) as unknown as Edges;
    pieces.push({ id, edges });
    pieceLines.push(d.line);
  }
  const puzzle: Puzzle = { rows, cols, pieces, hints: [], name: puzzleName(comments, file) };
  validatePuzzle(puzzle, file, { header: header.line, pieces: pieceLines });
  return puzzle;
}

/**
 * Reads one of Brendan Owen's solution files for `puzzle` (which must have been read from the matching
 * pieces file, so that piece i is line i+2 there). Checks the shape only (sizes, ranges, one piece per
 * cell), not that edges match.
 */
export function readBrendanSolution(text: string, file: string, puzzle: Puzzle): Board {
  const { data } = splitLines(text, file);
  if (data.length === 0) throw emptyFileError(file);
  const header = data[0];
  const { rows, cols } = readSizeHeader(header, file);
  if (rows !== puzzle.rows || cols !== puzzle.cols) {
    throw new InvalidPuzzleError(
      file, header.line, `solution is for a ${cols}x${rows} (W x H) board, the puzzle is ${puzzle.cols}x${puzzle.rows}`,
    );
  }
  const lines = data.slice(1);
  if (lines.length !== puzzle.pieces.length) {
    throw new InvalidPuzzleError(
      file, 0, `solution has ${lines.length} placements, the puzzle has ${puzzle.pieces.length} pieces`,
    );
  }
  const cells: Array<{ piece: number; rot: number } | null> = new Array(rows * cols).fill(null);
  const lineOfCell = new Map<number, number>();
  lines.forEach((d, piece) => {
    if (d.fields.length !== 3) {
      throw new InvalidPuzzleError(file, d.line, `expected a placement \`x y r\` (3 fields), found ${d.fields.length}`);
    }
    const [x, y, r] = d.fields.map((f, k) => parseIntField(f, file, d.line, ["x", "y", "r"][k]));
    if (x < 0 || x >= cols || y < 0 || y >= rows) {
      throw new InvalidPuzzleError(file, d.line, `placement (x ${x}, y ${y}) is off the ${cols}x${rows} board`);
    }
    if (r < 0 || r > 3) throw new InvalidPuzzleError(file, d.line, `rotation ${r} is not in 0..3`);
    const cell = (rows - 1 - y) * cols + x;
    const other = lineOfCell.get(cell);
    if (other !== undefined) {
      throw new InvalidPuzzleError(file, d.line, `two pieces on (x ${x}, y ${y}) (also line ${other})`);
    }
    lineOfCell.set(cell, d.line);
    cells[cell] = { piece, rot: r };
  });
  return { rows, cols, cells };
}
