/**
 * A Sudoku as text for a terminal: the grid with box rules, blanks as `.`, and, with `givens`, the puzzle's givens
 * marked (bold with `color`, else unmarked: the grid alone reads the same as the file format).
 */

import type { Sudoku } from "./sudoku.js";

const CHARS = "123456789ABCDEFGHIJKLMNOP";

/** The grid with `|` between boxes and a rule line between bands. */
export function renderSudoku(grid: Sudoku, options: { givens?: Sudoku; color?: boolean } = {}): string {
  const N = grid.size, n = grid.box;
  const lines: string[] = [];
  const rule = Array.from({ length: n }, () => "-".repeat(2 * n + 1)).join("+").slice(1, -1);
  for (let r = 0; r < N; r++) {
    if (r > 0 && r % n === 0) lines.push(rule);
    const boxes: string[] = [];
    for (let b = 0; b < n; b++) {
      const cells: string[] = [];
      for (let c = b * n; c < (b + 1) * n; c++) {
        const d = grid.cells[r * N + c];
        const ch = d === 0 ? "." : CHARS[d - 1];
        const given = options.givens !== undefined && options.givens.cells[r * N + c] !== 0;
        cells.push(given && options.color ? `\x1b[1m${ch}\x1b[0m` : ch);
      }
      boxes.push(cells.join(" "));
    }
    lines.push(boxes.join(" | "));
  }
  return lines.join("\n") + "\n";
}
