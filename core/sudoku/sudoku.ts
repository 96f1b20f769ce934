/**
 * A Sudoku: an N x N grid (N = n^2 for a box side n: 4x4, 9x9, 16x16, 25x25) of cells, each blank (0) or a digit
 * 1..N; rows, columns and the n x n boxes must each hold every digit once. A Sudoku is both a puzzle (the givens)
 * and, when full, a solution; cells[r * N + c] is the cell of row r, column c, both 0-based.
 */

/** The box sides taken: 4x4 to 25x25 boards. */
export const MIN_BOX = 2;
export const MAX_BOX = 5;

export interface Sudoku {
  /** The side of a box (n); the board is n^2 x n^2. */
  readonly box: number;
  /** N = box^2: rows, columns and digits. */
  readonly size: number;
  /** N*N cells in row-major order; 0 for a blank. */
  readonly cells: readonly number[];
  readonly name?: string;
}

/** The box (0-based, row-major) of a cell. */
export function boxOf(s: Pick<Sudoku, "box">, row: number, col: number): number {
  return Math.floor(row / s.box) * s.box + Math.floor(col / s.box);
}

/** The number of givens (non-blank cells). */
export function givenCount(s: Sudoku): number {
  return s.cells.filter((d) => d !== 0).length;
}
