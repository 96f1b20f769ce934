/**
 * Brute-force solution counters for tiny boards, written for the cross-checks and sharing nothing with the
 * engines, the encodings or the verifiers: every piece (not class) in every rotation is tried on every cell in
 * plain cell order, and the distinct boards are collected as strings of the placed colours. So a board counts
 * once however many ways identical pieces or a symmetric piece's rotations produce it, which is the documented
 * semantics, reached by a different road than the engines' piece classes.
 */
import type { Puzzle } from "../../core/puzzle.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";

/** Distinct boards of a square puzzle (bounded: grey exactly on the rim; unbounded: rim free). */
export function bruteCountSquare(puzzle: Puzzle): number {
  return bruteBoardsSquare(puzzle).length;
}

/** The distinct boards of a square puzzle, each as the colours [N, E, S, W] its cells show. */
export function bruteBoardsSquare(puzzle: Puzzle): number[][][] {
  const { rows, cols, pieces } = puzzle;
  const bounded = pieces.some((p) => p.edges.includes(0));
  const cells = rows * cols;
  const shown: number[][] = [];
  const used = new Array<boolean>(pieces.length).fill(false);
  const boards = new Map<string, number[][]>();
  const turn = (e: readonly number[], rot: number): number[] => [0, 1, 2, 3].map((d) => e[(d - rot + 4) % 4]);
  const hintAt = new Map(puzzle.hints.map((h) => [h.row * cols + h.col, turn(pieces[h.piece].edges, h.rot).join(",")]));
  const fits = (cell: number, s: number[]): boolean => {
    const r = Math.floor(cell / cols), c = cell % cols;
    const rim = [r === 0, c === cols - 1, r === rows - 1, c === 0];
    if (bounded) for (let d = 0; d < 4; d++) if (rim[d] !== (s[d] === 0)) return false;
    if (r > 0 && shown[cell - cols][2] !== s[0]) return false;
    if (c > 0 && shown[cell - 1][1] !== s[3]) return false;
    const h = hintAt.get(cell);
    return h === undefined || h === s.join(",");
  };
  const go = (cell: number): void => {
    if (cell === cells) {
      boards.set(shown.map((s) => s.join(",")).join("|"), shown.map((s) => [...s]));
      return;
    }
    for (let i = 0; i < pieces.length; i++) {
      if (used[i]) continue;
      for (let rot = 0; rot < 4; rot++) {
        const s = turn(pieces[i].edges, rot);
        if (!fits(cell, s)) continue;
        used[i] = true;
        shown[cell] = s;
        go(cell + 1);
        used[i] = false;
      }
    }
  };
  go(0);
  return [...boards.values()];
}

/**
 * Distinct boards of a triangle puzzle. Geometry from first principles: cell (r, k) has corners on the lattice
 * of points (i, j), 0 <= j <= i <= n; an edge is a pair of points; its direction is H when both points lie in one
 * lattice row, R when j is equal, else F.
 */
export function bruteCountTriangle(puzzle: TrianglePuzzle): number {
  return bruteBoardsTriangle(puzzle).length;
}

/** The distinct boards of a triangle puzzle, each as the labels [H, R, F] its cells show. */
export function bruteBoardsTriangle(puzzle: TrianglePuzzle): number[][][] {
  const n = puzzle.side, pieces = puzzle.pieces;
  const cellEdges: Array<Array<{ key: string; dir: number }>> = [];
  const edgeUse = new Map<string, number>();
  for (let r = 0; r < n; r++) {
    for (let k = 0; k <= 2 * r; k++) {
      const t = k >> 1;
      const pts = k % 2 === 0 ? [[r, t], [r + 1, t], [r + 1, t + 1]] : [[r, t], [r, t + 1], [r + 1, t + 1]];
      const list: Array<{ key: string; dir: number }> = [];
      for (const [a, b] of [[0, 1], [0, 2], [1, 2]]) {
        const p = pts[a], q = pts[b];
        const key = [p.join(":"), q.join(":")].sort().join("-");
        list.push({ key, dir: p[0] === q[0] ? 0 : p[1] === q[1] ? 1 : 2 });
        edgeUse.set(key, (edgeUse.get(key) ?? 0) + 1);
      }
      cellEdges.push(list);
    }
  }
  const rots = puzzle.rotate ? [0, 1, 2] : [0];
  const turn = (e: readonly number[], rot: number): number[] => [0, 1, 2].map((d) => e[(d - rot + 3) % 3]);
  const hintAt = new Map(puzzle.hints.map((h) => [h.cell, turn(pieces[h.piece].edges, h.rot).join(",")]));
  const labelOn = new Map<string, number>();
  const used = new Array<boolean>(pieces.length).fill(false);
  const shown: number[][] = [];
  const boards = new Map<string, number[][]>();
  const go = (cell: number): void => {
    if (cell === n * n) {
      boards.set(shown.map((s) => s.join(",")).join("|"), shown.map((s) => [...s]));
      return;
    }
    for (let i = 0; i < pieces.length; i++) {
      if (used[i]) continue;
      for (const rot of rots) {
        const s = turn(pieces[i].edges, rot);
        const h = hintAt.get(cell);
        if (h !== undefined && h !== s.join(",")) continue;
        let ok = true;
        for (const { key, dir } of cellEdges[cell]) {
          const outer = edgeUse.get(key) === 1;
          if (outer && puzzle.frame !== null && s[dir] !== puzzle.frame) ok = false;
          const there = labelOn.get(key);
          if (there !== undefined && there !== s[dir]) ok = false;
        }
        if (!ok) continue;
        const added = cellEdges[cell].filter(({ key }) => !labelOn.has(key));
        for (const { key, dir } of added) labelOn.set(key, s[dir]);
        used[i] = true;
        shown[cell] = s;
        go(cell + 1);
        used[i] = false;
        for (const { key } of added) labelOn.delete(key);
      }
    }
  };
  go(0);
  return [...boards.values()];
}
