/**
 * Scan cubes (core/cubes/scan-split.ts): the weight invariant, solutions, re-splits and the order of the cubes,
 * on the fixtures and generated boards. The engine replay (the cubes' placements add up to one whole scan's) is
 * an integration test: test/integration/scan-cubes.test.ts.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { scanCellOrder, scanSplit } from "../../core/cubes/scan-split.js";
import { addRational, equalRational, exactWeight, sumWeights, weightOf, type Rational } from "../../core/cubes/weight.js";
import type { SplitResult } from "../../core/cubes/types.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Board, Puzzle } from "../../core/puzzle.js";
import { verifyPartial, verifySolution } from "../../core/verify.js";

const FIX = new URL("../fixtures/", import.meta.url);
const brendan = (size: string): Puzzle => parsePuzzle(readFileSync(new URL(`brendan/pieces_${size}.txt`, FIX), "utf8"), size);

/** Exact weight of the cubes and solutions. */
function open(r: SplitResult): Rational {
  return addRational(sumWeights(r.cubes.map((c) => c.branching)), sumWeights(r.solutions.map((s) => s.branching)));
}

/** Exact weight of everything the split closed or left open (it must record its refuted branches). */
function total(r: SplitResult): Rational {
  assert.ok(r.refuted.branches, "refuted branches recorded");
  return addRational(open(r), sumWeights(r.refuted.branches.map((b) => b.branching)));
}

function boardOf(p: Puzzle, placements: ReadonlyArray<{ cell: number; piece: number; rot: number }>): Board {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(p.rows * p.cols).fill(null);
  for (const h of p.hints) cells[h.row * p.cols + h.col] = { piece: h.piece, rot: h.rot };
  for (const pl of placements) {
    assert.equal(cells[pl.cell], null, `cell ${pl.cell} placed twice`);
    cells[pl.cell] = { piece: pl.piece, rot: pl.rot };
  }
  return { rows: p.rows, cols: p.cols, cells };
}

test("scan split - the engine's short and long orders: columns first on a wide board, rows on a tall or square one", () => {
  assert.deepEqual([...scanCellOrder(2, 3, "short")], [0, 3, 1, 4, 2, 5]);
  assert.deepEqual([...scanCellOrder(2, 3, "long")], [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...scanCellOrder(3, 2, "short")], [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...scanCellOrder(2, 2, "long")], [0, 2, 1, 3]);
});

test("scan split - cubes, refuted branches and solutions weigh exactly 1; every cube is a valid partial board", () => {
  for (const size of ["04x04", "05x05", "06x06"]) {
    const p = brendan(size);
    for (const target of [1, 8, 64, 500]) {
      const r = scanSplit(p, { targetCubes: target, recordRefuted: true });
      assert.ok(equalRational(total(r), { num: 1n, den: 1n }), `${size} target ${target}: the weights do not sum to 1`);
      assert.equal(r.refuted.branches!.length, r.refuted.count);
      if (r.cubes.length + r.solutions.length > 0) assert.ok(r.cubes.length + r.solutions.length >= Math.min(target, 1));
      const order = scanCellOrder(p.rows, p.cols, "short");
      for (const c of r.cubes) {
        assert.ok(verifyPartial(p, boardOf(p, c.placements)).ok, `${size}: cube is not a valid partial board`);
        // The placements are the first cells of the scan, in order.
        assert.deepEqual(c.placements.map((x) => x.cell), [...order.slice(0, c.placements.length)]);
        assert.equal(c.weight, weightOf(c.branching));
      }
      for (const s of r.solutions) assert.ok(verifySolution(p, s.board).ok);
      for (const b of r.refuted.branches!) assert.ok(verifyPartial(p, boardOf(p, b.placements)).ok, `${size}: a refuted branch is not a valid partial board`);
    }
  }
});

test("scan split - cubes come out in the engine's order: lexicographic by class of the scan's cells", () => {
  const p = brendan("06x06");
  const r = scanSplit(p, { targetCubes: 200 });
  assert.ok(r.cubes.length >= 200);
  // The same split, one level at a time: each level-k cube's children come out together and in order.
  const shallow = scanSplit(p, { targetCubes: Infinity, maxDepth: r.stats.maxDepth - 1 });
  let next = 0;
  for (const parent of shallow.cubes) {
    const kids = scanSplit(p, { targetCubes: Infinity, maxDepth: 1, base: parent });
    for (const kid of kids.cubes) {
      assert.deepEqual(r.cubes[next].placements, kid.placements, `cube ${next} is out of order`);
      assert.deepEqual(r.cubes[next].branching, kid.branching);
      next++;
    }
  }
  assert.equal(next, r.cubes.length);
});

test("scan split - re-splitting a cube: its children weigh exactly its weight (less refuted) and extend its placements", () => {
  const p = brendan("06x06");
  const r = scanSplit(p, { targetCubes: 20 });
  for (const cube of r.cubes.slice(0, 5)) {
    const kids = scanSplit(p, { targetCubes: 16, base: cube, recordRefuted: true });
    assert.ok(equalRational(total(kids), exactWeight(cube.branching)), "the children and refuted branches weigh exactly the parent");
    for (const k of kids.cubes) {
      assert.deepEqual(k.placements.slice(0, cube.placements.length), cube.placements);
      assert.deepEqual(k.branching.slice(0, cube.branching.length), cube.branching);
    }
  }
});

test("scan split - a tiny board splits down to its solutions; contradicting base placements are refuted whole", () => {
  const g = generatePuzzle({ rows: 2, cols: 3, borderColors: 2, centerColors: 2, seed: 5 });
  const r = scanSplit(g.puzzle, { targetCubes: 1_000_000, recordRefuted: true });
  assert.equal(r.cubes.length, 0);
  assert.ok(r.solutions.length >= 1);
  for (const s of r.solutions) assert.ok(verifySolution(g.puzzle, s.board).ok);
  assert.ok(equalRational(total(r), { num: 1n, den: 1n }));
  const p = brendan("04x04");
  const base = { placements: [{ cell: 0, piece: 0, rot: 0 }, { cell: 1, piece: 0, rot: 1 }], branching: [4, 2], weight: 1 / 8 };
  const bad = scanSplit(p, { targetCubes: 4, base });
  assert.deepEqual(bad.cubes, []);
  assert.equal(bad.refuted.count, 1);
  assert.equal(bad.refuted.weight, 1 / 8);
  assert.ok(equalRational(exactWeight([4, 2]), { num: 1n, den: 8n }));
});
