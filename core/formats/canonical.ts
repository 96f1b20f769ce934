/**
 * Cubist's canonical puzzle format (the converted files of /work/shared/instances, e.g. e2_pieces.txt):
 *
 *   # name: <puzzle name>        optional; any other `#` text is a comment (also after data)
 *   rows cols                    the size header, first data line; optional: when absent the size is
 *                                inferred from the piece kinds (see board-size.ts), as for e2_pieces.txt
 *   id N E S W                   one line per piece, colours clockwise from the top, 0 = grey
 *   hint ROW COL ID ROT          optional, anywhere after the header
 *
 * Hints: ROW and COL are 0-based from the top-left, ID is a piece id of this file, ROT is the number of
 * clockwise quarter turns applied to the piece as listed (placed side d = listed side (d - ROT) mod 4).
 * Piece ids are kept as written (any distinct non-negative integers). `writeCanonical` round-trips.
 */

import { InvalidPuzzleError } from "../errors.js";
import type { Edges, Hint, Piece, Puzzle } from "../puzzle.js";
import { checkPiece, validatePuzzle } from "../validate.js";
import { inferBoardSize } from "./board-size.js";
import { emptyFileError, parseColour, parseIntField, puzzleName, splitLines } from "./text.js";

/** Reads a canonical puzzle; throws InvalidPuzzleError naming file:line. */
export function readCanonical(text: string, file: string): Puzzle {
  const { data, comments } = splitLines(text, file);
  if (data.length === 0) throw emptyFileError(file);
  // The `rows cols` header is optional (e2_pieces.txt has none): without it the size is inferred.
  const header = data[0].fields.length === 2 ? data[0] : undefined;
  let rows = 0, cols = 0;
  if (header) {
    rows = parseIntField(header.fields[0], file, header.line, "rows");
    cols = parseIntField(header.fields[1], file, header.line, "cols");
  } else if (data[0].fields.length !== 5 && data[0].fields[0].toLowerCase() !== "hint") {
    throw new InvalidPuzzleError(
      file,
      data[0].line,
      `missing header: expected \`rows cols\` or a piece \`id N E S W\`, found ${data[0].fields.length} fields`,
    );
  }

  const pieces: Piece[] = [];
  const pieceLines: number[] = [];
  const rawHints: Array<{ line: number; row: number; col: number; id: number; rot: number }> = [];
  for (const d of header ? data.slice(1) : data) {
    if (d.fields[0].toLowerCase() === "hint") {
      if (d.fields.length !== 5) {
        throw new InvalidPuzzleError(file, d.line, `expected \`hint ROW COL ID ROT\` (5 fields), found ${d.fields.length}`);
      }
      const [row, col, id, rot] = d.fields.slice(1).map((f, k) =>
        parseIntField(f, file, d.line, ["hint row", "hint col", "hint piece id", "hint rotation"][k]),
      );
      rawHints.push({ line: d.line, row, col, id, rot });
      continue;
    }
    if (d.fields.length !== 5) {
      throw new InvalidPuzzleError(file, d.line, `expected a piece \`id N E S W\` (5 fields), found ${d.fields.length}`);
    }
    const id = parseIntField(d.fields[0], file, d.line, "piece id");
    const edges = d.fields.slice(1).map((f) => parseColour(f, file, d.line, `piece ${id}`)) as unknown as Edges;
    pieces.push({ id, edges });
    pieceLines.push(d.line);
  }

  if (!header) {
    const firstPiece = pieceLines[0] ?? data[0].line;
    pieces.forEach((p, i) => checkPiece(p, file, pieceLines[i]));
    try {
      ({ rows, cols } = inferBoardSize(pieces, file));
    } catch (err) {
      const why = err instanceof InvalidPuzzleError ? err.reason : String(err);
      const reason = `missing header \`rows cols\`, and the size cannot be inferred: ${why}`;
      throw new InvalidPuzzleError(file, firstPiece, reason, { cause: err });
    }
  }

  const indexById = new Map<number, number>();
  pieces.forEach((p, i) => { if (!indexById.has(p.id)) indexById.set(p.id, i); });
  const hints: Hint[] = rawHints.map((h) => {
    const piece = indexById.get(h.id);
    if (piece === undefined) throw new InvalidPuzzleError(file, h.line, `hint names unknown piece ${h.id}`);
    return { row: h.row, col: h.col, piece, rot: h.rot };
  });

  const puzzle: Puzzle = { rows, cols, pieces, hints, name: puzzleName(comments, file) };
  validatePuzzle(puzzle, file, { header: header?.line ?? 0, pieces: pieceLines, hints: rawHints.map((h) => h.line) });
  return puzzle;
}

/** Writes a puzzle in canonical form; `readCanonical` gives back an equal puzzle (name, ids, hints). */
export function writeCanonical(puzzle: Puzzle): string {
  const out: string[] = [];
  if (puzzle.name !== undefined) out.push(`# name: ${puzzle.name.replace(/[\r\n]+/g, " ")}`);
  out.push("# cubist canonical puzzle: `rows cols`, then `id N E S W` per piece (clockwise from the top, 0 = grey),");
  out.push("# then `hint ROW COL ID ROT` (0-based row/col from the top-left, ROT = clockwise quarter turns)");
  out.push(`${puzzle.rows} ${puzzle.cols}`);
  for (const p of puzzle.pieces) out.push(`${p.id} ${p.edges.join(" ")}`);
  for (const h of puzzle.hints) out.push(`hint ${h.row} ${h.col} ${puzzle.pieces[h.piece].id} ${h.rot}`);
  return out.join("\n") + "\n";
}
