/**
 * Folding solutions up to the board's symmetries (`solve --all --up-to-symmetry`).
 *
 * A board is seen as the colours its cells show, side by side (4 per square cell N E S W, 3 per triangle cell H R F).
 * A symmetry of the board (square: the 8 rotations and reflections, a rectangle: the 4 that keep its shape; triangle:
 * the 6 of the equilateral triangle) moves every cell's colours to another cell and side. The image is a solution of
 * the same puzzle exactly when its cells, as pieces, are the puzzle's pieces (as a multiset, up to the rotations the
 * puzzle allows: a reflection mirrors every piece, so it only counts when the set holds the mirror images) and it shows
 * every hint; the rim, the frame and the joins are kept by the geometry. Those images form the board's orbit among the
 * solutions (a group acting on the solution set), and a board is counted when its colours are the smallest in its
 * orbit, so every orbit is counted once.
 */

import type { Board, Puzzle } from "./puzzle.js";
import type { TriangleBoard, TrianglePuzzle } from "./triangle/puzzle.js";

/** A symmetry as a map of (cell, side) to (cell, side): target[cell * sides + side]. */
type Symmetry = Int32Array;

interface Shape {
  readonly cells: number;
  readonly sides: number;
  /** The non-identity symmetries. */
  readonly symmetries: readonly Symmetry[];
  /** Rotations a piece may take, as side shifts (square: 0..3, triangle: 0..2 or just 0). */
  readonly turns: number;
  /** Colours per cell of the puzzle's hints: cell -> colours. */
  readonly hints: ReadonlyMap<number, readonly number[]>;
  /** The canonical key of every piece of the puzzle. */
  readonly pieceKeys: readonly string[];
}

function squareSymmetries(rows: number, cols: number): Symmetry[] {
  // Moves as (r, c, d) -> (r', c', d'); d = 0 N, 1 E, 2 S, 3 W.
  type Move = (r: number, c: number, d: number) => [number, number, number];
  const rot90: Move = (r, c, d) => [c, rows - 1 - r, (d + 1) & 3];
  const rot180: Move = (r, c, d) => [rows - 1 - r, cols - 1 - c, (d + 2) & 3];
  const mirror: Move = (r, c, d) => [r, cols - 1 - c, d === 1 ? 3 : d === 3 ? 1 : d];
  const compose = (f: Move, g: Move): Move => (r, c, d) => f(...g(r, c, d));
  const moves: Move[] = [rot180, mirror, compose(rot180, mirror)];
  if (rows === cols) {
    const rot270 = compose(rot180, rot90);
    moves.push(rot90, rot270, compose(rot90, mirror), compose(rot270, mirror));
  }
  return moves.map((m) => {
    const out = new Int32Array(rows * cols * 4);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        for (let d = 0; d < 4; d++) {
          const [r2, c2, d2] = m(r, c, d);
          out[(r * cols + c) * 4 + d] = (r2 * cols + c2) * 4 + d2;
        }
      }
    }
    return out;
  });
}

function triangleSymmetries(n: number): Symmetry[] {
  // Lattice points (i, j), 0 <= j <= i <= n, in barycentric form (j, i - j, n - i); the 6 permutations of the three
  // coordinates are the triangle's symmetries.
  const cornersOf = (r: number, k: number): number[][] => {
    const t = k >> 1;
    return (k & 1) === 0 ? [[r, t], [r + 1, t], [r + 1, t + 1]] : [[r, t], [r, t + 1], [r + 1, t + 1]];
  };
  const cellOf = (pts: number[][]): number => {
    const r = Math.min(...pts.map((p) => p[0]));
    const top = pts.filter((p) => p[0] === r);
    const k = top.length === 1 ? 2 * top[0][1] : 2 * Math.min(...top.map((p) => p[1])) + 1;
    return r * r + k;
  };
  const dirOf = (p: number[], q: number[]): number => (p[0] === q[0] ? 0 : p[1] === q[1] ? 1 : 2);
  const perms = [[1, 2, 0], [2, 0, 1], [1, 0, 2], [0, 2, 1], [2, 1, 0]];
  return perms.map((perm) => {
    const move = ([i, j]: number[]): number[] => {
      const bary = [j, i - j, n - i];
      const b = perm.map((x) => bary[x]);
      return [n - b[2], b[0]];
    };
    const out = new Int32Array(n * n * 3);
    for (let r = 0; r < n; r++) {
      for (let k = 0; k <= 2 * r; k++) {
        const pts = cornersOf(r, k);
        const moved = pts.map(move);
        const cell2 = cellOf(moved);
        for (const [a, b] of [[0, 1], [0, 2], [1, 2]]) {
          out[(r * r + k) * 3 + dirOf(pts[a], pts[b])] = cell2 * 3 + dirOf(moved[a], moved[b]);
        }
      }
    }
    return out;
  });
}

/** The smallest rotation of a piece's colours, as a string: equal for the pieces one may turn into the other. */
function pieceKey(colours: ArrayLike<number>, offset: number, sides: number, turns: number): string {
  let best = "";
  for (let t = 0; t < turns; t++) {
    let s = "";
    for (let d = 0; d < sides; d++) s += colours[offset + ((d + t) % sides)] + ",";
    if (best === "" || s < best) best = s;
  }
  return best;
}

function createFolder(shape: Shape): (shown: Int32Array) => boolean {
  const { cells, sides, turns } = shape;
  const want = [...shape.pieceKeys].sort().join("|");
  const image = new Int32Array(cells * sides);
  const key = (a: Int32Array): string => a.join(",");
  return (shown) => {
    const own = key(shown);
    for (const g of shape.symmetries) {
      for (let i = 0; i < g.length; i++) image[g[i]] = shown[i];
      let hinted = true;
      for (const [cell, colours] of shape.hints) {
        for (let d = 0; d < sides && hinted; d++) hinted = image[cell * sides + d] === colours[d];
      }
      if (!hinted) continue;
      const keys: string[] = [];
      for (let c = 0; c < cells; c++) keys.push(pieceKey(image, c * sides, sides, turns));
      if (keys.sort().join("|") !== want) continue;
      if (key(image) < own) return false;
    }
    return true;
  };
}

/** For square puzzles: true when the board is the representative of its orbit. */
export function squareFolder(puzzle: Puzzle): (board: Board) => boolean {
  const turn = (e: readonly number[], rot: number): number[] => [0, 1, 2, 3].map((d) => e[(d - rot + 4) & 3]);
  const fold = createFolder({
    cells: puzzle.rows * puzzle.cols,
    sides: 4,
    turns: 4,
    symmetries: squareSymmetries(puzzle.rows, puzzle.cols),
    hints: new Map(puzzle.hints.map((h) => [h.row * puzzle.cols + h.col, turn(puzzle.pieces[h.piece].edges, h.rot)])),
    pieceKeys: puzzle.pieces.map((p) => pieceKey(p.edges, 0, 4, 4)),
  });
  const shown = new Int32Array(puzzle.rows * puzzle.cols * 4);
  return (board) => {
    board.cells.forEach((c, cell) => turn(puzzle.pieces[c!.piece].edges, c!.rot).forEach((x, d) => (shown[cell * 4 + d] = x)));
    return fold(shown);
  };
}

/** For triangle puzzles: true when the board is the representative of its orbit. */
export function triangleFolder(puzzle: TrianglePuzzle): (board: TriangleBoard) => boolean {
  const turns = puzzle.rotate ? 3 : 1;
  const turn = (e: readonly number[], rot: number): number[] => [0, 1, 2].map((d) => e[(d - rot + 3) % 3]);
  const fold = createFolder({
    cells: puzzle.side * puzzle.side,
    sides: 3,
    turns,
    symmetries: triangleSymmetries(puzzle.side),
    hints: new Map(puzzle.hints.map((h) => [h.cell, turn(puzzle.pieces[h.piece].edges, h.rot)])),
    pieceKeys: puzzle.pieces.map((p) => pieceKey(p.edges, 0, 3, turns)),
  });
  const shown = new Int32Array(puzzle.side * puzzle.side * 3);
  return (board) => {
    board.cells.forEach((c, cell) => turn(puzzle.pieces[c!.piece].edges, c!.rot).forEach((x, d) => (shown[cell * 3 + d] = x)));
    return fold(shown);
  };
}
