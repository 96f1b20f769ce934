/**
 * The triangle puzzle file format (docs/formats.md, "Triangle format") and its board JSON.
 *
 * ```
 * # name: my triangle     optional
 * triangle 6              the header: the shape and the side n (n*n pieces)
 * rotate                  optional: pieces may be turned in 120-degree steps
 * frame 1                 optional: every outer edge must show label 1
 * 1 3 1 2                 id H R F: one line per piece (horizontal, rising, falling)
 * hint 0 0 1 0            hint ROW POS ID [ROT]: 0-based row from the apex, position in the row from the left
 * ```
 * Every problem is an InvalidPuzzleError naming the file and line.
 */

import { excerpt, InvalidPuzzleError } from "../errors.js";
import { textLines } from "../formats/text.js";
import {
  cellAt, cellCount, MAX_LABEL, MAX_TRIANGLE_SIDE, placedLabel, posOfCell, rowOfCell, triangleCellName, triangleNeighbour,
  DIRECTION_NAMES, type TriangleBoard, type TriangleHint, type TrianglePiece, type TrianglePuzzle,
} from "./puzzle.js";

interface DataLine {
  line: number;
  fields: string[];
}

/** The most data lines a triangle file has: the header, `rotate`, `frame`, N*N pieces and as many hints. */
const MAX_DATA_LINES = 2 * MAX_TRIANGLE_SIDE * MAX_TRIANGLE_SIDE + 3;

/**
 * The data lines of `text` (comments dropped, blanks skipped) and its `# name:`; with `firstOnly`, stops at the first.
 * A file with more than MAX_DATA_LINES is refused at the line past it, before its lines are all held.
 */
function dataLines(text: string, file: string, firstOnly = false): { lines: DataLine[]; name?: string } {
  const out: DataLine[] = [];
  let name: string | undefined;
  for (const { line, text: l } of textLines(text)) {
    const nameMatch = /^\s*#\s*name:\s*(.*)$/i.exec(l);
    if (nameMatch && name === undefined) name = nameMatch[1].trim();
    const body = l.replace(/#.*$/, "").trim();
    if (body === "") continue;
    if (out.length === MAX_DATA_LINES) {
      throw new InvalidPuzzleError(file, line, `more than ${MAX_DATA_LINES} data lines: no triangle puzzle has that many (side at most ${MAX_TRIANGLE_SIDE})`);
    }
    out.push({ line, fields: body.split(/\s+/) });
    if (firstOnly) break;
  }
  return { lines: out, name: name === "" ? undefined : name };
}

/** True when the first data line of `text` is a `triangle` header. */
export function isTriangleText(text: string): boolean {
  const first = dataLines(text, "<puzzle>", true).lines[0];
  return first !== undefined && first.fields[0].toLowerCase() === "triangle";
}

function integer(file: string, line: number, what: string, s: string, min: number, max: number): number {
  if (!/^[+-]?\d+$/.test(s)) throw new InvalidPuzzleError(file, line, `${what} "${excerpt(s)}" is not an integer`);
  const n = Number(s);
  if (n < min || n > max) throw new InvalidPuzzleError(file, line, `${what} ${n} is outside ${min}..${max}`);
  return n;
}

/** Parses and validates a triangle puzzle; throws InvalidPuzzleError with file:line. */
export function parseTriangle(text: string, file: string): TrianglePuzzle {
  const { lines, name } = dataLines(text, file);
  if (lines.length === 0) throw new InvalidPuzzleError(file, 0, "empty file: expected a `triangle N` header");
  const head = lines[0];
  if (head.fields[0].toLowerCase() !== "triangle" || head.fields.length !== 2) {
    throw new InvalidPuzzleError(file, head.line, "expected the header `triangle N` (N = the side)");
  }
  const side = integer(file, head.line, "side", head.fields[1], 1, MAX_TRIANGLE_SIDE);
  let rotate = false;
  let frame: number | null = null;
  const pieces: TrianglePiece[] = [];
  const pieceLines: number[] = [];
  const rawHints: Array<{ line: number; row: number; pos: number; id: number; rot: number }> = [];
  const byId = new Map<number, number>();
  for (const { line, fields } of lines.slice(1)) {
    const word = fields[0].toLowerCase();
    if (word === "rotate") {
      if (fields.length !== 1) throw new InvalidPuzzleError(file, line, "`rotate` takes no arguments");
      if (pieces.length > 0) throw new InvalidPuzzleError(file, line, "`rotate` must come before the pieces");
      rotate = true;
    } else if (word === "frame") {
      if (fields.length !== 2) throw new InvalidPuzzleError(file, line, "expected `frame LABEL`");
      if (frame !== null) throw new InvalidPuzzleError(file, line, "a second `frame` line");
      frame = integer(file, line, "frame label", fields[1], 0, MAX_LABEL);
    } else if (word === "hint") {
      if (fields.length !== 4 && fields.length !== 5) throw new InvalidPuzzleError(file, line, "expected `hint ROW POS ID [ROT]`");
      const row = integer(file, line, "hint row", fields[1], 0, side - 1);
      const pos = integer(file, line, "hint position", fields[2], 0, 2 * row);
      const id = integer(file, line, "hint piece id", fields[3], 0, Number.MAX_SAFE_INTEGER);
      const rot = fields.length === 5 ? integer(file, line, "hint rotation", fields[4], 0, 2) : 0;
      rawHints.push({ line, row, pos, id, rot });
    } else {
      if (fields.length !== 4) {
        throw new InvalidPuzzleError(file, line, `expected a piece \`ID H R F\` (4 fields), got ${fields.length} field${fields.length === 1 ? "" : "s"}`);
      }
      const id = integer(file, line, "piece id", fields[0], 0, Number.MAX_SAFE_INTEGER);
      if (byId.has(id)) throw new InvalidPuzzleError(file, line, `duplicate piece id ${id} (first on line ${pieceLines[byId.get(id)!]})`);
      const e = fields.slice(1).map((f, d) => integer(file, line, `${DIRECTION_NAMES[d]} label`, f, 0, MAX_LABEL));
      byId.set(id, pieces.length);
      pieceLines.push(line);
      pieces.push({ id, edges: [e[0], e[1], e[2]] });
    }
  }
  if (pieces.length !== cellCount(side)) {
    throw new InvalidPuzzleError(file, 0, `a triangle of side ${side} needs ${cellCount(side)} pieces, found ${pieces.length}`);
  }
  const hints: TriangleHint[] = rawHints.map((h) => {
    const piece = byId.get(h.id);
    if (piece === undefined) throw new InvalidPuzzleError(file, h.line, `hint names unknown piece ${h.id}`);
    if (!rotate && h.rot !== 0) throw new InvalidPuzzleError(file, h.line, "hint rotation must be 0: the puzzle has no `rotate` line");
    return { cell: cellAt(h.row, h.pos), piece, rot: h.rot, line: h.line };
  });
  const puzzle: TrianglePuzzle = { shape: "triangle", side, pieces, hints, rotate, frame, ...(name ? { name } : {}) };
  checkTriangleHints(puzzle, file);
  return puzzle;
}

/** Hints: one per cell and per piece, the frame respected, adjacent hints matched. */
export function checkTriangleHints(puzzle: TrianglePuzzle, file: string): void {
  const conflict = triangleHintConflict(puzzle);
  if (conflict) throw new InvalidPuzzleError(file, conflict.hint.line ?? 0, conflict.message);
}

/**
 * The first hint that repeats a cell or a piece, shows a label other than the frame's on an outer edge, or does not
 * match an earlier hint next to it; null when the hints hold together. Also the check of a cube's placements taken
 * as hints (core/triangle/cubes.ts).
 */
export function triangleHintConflict(puzzle: TrianglePuzzle): { hint: TriangleHint; message: string } | null {
  const byCell = new Map<number, TriangleHint>();
  const usedPiece = new Map<number, TriangleHint>();
  for (const h of puzzle.hints) {
    const at = triangleCellName(h.cell);
    if (byCell.has(h.cell)) return { hint: h, message: `a second hint on ${at} (first on line ${byCell.get(h.cell)!.line ?? 0})` };
    if (usedPiece.has(h.piece)) return { hint: h, message: `piece ${puzzle.pieces[h.piece].id} is hinted twice` };
    byCell.set(h.cell, h);
    usedPiece.set(h.piece, h);
    const edges = puzzle.pieces[h.piece].edges;
    for (let d = 0; d < 3; d++) {
      const label = placedLabel(edges, h.rot, d);
      const nb = triangleNeighbour(puzzle.side, h.cell, d);
      if (nb < 0 && puzzle.frame !== null && label !== puzzle.frame) {
        return { hint: h, message: `hint puts label ${label} on the outer ${DIRECTION_NAMES[d]} edge of ${at}, the frame needs ${puzzle.frame}` };
      }
      const other = nb >= 0 ? byCell.get(nb) : undefined;
      if (other && placedLabel(puzzle.pieces[other.piece].edges, other.rot, d) !== label) {
        return { hint: h, message: `hint on ${at} does not match the hint on ${triangleCellName(nb)} (line ${other.line ?? 0}) across their ${DIRECTION_NAMES[d]} edge` };
      }
    }
  }
  return null;
}

/** The canonical text of a triangle puzzle; parseTriangle reads it back into an equal puzzle. */
export function writeTriangle(puzzle: TrianglePuzzle): string {
  const out: string[] = [];
  if (puzzle.name) out.push(`# name: ${puzzle.name.replace(/[\r\n]+/g, " ").trim()}`);
  out.push("# triangle puzzle: `triangle N`, then `id H R F` per piece (horizontal, rising, falling); docs/formats.md");
  out.push(`triangle ${puzzle.side}`);
  if (puzzle.rotate) out.push("rotate");
  if (puzzle.frame !== null) out.push(`frame ${puzzle.frame}`);
  for (const p of puzzle.pieces) out.push(`${p.id} ${p.edges.join(" ")}`);
  for (const h of puzzle.hints) out.push(`hint ${rowOfCell(h.cell)} ${posOfCell(h.cell)} ${puzzle.pieces[h.piece].id} ${h.rot}`);
  return out.join("\n") + "\n";
}

/** Board JSON: `board[row][pos] = [id, rot]` (row 0 at the apex, 2*row+1 entries per row), null where empty. */
export function triangleBoardToJSON(board: TriangleBoard, puzzle: TrianglePuzzle): Array<Array<[number, number] | null>> {
  const rows: Array<Array<[number, number] | null>> = [];
  for (let r = 0; r < board.side; r++) {
    const row: Array<[number, number] | null> = [];
    for (let k = 0; k <= 2 * r; k++) {
      const c = board.cells[cellAt(r, k)];
      row.push(c ? [puzzle.pieces[c.piece].id, c.rot] : null);
    }
    rows.push(row);
  }
  return rows;
}

/** Reads board JSON (text, the array, or an object with `board`); throws InvalidPuzzleError naming `file`. */
export function readTriangleBoardJSON(input: unknown, puzzle: TrianglePuzzle, file = "<board>"): TriangleBoard {
  let value = input;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch (err) {
      throw new InvalidPuzzleError(file, 0, `not JSON: ${(err as Error).message}`, { cause: err });
    }
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) value = (value as { board?: unknown }).board;
  const n = puzzle.side;
  if (!Array.isArray(value) || value.length !== n) throw new InvalidPuzzleError(file, 0, `expected a board of ${n} rows (board[row][pos] = [id, rot])`);
  const idIndex = new Map(puzzle.pieces.map((p, i) => [p.id, i]));
  const cells: Array<{ piece: number; rot: number } | null> = new Array(cellCount(n)).fill(null);
  value.forEach((row: unknown, r) => {
    if (!Array.isArray(row) || row.length !== 2 * r + 1) throw new InvalidPuzzleError(file, 0, `row ${r} must have ${2 * r + 1} cells`);
    row.forEach((c: unknown, k) => {
      if (c === null) return;
      if (!Array.isArray(c) || c.length !== 2 || !Number.isInteger(c[0]) || !Number.isInteger(c[1])) {
        throw new InvalidPuzzleError(file, 0, `cell (row ${r}, pos ${k}) must be [id, rot] or null`);
      }
      const piece = idIndex.get(c[0] as number);
      if (piece === undefined) throw new InvalidPuzzleError(file, 0, `cell (row ${r}, pos ${k}) names unknown piece ${String(c[0])}`);
      const rot = c[1] as number;
      if (rot < 0 || rot > 2) throw new InvalidPuzzleError(file, 0, `cell (row ${r}, pos ${k}) has rotation ${rot}, outside 0..2`);
      cells[cellAt(r, k)] = { piece, rot };
    });
  });
  return { side: n, cells };
}
