/**
 * Eternity II extras: the hint file (e2_hints.txt) and the reference boards (e2_reference_boards.txt).
 * The pieces themselves (e2_pieces.txt) are a canonical file with the official ids 1..256.
 *
 * Hint lines: `piece square row col cell rot N E S W [# note]`: official piece id, square name (row letter
 * A.. from the top + column number, e.g. I8), row/col 1-based from the top-left, cell = 0-based row-major
 * index, rot = clockwise quarter turns from the listed orientation, then the placed colours. The redundant
 * fields are cross-checked.
 *
 * Reference boards: a header line `## name score=S/T ...`, then `rows` lines of `cols` cells `piece/rot`
 * (official ids, rot as above), rows top to bottom.
 */

import { excerpt, InvalidPuzzleError } from "../errors.js";
import { rotatedEdge, type Board, type Hint, type Puzzle } from "../puzzle.js";
import { validateHints, validatePuzzle } from "../validate.js";
import { parseIntField, splitLines, textLines } from "./text.js";

function indexOfIds(puzzle: Puzzle): Map<number, number> {
  const m = new Map<number, number>();
  puzzle.pieces.forEach((p, i) => m.set(p.id, i));
  return m;
}

const FIELDS = ["piece", "square", "row", "col", "cell", "rot", "N", "E", "S", "W"];

/**
 * Reads an E2 hint file for `puzzle` (read from e2_pieces.txt). Returns hints with 0-based row/col and
 * piece indices; they are validated against the puzzle (rim, contradictions) with this file's lines.
 */
export function parseE2Hints(text: string, file: string, puzzle: Puzzle): Hint[] {
  const ids = indexOfIds(puzzle);
  const hints: Hint[] = [];
  const lines: number[] = [];
  for (const d of splitLines(text, file).data) {
    if (d.fields.length !== FIELDS.length) {
      throw new InvalidPuzzleError(
        file, d.line, `expected \`${FIELDS.join(" ")}\` (${FIELDS.length} fields), found ${d.fields.length}`,
      );
    }
    const num = (k: number): number => parseIntField(d.fields[k], file, d.line, FIELDS[k]);
    const id = num(0), row = num(2), col = num(3), cell = num(4), rot = num(5);
    const piece = ids.get(id);
    if (piece === undefined) throw new InvalidPuzzleError(file, d.line, `hint names unknown piece ${id}`);
    if (row < 1 || row > puzzle.rows || col < 1 || col > puzzle.cols) {
      throw new InvalidPuzzleError(
        file, d.line, `hint at (row ${row}, col ${col}) is off the ${puzzle.rows}x${puzzle.cols} board (1-based)`,
      );
    }
    const square = `${String.fromCharCode(64 + row)}${col}`;
    if (d.fields[1].toUpperCase() !== square) {
      throw new InvalidPuzzleError(file, d.line, `square ${excerpt(d.fields[1])} does not match row ${row}, col ${col} (${square})`);
    }
    const expectedCell = (row - 1) * puzzle.cols + (col - 1);
    if (cell !== expectedCell) {
      throw new InvalidPuzzleError(file, d.line, `cell ${cell} does not match row ${row}, col ${col} (${expectedCell})`);
    }
    if (rot < 0 || rot > 3) throw new InvalidPuzzleError(file, d.line, `hint rotation ${rot} is not in 0..3`);
    for (let s = 0; s < 4; s++) {
      const given = num(6 + s);
      const placed = rotatedEdge(puzzle.pieces[piece].edges, rot, s);
      if (given !== placed) {
        throw new InvalidPuzzleError(
          file, d.line, `placed ${FIELDS[6 + s]} colour ${given} does not match piece ${id} at rotation ${rot} (${placed})`,
        );
      }
    }
    hints.push({ row: row - 1, col: col - 1, piece, rot });
    lines.push(d.line);
  }
  const offset = puzzle.hints.length;
  validateHints(
    { ...puzzle, hints: [...puzzle.hints, ...hints] },
    file,
    { hints: [...new Array<number>(offset).fill(0), ...lines], cellBase: 1 },
  );
  return hints;
}

/** The puzzle with `hints` added to its own; validated (file label `file`, line 0). */
export function withHints(puzzle: Puzzle, hints: readonly Hint[], file = "<hints>"): Puzzle {
  const result: Puzzle = { ...puzzle, hints: [...puzzle.hints, ...hints] };
  validatePuzzle(result, file);
  return result;
}

/** A board from a reference file, with its name and stated score. */
export interface NamedBoard {
  readonly name: string;
  /** The `score=S/T` value S from the header, if present. */
  readonly score?: number;
  readonly board: Board;
}

/** Reads reference boards (`## name ...` then rows of `piece/rot`) in the ids of `puzzle`. */
export function readReferenceBoards(text: string, file: string, puzzle: Puzzle): NamedBoard[] {
  // First group the lines by board header, then read each board.
  const blocks: Array<{ header: string; line: number; rows: Array<{ line: number; cells: string[] }> }> = [];
  for (const { line, text: raw } of textLines(text)) {
    const s = raw.trim();
    if (s.startsWith("##")) {
      blocks.push({ header: s.slice(2).trim(), line, rows: [] });
      continue;
    }
    const body = s.replace(/#.*$/, "").trim();
    if (body === "") continue;
    const block = blocks[blocks.length - 1];
    if (block === undefined) throw new InvalidPuzzleError(file, line, "board row before any `## name` header");
    block.rows.push({ line, cells: body.split(/\s+/) });
  }
  return blocks.map((b) => readReferenceBoard(b, file, puzzle, indexOfIds(puzzle)));
}

function readReferenceBoard(
  block: { header: string; line: number; rows: Array<{ line: number; cells: string[] }> },
  file: string,
  puzzle: Puzzle,
  ids: Map<number, number>,
): NamedBoard {
  const words = block.header.split(/\s+/);
  const name = words[0];
  if (name === "") throw new InvalidPuzzleError(file, block.line, "board header has no name");
  if (block.rows.length !== puzzle.rows) {
    throw new InvalidPuzzleError(file, block.line, `board ${name} has ${block.rows.length} rows, expected ${puzzle.rows}`);
  }
  const cells: Array<{ piece: number; rot: number } | null> = [];
  const used = new Map<number, number>();
  for (const { line, cells: row } of block.rows) {
    if (row.length !== puzzle.cols) {
      throw new InvalidPuzzleError(file, line, `board row has ${row.length} cells, expected ${puzzle.cols}`);
    }
    for (const c of row) {
      const m = /^(\d+)\/(\d+)$/.exec(c);
      if (!m) throw new InvalidPuzzleError(file, line, `cell '${excerpt(c)}' is not \`piece/rot\``);
      const id = Number(m[1]), rot = Number(m[2]);
      const piece = ids.get(id);
      if (piece === undefined) throw new InvalidPuzzleError(file, line, `cell '${excerpt(c)}' names unknown piece ${id}`);
      if (rot > 3) throw new InvalidPuzzleError(file, line, `cell '${excerpt(c)}' has rotation ${rot}, expected 0..3`);
      const prev = used.get(piece);
      if (prev !== undefined) {
        throw new InvalidPuzzleError(file, line, `piece ${id} is used twice on board ${name} (also line ${prev})`);
      }
      used.set(piece, line);
      cells.push({ piece, rot });
    }
  }
  const board: Board = { rows: puzzle.rows, cols: puzzle.cols, cells };
  const score = /^score=(\d+)/.exec(words.find((w) => w.startsWith("score=")) ?? "");
  return score ? { name, score: Number(score[1]), board } : { name, board };
}
