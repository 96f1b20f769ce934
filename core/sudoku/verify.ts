/**
 * The Sudoku verifier, apart from the encoding: a grid solves a puzzle when it is the puzzle's size, every cell holds
 * a digit, every row, column and box holds each digit once, and every given is kept. Its own loops over rows,
 * columns and boxes (it shares no code with core/sudoku/encode.ts).
 */

import type { Sudoku } from "./sudoku.js";

/** The verdict, with every violation in words (1-based rows and columns). */
export type SudokuCheck = { ok: true } | { ok: false; violations: string[] };

/** Checks that `grid` solves `puzzle` (see the module note). */
export function verifySudoku(puzzle: Sudoku, grid: Sudoku): SudokuCheck {
  const N = puzzle.size;
  if (grid.size !== N) return { ok: false, violations: [`the grid is ${grid.size}x${grid.size}, the puzzle ${N}x${N}`] };
  const v: string[] = [];
  const at = (r: number, c: number): number => grid.cells[r * N + c];
  for (let r = 0; r < N; r++) {
    for (let c = 0; c < N; c++) {
      const d = at(r, c);
      if (!(d >= 1 && d <= N)) v.push(`row ${r + 1}, column ${c + 1} is blank`);
      const given = puzzle.cells[r * N + c];
      if (given !== 0 && d !== given) v.push(`row ${r + 1}, column ${c + 1} holds ${d}, the puzzle gives ${given}`);
    }
  }
  const n = puzzle.box;
  const groups: [string, (i: number, k: number) => number][] = [
    ["row", (i, k) => at(i, k)],
    ["column", (i, k) => at(k, i)],
    ["box", (i, k) => at(Math.floor(i / n) * n + Math.floor(k / n), (i % n) * n + (k % n))],
  ];
  for (const [what, cell] of groups) {
    for (let i = 0; i < N; i++) {
      const seen = new Set<number>();
      for (let k = 0; k < N; k++) {
        const d = cell(i, k);
        if (d >= 1 && d <= N && seen.has(d)) v.push(`${what} ${i + 1} holds ${d} twice`);
        seen.add(d);
      }
    }
  }
  return v.length === 0 ? { ok: true } : { ok: false, violations: v };
}
