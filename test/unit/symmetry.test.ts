/**
 * --up-to-symmetry: the folded count is the number of orbits, checked against Burnside's lemma computed here from
 * the brute-force boards with the symmetries written out independently (squares on the cell grid, triangles on the
 * lattice of corner points), on puzzles without hints (then which symmetries map solutions to solutions does not
 * depend on the board, and they form a group).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generatePuzzle } from "../../core/generate.js";
import type { Board, Puzzle } from "../../core/puzzle.js";
import { squareFolder, triangleFolder } from "../../core/symmetry.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import type { TriangleBoard, TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { bruteBoardsSquare, bruteBoardsTriangle } from "../helpers/brute-force.js";

/** Pieces for the shown colours: any copy whose turn shows them (copies of identical pieces are interchangeable). */
function assign(pieces: ReadonlyArray<{ edges: readonly number[] }>, shown: number[][], turns: number): Array<{ piece: number; rot: number }> {
  const used = new Set<number>();
  const sides = shown[0].length;
  return shown.map((s) => {
    for (let i = 0; i < pieces.length; i++) {
      if (used.has(i)) continue;
      for (let rot = 0; rot < turns; rot++) {
        if (s.every((x, d) => pieces[i].edges[(d - rot + sides) % sides] === x)) {
          used.add(i);
          return { piece: i, rot };
        }
      }
    }
    throw new Error("no piece shows these colours");
  });
}

const multiset = (cells: number[][], turns: number): string =>
  cells.map((s) => {
    let best = "";
    for (let t = 0; t < turns; t++) {
      const k = s.map((_, d) => s[(d + t) % s.length]).join(",");
      if (best === "" || k < best) best = k;
    }
    return best;
  }).sort().join("|");

function squareGroup(rows: number, cols: number): Array<(b: number[][]) => number[][]> {
  const at = (r: number, c: number): number => r * cols + c;
  const id = (b: number[][]): number[][] => b;
  // A quarter turn clockwise: (r, c) goes to (c, n-1-r) and each piece turns (new side d shows old side d-1).
  const rot = (b: number[][]): number[][] => {
    const out: number[][] = new Array(b.length);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[at(c, rows - 1 - r)] = [0, 1, 2, 3].map((d) => b[at(r, c)][(d + 3) % 4]);
    return out;
  };
  const half = (b: number[][]): number[][] => b.map((_, i) => [0, 1, 2, 3].map((d) => b[b.length - 1 - i][(d + 2) % 4]));
  const mirror = (b: number[][]): number[][] => b.map((_, i) => {
    const s = b[Math.floor(i / cols) * cols + (cols - 1 - (i % cols))];
    return [s[0], s[3], s[2], s[1]];
  });
  const g = [id, half, mirror, (b: number[][]) => half(mirror(b))];
  if (rows === cols) g.push(rot, (b) => half(rot(b)), (b) => rot(mirror(b)), (b) => half(rot(mirror(b))));
  return g;
}

test("symmetry - squares: the folded count is the number of orbits (Burnside) on random boards", () => {
  let checked = 0, folded = 0, mirrored = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const unbounded = seed % 2 === 0;
    const { puzzle } = unbounded
      ? generatePuzzle({ rows: 2, cols: 2, centerColors: 1 + (seed % 3), unbounded: true, seed })
      : generatePuzzle({ rows: 3, cols: 3 + (seed % 3 === 0 ? 1 : 0), borderColors: 1 + (seed % 2), centerColors: 1 + (seed % 2), seed });
    const boards = bruteBoardsSquare(puzzle);
    const group = squareGroup(puzzle.rows, puzzle.cols);
    const pieces = puzzle.pieces.map((p) => [...p.edges]);
    const want = burnsideSquare(boards, group, pieces);
    // Indices 2, 3, 6 and 7 of squareGroup are the reflections.
    if (group.some((g, i) => [2, 3, 6, 7].includes(i) && multiset(g(boards[0]), 4) === multiset(pieces, 4))) mirrored++;
    const fold = squareFolder(puzzle);
    const got = boards.filter((b) => fold(toBoard(puzzle, b))).length;
    assert.equal(got, want, `${puzzle.name}: ${boards.length} boards`);
    if (got < boards.length) folded++;
    checked++;
  }
  assert.equal(checked, 30);
  assert.ok(folded >= 10, `${folded} puzzles where folding merged boards`);
  assert.ok(mirrored >= 3, `${mirrored} puzzles whose piece set allows a reflection`);
});

function burnsideSquare(boards: number[][][], group: Array<(b: number[][]) => number[][]>, pieces: number[][]): number {
  // Which symmetries map solutions to solutions: those that keep the piece multiset (rotations always do).
  const want = multiset(pieces, 4);
  const valid = group.filter((g) => multiset(g(boards[0]), 4) === want);
  let fixed = 0;
  for (const g of valid) for (const b of boards) if (JSON.stringify(g(b)) === JSON.stringify(b)) fixed++;
  assert.equal(fixed % valid.length, 0);
  return fixed / valid.length;
}

function toBoard(puzzle: Puzzle, shown: number[][]): Board {
  return { rows: puzzle.rows, cols: puzzle.cols, cells: assign(puzzle.pieces, shown, 4) };
}

function toTriangleBoard(puzzle: TrianglePuzzle, shown: number[][]): TriangleBoard {
  return { side: puzzle.side, cells: assign(puzzle.pieces, shown, puzzle.rotate ? 3 : 1) };
}

/** The triangle's 6 symmetries acting on boards, through the labels on the edges between lattice points. */
function triangleGroup(n: number): Array<(b: number[][]) => number[][]> {
  const cells: Array<{ pts: number[][]; dirs: Array<[number, number, number]> }> = [];
  for (let r = 0; r < n; r++) {
    for (let k = 0; k <= 2 * r; k++) {
      const t = k >> 1;
      const pts = k % 2 === 0 ? [[r, t], [r + 1, t], [r + 1, t + 1]] : [[r, t], [r, t + 1], [r + 1, t + 1]];
      const dirs: Array<[number, number, number]> = ([[0, 1], [0, 2], [1, 2]] as const).map(([a, b]) => {
        const p = pts[a], q = pts[b];
        return [a, b, p[0] === q[0] ? 0 : p[1] === q[1] ? 1 : 2];
      });
      cells.push({ pts, dirs });
    }
  }
  const key = (p: number[], q: number[]): string => [p.join(":"), q.join(":")].sort().join("-");
  return [[0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 0, 2], [0, 2, 1], [2, 1, 0]].map((perm) => {
    const move = ([i, j]: number[]): number[] => {
      const bary = [j, i - j, n - i];
      return [n - bary[perm[2]], bary[perm[0]]];
    };
    return (b: number[][]): number[][] => {
      // The image shows on the moved edge the label the board shows on the edge (outer edges included).
      const label = new Map<string, number>();
      cells.forEach(({ pts, dirs }, c) => {
        for (const [a, bb, d] of dirs) label.set(key(move(pts[a]), move(pts[bb])), b[c][d]);
      });
      return cells.map(({ pts, dirs }) => {
        const out = [0, 0, 0];
        for (const [a, bb, d] of dirs) out[d] = label.get(key(pts[a], pts[bb]))!;
        return out;
      });
    };
  });
}

test("symmetry - triangles: the folded count is the number of orbits (Burnside), with and without rotation", () => {
  let checked = 0, folded = 0, mirrored = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const rotate = seed % 2 === 0;
    const { puzzle } = generateTriangle({ side: rotate ? 2 : 3, labels: rotate ? 2 + (seed % 4 === 0 ? 1 : 0) : 1 + (seed % 2), seed, rotate, frame: seed % 3 === 0 ? 0 : null });
    const boards = bruteBoardsTriangle(puzzle);
    const turns = puzzle.rotate ? 3 : 1;
    const want = multiset(puzzle.pieces.map((p) => [...p.edges]), turns);
    const valid = triangleGroup(puzzle.side).filter((g) => multiset(g(boards[0]), turns) === want);
    // The subgroups of the triangle's 6 symmetries with a reflection have an even order.
    if (valid.length % 2 === 0) mirrored++;
    let fixed = 0;
    for (const g of valid) for (const b of boards) if (JSON.stringify(g(b)) === JSON.stringify(b)) fixed++;
    assert.equal(fixed % valid.length, 0, `${puzzle.name}: Burnside's sum is a multiple of ${valid.length}`);
    const fold = triangleFolder(puzzle);
    const got = boards.filter((b) => fold(toTriangleBoard(puzzle, b))).length;
    assert.equal(got, fixed / valid.length, `${puzzle.name}: ${boards.length} boards, ${valid.length} symmetries`);
    if (got < boards.length) folded++;
    checked++;
  }
  assert.equal(checked, 30);
  assert.ok(folded >= 10, `${folded} puzzles where folding merged boards`);
  assert.ok(mirrored >= 3, `${mirrored} puzzles whose piece set allows a reflection`);
});
