/**
 * The expected number of solutions of a random puzzle with this piece set (a first-moment estimate, as used to
 * design Eternity II-like sets): the arrangements of the pieces (corners and border pieces keep their rotation,
 * inner pieces take any of 4) times the chance that every join matches, each join matching with probability
 * sum_c f_c^2 over the colour frequencies f_c of its kind (frame joins between rim pieces, inner joins elsewhere).
 *
 * Near 1 (log10 below a few) the board is near-unique: a complete systematic search is the way, and its scan order
 * decides the time. Far above, solutions are everywhere and randomized restarts find one in a fraction of a pass.
 */

import type { Puzzle } from "./puzzle.js";

/** log10 of the expected solution count from which a board counts as having many solutions (docs/engine.md). */
export const MANY_SOLUTIONS_LOG10 = 6;

function lnFactorial(n: number): number {
  let s = 0;
  for (let k = 2; k <= n; k++) s += Math.log(k);
  return s;
}

function matchProbability(counts: Map<number, number>): number {
  let total = 0;
  for (const v of counts.values()) total += v;
  if (total === 0) return 1;
  let q = 0;
  for (const v of counts.values()) q += (v / total) ** 2;
  return q;
}

function bump(m: Map<number, number>, c: number): void {
  m.set(c, (m.get(c) ?? 0) + 1);
}

/** log10 of the expected number of solutions (see the module note). */
export function log10ExpectedSolutions(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces">): number {
  const { rows, cols, pieces } = puzzle;
  const joins = rows * (cols - 1) + cols * (rows - 1);
  const bounded = pieces.some((p) => p.edges.includes(0));
  let ln: number;
  if (!bounded) {
    const all = new Map<number, number>();
    for (const p of pieces) for (const c of p.edges) bump(all, c);
    ln = lnFactorial(pieces.length) + pieces.length * Math.log(4) + joins * Math.log(matchProbability(all));
  } else {
    const frame = new Map<number, number>(), inner = new Map<number, number>();
    let corners = 0, borders = 0, inners = 0;
    for (const p of pieces) {
      const grey = p.edges.filter((c) => c === 0).length;
      if (grey === 2) corners++;
      else if (grey === 1) borders++;
      else inners++;
      for (let d = 0; d < 4; d++) {
        const c = p.edges[d];
        if (c === 0) continue;
        const besideGrey = grey > 0 && (p.edges[(d + 1) & 3] === 0 || p.edges[(d + 3) & 3] === 0);
        bump(besideGrey ? frame : inner, c);
      }
    }
    const frameJoins = Math.max(0, 2 * (rows - 1) + 2 * (cols - 1));
    ln = lnFactorial(corners) + lnFactorial(borders) + lnFactorial(inners) + inners * Math.log(4) +
      frameJoins * Math.log(matchProbability(frame)) + (joins - frameJoins) * Math.log(matchProbability(inner));
  }
  return ln / Math.LN10;
}
