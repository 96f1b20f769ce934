/**
 * The classic Sudoku encoding: one variable per (row, column, digit), true when the cell holds the digit:
 * x(r, c, d) = (r * N + c) * N + d (d in 1..N). The clauses:
 *
 *   cell    at least one digit per cell, and at most one (pairwise)
 *   units   each digit at most once per row, column and box (pairwise)
 *   givens  a unit clause per given
 *
 * With `redundant`, each digit also at least once per row, column and box: implied by the rest, and the usual
 * help to a solver's propagation. The decoder reads the digit of each cell from a model; whether the grid is a
 * solution is the verifier's (core/sudoku/verify.ts) to say, not the decoder's.
 */

import { ClauseBuffer } from "../encode/formula.js";
import type { Cnf } from "../cnf/cnf.js";
import type { Sudoku } from "./sudoku.js";

/** Options of the encoding. */
export interface SudokuEncodeOptions {
  /** Add the at-least-once clauses per row, column and box. @default false */
  readonly redundant?: boolean;
}

/** The variable of digit d (1..N) in cell (r, c). */
export function cellVar(size: number, r: number, c: number, d: number): number {
  return (r * size + c) * size + d;
}

/** The units of the board (rows, columns, boxes), each a list of cell indices. */
export function unitsOf(s: Pick<Sudoku, "box" | "size">): number[][] {
  const N = s.size, n = s.box;
  const units: number[][] = [];
  for (let i = 0; i < N; i++) {
    units.push(Array.from({ length: N }, (_, k) => i * N + k));
    units.push(Array.from({ length: N }, (_, k) => k * N + i));
    const r0 = Math.floor(i / n) * n, c0 = (i % n) * n;
    units.push(Array.from({ length: N }, (_, k) => (r0 + Math.floor(k / n)) * N + c0 + (k % n)));
  }
  return units;
}

/** The formula of a Sudoku (see the module note). */
export function encodeSudoku(s: Sudoku, options: SudokuEncodeOptions = {}): Cnf {
  const N = s.size;
  const x = (cell: number, d: number): number => cell * N + d;
  const clauses = new ClauseBuffer();
  for (let cell = 0; cell < N * N; cell++) {
    clauses.add(Array.from({ length: N }, (_, k) => x(cell, k + 1)));
    for (let d = 1; d <= N; d++) for (let e = d + 1; e <= N; e++) clauses.add2(-x(cell, d), -x(cell, e));
  }
  for (const unit of unitsOf(s)) {
    for (let d = 1; d <= N; d++) {
      for (let i = 0; i < N; i++) for (let j = i + 1; j < N; j++) clauses.add2(-x(unit[i], d), -x(unit[j], d));
      if (options.redundant) clauses.add(unit.map((cell) => x(cell, d)));
    }
  }
  s.cells.forEach((d, cell) => {
    if (d !== 0) clauses.add1(x(cell, d));
  });
  return { numVars: N * N * N, clauses };
}

/** The grid a model describes: each cell's first true digit, 0 where none is true. */
export function decodeSudoku(s: Sudoku, model: Uint8Array): Sudoku {
  const N = s.size;
  const cells = Array.from({ length: N * N }, (_, cell) => {
    for (let d = 1; d <= N; d++) if (model[cell * N + d] === 1) return d;
    return 0;
  });
  return { ...s, cells };
}

/** The clause that excludes `solution` (its digits on the puzzle's blank cells): for counting solutions. */
export function blockingClause(puzzle: Sudoku, solution: Sudoku): number[] {
  const N = puzzle.size;
  const out: number[] = [];
  puzzle.cells.forEach((given, cell) => {
    if (given === 0) out.push(-(cell * N + solution.cells[cell]));
  });
  return out;
}
