/**
 * Puzzle validation: the single place that decides whether a Puzzle is acceptable.
 *
 * Every reader calls `validatePuzzle` with the source line of each piece and hint, so a rejection names
 * `file:line` (line 0 when the problem is the whole file, such as a piece count). Puzzles built in code
 * can be validated the same way without lines.
 *
 * Rules: rows and cols in 2..64; rows*cols pieces; colours integers in 0..1000; unique piece ids.
 * A puzzle with no grey (0) at all is unbounded and needs nothing more. A puzzle with some grey is bounded:
 * no piece has 3+ grey sides or grey on opposite sides, there are exactly 4 corner pieces and
 * 2(rows-2)+2(cols-2) border pieces. Hints must be on the board, name a known piece, use each piece and
 * each cell at most once, fit the rim (bounded), and agree with adjacent hints.
 *
 * A colour that occurs an odd number of times makes the puzzle unsolvable but not invalid: see
 * `colourParityProblems`, meant for a warning.
 */

import { InvalidPuzzleError } from "./errors.js";
import {
  cellKind,
  isBounded,
  countPieceKinds,
  pieceKind,
  rimSides,
  rotatedEdge,
  type Hint,
  type Piece,
  type Puzzle,
} from "./puzzle.js";

/** Largest accepted number of rows or columns. */
export const MAX_SIDE = 64;
/** Largest accepted colour number. */
export const MAX_COLOUR = 1000;

const SIDE_NAMES = ["N", "E", "S", "W"] as const;

/** Where the parts of a puzzle came from, for error messages. Lines are 1-based; 0 or absent = unknown. */
export interface SourceLines {
  /** Line of the size header (absent when the size is inferred). */
  readonly header?: number;
  /** `pieces[i]` = line of piece i. */
  readonly pieces?: readonly number[];
  /** `hints[i]` = line of hint i. */
  readonly hints?: readonly number[];
  /** Base of row/col numbers in hint messages: 1 for formats that count from 1 (Heule, E2 hints). @default 0 */
  readonly cellBase?: 0 | 1;
}

/** Checks the board size. */
export function checkSize(rows: number, cols: number, file: string, line = 0): void {
  for (const [what, n] of [["rows", rows], ["cols", cols]] as const) {
    if (!Number.isInteger(n)) throw new InvalidPuzzleError(file, line, `${what} ${n} is not an integer`);
    if (n < 2) throw new InvalidPuzzleError(file, line, `${what} must be at least 2, got ${n}`);
    if (n > MAX_SIDE) throw new InvalidPuzzleError(file, line, `${what} ${n} exceeds the limit of ${MAX_SIDE}`);
  }
}

/**
 * Checks one piece on its own: four integer colours in 0..MAX_COLOUR, at most two grey sides, and
 * never grey on opposite sides.
 */
export function checkPiece(piece: Piece, file: string, line = 0): void {
  const label = `piece ${piece.id}`;
  if (piece.edges.length !== 4) {
    throw new InvalidPuzzleError(file, line, `${label} has ${piece.edges.length} colours, expected 4 (N E S W)`);
  }
  for (const c of piece.edges) {
    if (!Number.isInteger(c)) throw new InvalidPuzzleError(file, line, `${label} has colour ${c}, which is not an integer`);
    if (c < 0) throw new InvalidPuzzleError(file, line, `${label} has negative colour ${c}`);
    if (c > MAX_COLOUR) {
      throw new InvalidPuzzleError(file, line, `${label} has colour ${c}, above the limit of ${MAX_COLOUR}`);
    }
  }
  const greys = piece.edges.filter((c) => c === 0).length;
  if (greys >= 3) throw new InvalidPuzzleError(file, line, `${label} has ${greys} grey sides (at most 2 are allowed)`);
  if (piece.edges[0] === 0 && piece.edges[2] === 0) {
    throw new InvalidPuzzleError(file, line, `${label} has grey on opposite sides (N and S)`);
  }
  if (piece.edges[1] === 0 && piece.edges[3] === 0) {
    throw new InvalidPuzzleError(file, line, `${label} has grey on opposite sides (E and W)`);
  }
}

/** Number of border (one grey side) cells of a bounded rows x cols board. */
export function borderCellCount(rows: number, cols: number): number {
  return 2 * (rows - 2) + 2 * (cols - 2);
}

/** Throws InvalidPuzzleError (file:line, reason) unless the puzzle is valid. */
export function validatePuzzle(puzzle: Puzzle, file = "<puzzle>", lines: SourceLines = {}): void {
  const { rows, cols, pieces } = puzzle;
  checkSize(rows, cols, file, lines.header ?? 0);
  const pieceLine = (i: number): number => lines.pieces?.[i] ?? 0;

  const seen = new Map<number, number>();
  pieces.forEach((p, i) => {
    if (!Number.isSafeInteger(p.id) || p.id < 0) {
      throw new InvalidPuzzleError(file, pieceLine(i), `piece id ${p.id} is not a non-negative integer`);
    }
    const first = seen.get(p.id);
    if (first !== undefined) {
      const where = pieceLine(first) > 0 ? ` (first on line ${pieceLine(first)})` : "";
      throw new InvalidPuzzleError(file, pieceLine(i), `duplicate piece id ${p.id}${where}`);
    }
    seen.set(p.id, i);
    checkPiece(p, file, pieceLine(i));
  });

  const cells = rows * cols;
  if (pieces.length !== cells) {
    throw new InvalidPuzzleError(
      file, 0, `${pieces.length} pieces do not fit a ${rows}x${cols} board, which needs ${cells}`,
    );
  }
  if (isBounded(puzzle)) {
    const { corners, borders } = countPieceKinds(pieces);
    if (corners !== 4) {
      throw new InvalidPuzzleError(
        file, 0, `found ${corners} corner pieces (2 grey sides), a bounded board needs exactly 4`,
      );
    }
    const want = borderCellCount(rows, cols);
    if (borders !== want) {
      throw new InvalidPuzzleError(
        file, 0, `found ${borders} border pieces (1 grey side), a bounded ${rows}x${cols} board needs ${want}`,
      );
    }
  }
  validateHints(puzzle, file, lines);
}

/**
 * Checks the hints of a puzzle whose size and pieces are already valid. Exposed for readers of separate
 * hint files (E2), which pass the hint lines of that file.
 */
export function validateHints(puzzle: Puzzle, file = "<puzzle>", lines: SourceLines = {}): void {
  const { rows, cols, pieces, hints } = puzzle;
  const base = lines.cellBase ?? 0;
  const hintLine = (i: number): number => lines.hints?.[i] ?? 0;
  const at = (r: number, c: number): string => `(row ${r + base}, col ${c + base})`;
  const also = (j: number): string => (hintLine(j) > 0 ? ` (also line ${hintLine(j)})` : "");
  const bounded = isBounded(puzzle);
  const byCell = new Map<number, number>();
  const byPiece = new Map<number, number>();

  hints.forEach((h, i) => {
    const line = hintLine(i);
    if (!Number.isInteger(h.row) || !Number.isInteger(h.col) || h.row < 0 || h.col < 0 || h.row >= rows || h.col >= cols) {
      throw new InvalidPuzzleError(file, line, `hint at ${at(h.row, h.col)} is off the ${rows}x${cols} board`);
    }
    if (!Number.isInteger(h.piece) || h.piece < 0 || h.piece >= pieces.length) {
      throw new InvalidPuzzleError(file, line, `hint at ${at(h.row, h.col)} names an unknown piece (index ${h.piece})`);
    }
    const piece = pieces[h.piece];
    if (!Number.isInteger(h.rot) || h.rot < 0 || h.rot > 3) {
      throw new InvalidPuzzleError(file, line, `hint for piece ${piece.id} has rotation ${h.rot}, expected 0..3`);
    }
    const cell = h.row * cols + h.col;
    const onCell = byCell.get(cell);
    if (onCell !== undefined) {
      throw new InvalidPuzzleError(file, line, `two hints on cell ${at(h.row, h.col)}${also(onCell)}`);
    }
    const samePiece = byPiece.get(h.piece);
    if (samePiece !== undefined) {
      throw new InvalidPuzzleError(file, line, `piece ${piece.id} is used by two hints${also(samePiece)}`);
    }
    byCell.set(cell, i);
    byPiece.set(h.piece, i);
    if (bounded) checkHintFitsRim(puzzle, h, piece, file, line, at(h.row, h.col));
  });

  // Adjacent hints must agree on the edge they share; report at the later of the two.
  hints.forEach((h, i) => {
    const cell = h.row * cols + h.col;
    const pairs: Array<[number, number, number]> = [];
    if (h.col + 1 < cols) pairs.push([cell + 1, 1, 3]);
    if (h.row + 1 < rows) pairs.push([cell + cols, 2, 0]);
    for (const [other, mySide, theirSide] of pairs) {
      const j = byCell.get(other);
      if (j === undefined) continue;
      const g = hints[j];
      const mine = rotatedEdge(pieces[h.piece].edges, h.rot, mySide);
      const theirs = rotatedEdge(pieces[g.piece].edges, g.rot, theirSide);
      if (mine !== theirs) {
        const later = Math.max(i, j);
        throw new InvalidPuzzleError(
          file,
          hintLine(later),
          `hints at ${at(h.row, h.col)} and ${at(g.row, g.col)} contradict: ` +
            `piece ${pieces[h.piece].id} shows ${mine} on ${SIDE_NAMES[mySide]}, ` +
            `piece ${pieces[g.piece].id} shows ${theirs} on ${SIDE_NAMES[theirSide]}`,
        );
      }
    }
  });
}

function checkHintFitsRim(puzzle: Puzzle, h: Hint, piece: Piece, file: string, line: number, where: string): void {
  const cell = h.row * puzzle.cols + h.col;
  const want = cellKind(puzzle, cell);
  const kind = pieceKind(piece);
  if (kind !== want) {
    throw new InvalidPuzzleError(file, line, `hint puts ${kind} piece ${piece.id} on ${want} cell ${where}`);
  }
  const rim = rimSides(puzzle, cell);
  for (let d = 0; d < 4; d++) {
    const c = rotatedEdge(piece.edges, h.rot, d);
    if (rim[d] && c !== 0) {
      throw new InvalidPuzzleError(
        file,
        line,
        `hint rotation ${h.rot} of piece ${piece.id} at ${where} puts non-grey colour ${c} on the rim (${SIDE_NAMES[d]})`,
      );
    }
    if (!rim[d] && c === 0) {
      throw new InvalidPuzzleError(
        file, line, `hint rotation ${h.rot} of piece ${piece.id} at ${where} puts grey off the rim (${SIDE_NAMES[d]})`,
      );
    }
  }
}

/** A colour whose half-edges cannot all be paired: it occurs an odd number of times. */
export interface ColourParityProblem {
  readonly colour: number;
  /** Number of piece sides with this colour. */
  readonly count: number;
}

/**
 * Colours (other than grey) that occur an odd number of times over all piece sides. Each inner edge of
 * a solved board joins two sides of the same colour, so any such colour makes the puzzle unsolvable
 * (for unbounded puzzles the rim sides are free, so this is only reported for bounded puzzles).
 */
export function colourParityProblems(puzzle: Pick<Puzzle, "pieces">): ColourParityProblem[] {
  if (!isBounded(puzzle)) return [];
  const counts = new Map<number, number>();
  for (const p of puzzle.pieces) for (const c of p.edges) if (c !== 0) counts.set(c, (counts.get(c) ?? 0) + 1);
  return [...counts.entries()]
    .filter(([, n]) => n % 2 === 1)
    .sort((a, b) => a[0] - b[0])
    .map(([colour, count]) => ({ colour, count }));
}
