/**
 * Board geometry shared by the Heule encodings (Heule 2008, sections 3.1-3.2): cell and piece classes,
 * diamonds and colour classes.
 *
 * - Bounded puzzles (some grey): cells and pieces are corner, border or centre; a piece only goes on a cell
 *   of its own class. Unbounded puzzles (no grey): every piece and every cell is centre.
 * - A diamond is an inner edge between two cells (the paper's d_k). A diamond is a border diamond when it
 *   runs between two rim cells along the rim (its colour is next to a grey side of both pieces), otherwise a
 *   centre diamond. Diamonds are numbered as in the paper's Figure 2: row by row, first the edges between
 *   horizontal neighbours of the row, then the edges down to the next row.
 * - Unbounded puzzles also get one rim diamond per outer side (after the inner ones): a diamond of one cell
 *   only, free apart from its exactly-one-colour clauses. It lets every cell have four diamonds, so the
 *   centre-piece rotation clauses of section 4.2 apply unchanged (the rim colour is existentially free).
 * - Colour classes (C_border, C_center): a colour on a piece side next to a grey side is a border colour,
 *   any other non-grey side colour a centre colour (a colour may be in both). Border diamonds range over
 *   C_border, centre and rim diamonds over C_center.
 */

import { InvalidPuzzleError } from "../errors.js";
import {
  isBounded,
  maxColour,
  pieceKind,
  rimSides,
  rotatedEdge,
  type Puzzle,
} from "../puzzle.js";

export const CORNER = 0;
export const BORDER = 1;
export const CENTER = 2;
/** Diamond classes. */
export const DIA_BORDER = 0;
export const DIA_CENTER = 1;

const CLASS_NAMES = ["corner", "border", "centre"] as const;

/** The geometry and classes of one puzzle. Arrays are indexed by cell, piece or diamond id. */
export interface EncodingLayout {
  readonly puzzle: Puzzle;
  readonly rows: number;
  readonly cols: number;
  readonly cells: number;
  readonly bounded: boolean;
  /** CORNER / BORDER / CENTER per cell. */
  readonly cellClass: Uint8Array;
  /** CORNER / BORDER / CENTER per piece. */
  readonly pieceClass: Uint8Array;
  /** Cells of each class in the paper's order (corners TL, TR, BL, BR; border top, left, right, bottom; centre row-major). */
  readonly classCells: readonly (readonly number[])[];
  /** Pieces of each class, ascending. */
  readonly classPieces: readonly (readonly number[])[];
  /** Number of diamonds (inner ones first, then rim diamonds of unbounded puzzles). */
  readonly diamonds: number;
  /** Inner diamonds (the rest are rim diamonds). */
  readonly innerDiamonds: number;
  /** DIA_BORDER / DIA_CENTER per diamond. */
  readonly diaClass: Uint8Array;
  /** The two cells of each diamond: [2k] west/north cell, [2k+1] east/south cell or -1 for a rim diamond. */
  readonly diaCells: Int32Array;
  /** Diamond on side d of cell c at [4c+d], -1 where there is none (the rim of a bounded puzzle). */
  readonly cellDia: Int32Array;
  /** Colours of each diamond class, ascending: [DIA_BORDER], [DIA_CENTER]. */
  readonly classColours: readonly (readonly number[])[];
  /** Index of colour c within diamond class k at [k][c], -1 when c is not in the class. */
  readonly colourIndex: readonly Int32Array[];
  /**
   * For a corner/border piece on a cell of its class: the one rotation that puts its grey sides on the
   * cell's rim; -1 for other combinations.
   */
  rimRotation(piece: number, cell: number): number;
}

function err(puzzle: Puzzle, reason: string): InvalidPuzzleError {
  return new InvalidPuzzleError(puzzle.name ?? "<puzzle>", 0, reason);
}

/** The paper's order of the cells of each class. */
function paperClassCells(rows: number, cols: number, bounded: boolean): number[][] {
  const at = (r: number, c: number): number => r * cols + c;
  if (!bounded) return [[], [], Array.from({ length: rows * cols }, (_, i) => i)];
  const corner = [at(0, 0), at(0, cols - 1), at(rows - 1, 0), at(rows - 1, cols - 1)];
  const border: number[] = [];
  for (let c = 1; c < cols - 1; c++) border.push(at(0, c));
  for (let r = 1; r < rows - 1; r++) border.push(at(r, 0));
  for (let r = 1; r < rows - 1; r++) border.push(at(r, cols - 1));
  for (let c = 1; c < cols - 1; c++) border.push(at(rows - 1, c));
  const center: number[] = [];
  for (let r = 1; r < rows - 1; r++) for (let c = 1; c < cols - 1; c++) center.push(at(r, c));
  return [corner, border, center];
}

/** Builds the layout; throws InvalidPuzzleError when the pieces do not fit the board's classes. */
export function buildLayout(puzzle: Puzzle): EncodingLayout {
  const { rows, cols } = puzzle;
  const cells = rows * cols;
  if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 2 || cols < 2) {
    throw err(puzzle, `the board must be at least 2x2, got ${rows}x${cols}`);
  }
  if (puzzle.pieces.length !== cells) {
    throw err(puzzle, `${puzzle.pieces.length} pieces for ${cells} cells`);
  }
  const bounded = isBounded(puzzle);
  const kindCode = { corner: CORNER, border: BORDER, center: CENTER } as const;

  const classCells = paperClassCells(rows, cols, bounded);
  const cellClass = new Uint8Array(cells);
  classCells.forEach((list, k) => { for (const c of list) cellClass[c] = k; });
  const pieceClass = new Uint8Array(cells);
  const classPieces: number[][] = [[], [], []];
  puzzle.pieces.forEach((p, i) => {
    const k = bounded ? kindCode[pieceKind(p)] : CENTER;
    pieceClass[i] = k;
    classPieces[k].push(i);
  });
  for (let k = 0; k < 3; k++) {
    if (classPieces[k].length !== classCells[k].length) {
      throw err(puzzle, `${classPieces[k].length} ${CLASS_NAMES[k]} pieces for ${classCells[k].length} ${CLASS_NAMES[k]} cells`);
    }
  }

  // The rim rotation of every corner/border piece for every rim shape of its class's cells (4 bits: N E S W).
  const rimMask = new Uint8Array(cells);
  for (let c = 0; c < cells; c++) {
    const rim = rimSides(puzzle, c);
    rimMask[c] = (rim[0] ? 1 : 0) | (rim[1] ? 2 : 0) | (rim[2] ? 4 : 0) | (rim[3] ? 8 : 0);
  }
  const rimRot = new Int8Array(cells * 16).fill(-1);
  for (const k of bounded ? [CORNER, BORDER] : []) {
    for (const p of classPieces[k]) {
      const edges = puzzle.pieces[p].edges;
      for (const cell of classCells[k]) {
        const mask = rimMask[cell];
        if (rimRot[p * 16 + mask] >= 0) continue;
        for (let r = 0; r < 4 && rimRot[p * 16 + mask] < 0; r++) {
          let ok = true;
          for (let d = 0; d < 4 && ok; d++) ok = (rotatedEdge(edges, r, d) === 0) === ((mask >> d & 1) === 1);
          if (ok) rimRot[p * 16 + mask] = r;
        }
        if (rimRot[p * 16 + mask] < 0) {
          throw err(puzzle, `${CLASS_NAMES[k]} piece ${puzzle.pieces[p].id} fits no rotation of ${CLASS_NAMES[k]} cell (${Math.floor(cell / cols)},${cell % cols}): its grey sides cannot face exactly the rim`);
        }
      }
    }
  }

  // Diamonds in the paper's order, then rim diamonds (unbounded only).
  const diaCellsList: number[] = [];
  const diaClassList: number[] = [];
  const cellDia = new Int32Array(cells * 4).fill(-1);
  const addDia = (a: number, sideA: number, b: number, sideB: number, klass: number): void => {
    const id = diaClassList.length;
    diaCellsList.push(a, b);
    diaClassList.push(klass);
    cellDia[a * 4 + sideA] = id;
    if (b >= 0) cellDia[b * 4 + sideB] = id;
  };
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      const along = bounded && (r === 0 || r === rows - 1);
      addDia(r * cols + c, 1, r * cols + c + 1, 3, along ? DIA_BORDER : DIA_CENTER);
    }
    if (r + 1 < rows) {
      for (let c = 0; c < cols; c++) {
        const along = bounded && (c === 0 || c === cols - 1);
        addDia(r * cols + c, 2, (r + 1) * cols + c, 0, along ? DIA_BORDER : DIA_CENTER);
      }
    }
  }
  const innerDiamonds = diaClassList.length;
  if (!bounded) {
    for (let cell = 0; cell < cells; cell++) {
      for (let d = 0; d < 4; d++) if (cellDia[cell * 4 + d] < 0) addDia(cell, d, -1, 0, DIA_CENTER);
    }
  }

  // Colour classes from the pieces: next to a grey side = border colour.
  const maxC = maxColour(puzzle);
  const inClass = [new Uint8Array(maxC + 1), new Uint8Array(maxC + 1)];
  for (const p of puzzle.pieces) {
    const e = p.edges;
    for (let d = 0; d < 4; d++) {
      if (e[d] === 0) continue;
      const nextToGrey = e[(d + 1) & 3] === 0 || e[(d + 3) & 3] === 0;
      inClass[nextToGrey ? DIA_BORDER : DIA_CENTER][e[d]] = 1;
    }
  }
  const classColours: number[][] = [[], []];
  const colourIndex = [new Int32Array(maxC + 1).fill(-1), new Int32Array(maxC + 1).fill(-1)];
  for (let k = 0; k < 2; k++) {
    for (let c = 1; c <= maxC; c++) {
      if (inClass[k][c]) {
        colourIndex[k][c] = classColours[k].length;
        classColours[k].push(c);
      }
    }
  }

  return {
    puzzle,
    rows,
    cols,
    cells,
    bounded,
    cellClass,
    pieceClass,
    classCells,
    classPieces,
    diamonds: diaClassList.length,
    innerDiamonds,
    diaClass: Uint8Array.from(diaClassList),
    diaCells: Int32Array.from(diaCellsList),
    cellDia,
    classColours,
    colourIndex,
    rimRotation(piece: number, cell: number): number {
      return rimRot[piece * 16 + rimMask[cell]];
    },
  };
}
