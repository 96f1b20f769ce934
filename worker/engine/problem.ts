/**
 * The native engine's input (docs/engine.md "Input"): the puzzle's pieces in index order and the fixed
 * placements (the hints plus a cube's placements). Pure text building; the engine re-checks every number.
 */

import type { Placement, Puzzle } from "../../core/puzzle.js";

/**
 * The problem text for `cubist-engine`: header, size, one `N E S W` line per piece, the fixed placements (hints
 * first, then `fixed`; a placement given twice is kept once). Null when the placements contradict each other (a
 * cell given two placements, a piece placed twice, a cell or piece out of range): such a cube has no solution.
 */
export function engineProblem(puzzle: Puzzle, fixed: readonly Placement[]): string | null {
  const lines: string[] = ["cubist-engine 1", `${puzzle.rows} ${puzzle.cols}`];
  for (const p of puzzle.pieces) lines.push(p.edges.join(" "));
  const cells = puzzle.rows * puzzle.cols;
  const byCell = new Map<number, Placement>();
  const pieces = new Set<number>();
  const hints = puzzle.hints.map((h) => ({ cell: h.row * puzzle.cols + h.col, piece: h.piece, rot: h.rot }));
  for (const f of [...hints, ...fixed]) {
    if (!(Number.isInteger(f.cell) && f.cell >= 0 && f.cell < cells && Number.isInteger(f.piece) && f.piece >= 0 &&
        f.piece < puzzle.pieces.length && Number.isInteger(f.rot) && f.rot >= 0 && f.rot <= 3)) return null;
    const had = byCell.get(f.cell);
    if (had) {
      if (had.piece !== f.piece || had.rot !== f.rot) return null;
      continue;
    }
    if (pieces.has(f.piece)) return null;
    pieces.add(f.piece);
    byCell.set(f.cell, f);
  }
  lines.push(String(byCell.size));
  for (const f of byCell.values()) lines.push(`${f.cell} ${f.piece} ${f.rot}`);
  return lines.join("\n") + "\n";
}
