import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parsePuzzle, readBrendanSolution } from "../../core/formats/index.js";
import { rotateEdges, type Board, type Placement, type Puzzle } from "../../core/puzzle.js";
import { verifyPartial, verifySolution } from "../../core/verify.js";
import { InvalidOptionError } from "../../core/errors.js";
import { resplitCube, splitCubes, streamCubes } from "../../core/cubes/split.js";
import { addRational, equalRational, exactWeight, sumWeights, type Rational } from "../../core/cubes/weight.js";
import type { Cube, SplitOptions, SplitResult } from "../../core/cubes/types.js";

const FIX = new URL("../fixtures/", import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIX), "utf8");
const brendan = (size: string): Puzzle => parsePuzzle(read(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
const planted = (size: string, p: Puzzle): Board => readBrendanSolution(read(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, p);

/** Exact weight of everything a split closed or left open. */
function totalWeight(r: SplitResult): Rational {
  assert.ok(r.refuted.branches, "split must record refuted branches");
  return [r.cubes, r.refuted.branches, r.solutions]
    .map((list) => sumWeights(list.map((c) => c.branching)))
    .reduce(addRational, { num: 0n, den: 1n });
}

/** Placed colours of a placement. */
const tuple = (p: Puzzle, piece: number, rot: number): string => rotateEdges(p.pieces[piece].edges, rot).join(",");

/** True when the cube's placements agree with the board up to identical pieces (same placed colours). */
function consistent(p: Puzzle, cube: Cube, board: Board): boolean {
  return cube.placements.every((pl) => {
    const c = board.cells[pl.cell];
    return c !== null && tuple(p, pl.piece, pl.rot) === tuple(p, c.piece, c.rot);
  });
}

function boardOf(p: Puzzle, placements: readonly Placement[]): Board {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(p.rows * p.cols).fill(null);
  for (const h of p.hints) cells[h.row * p.cols + h.col] = { piece: h.piece, rot: h.rot };
  for (const pl of placements) {
    assert.equal(cells[pl.cell], null, `cell ${pl.cell} placed twice`);
    cells[pl.cell] = { piece: pl.piece, rot: pl.rot };
  }
  return { rows: p.rows, cols: p.cols, cells };
}

const ONE: Rational = { num: 1n, den: 1n };

test("cube split - weights sum exactly to 1 on brendan 4x4 and 5x5, every order, expansion and pruning", () => {
  for (const size of ["04x04", "05x05"]) {
    const p = brendan(size);
    for (const cellOrder of ["most-constrained", "spiral", "row-major", "frame-first"] as const) {
      for (const expansion of ["breadth-first", "heaviest-first"] as const) {
        for (const pruning of ["none", "neighbours", "full"] as const) {
          for (const targetCubes of [1, 7, 300]) {
            const r = splitCubes(p, { targetCubes, cellOrder, expansion, pruning, recordRefuted: true });
            const label = `${size} ${cellOrder} ${expansion} ${pruning} ${targetCubes}`;
            assert.ok(equalRational(totalWeight(r), ONE), label);
            assert.ok(r.cubes.length >= targetCubes || r.cubes.length === 0, label);
            const doubles = [...r.cubes, ...r.solutions].reduce((a, c) => a + c.weight, r.refuted.weight);
            assert.ok(Math.abs(doubles - 1) < 1e-9, label);
            assert.equal(r.refuted.count, r.refuted.branches!.length, label);
          }
        }
      }
    }
  }
});

test("cube split - a split to the end finds every solution once and refutes the rest", () => {
  const p = brendan("05x05");
  const r = splitCubes(p, { targetCubes: Number.POSITIVE_INFINITY, recordRefuted: true });
  assert.equal(r.cubes.length, 0);
  assert.ok(equalRational(totalWeight(r), ONE));
  // 16 = the planted solution's 4 board rotations x 4 (counted independently by the search tests).
  assert.equal(r.solutions.length, 16);
  for (const s of r.solutions) assert.deepEqual(verifySolution(p, s.board), { ok: true });
  const keys = new Set(r.solutions.map((s) => s.board.cells.map((c) => tuple(p, c!.piece, c!.rot)).join("|")));
  assert.equal(keys.size, 16);
});

test("cube split - the planted solution lies in exactly one cube and in no refuted branch", () => {
  for (const size of ["05x05", "06x06"]) {
    const p = brendan(size);
    const sol = planted(size, p);
    assert.deepEqual(verifySolution(p, sol), { ok: true });
    for (const cellOrder of ["most-constrained", "spiral", "row-major"] as const) {
      for (const expansion of ["breadth-first", "heaviest-first"] as const) {
        const r = splitCubes(p, { targetCubes: 500, cellOrder, expansion, recordRefuted: true });
        const holders = [...r.cubes, ...r.solutions].filter((c) => consistent(p, c, sol));
        assert.equal(holders.length, 1, `${size} ${cellOrder} ${expansion}`);
        assert.equal(r.refuted.branches!.filter((c) => consistent(p, c, sol)).length, 0);
        assert.ok(r.cubes.length >= 500 || r.cubes.length === 0);
      }
    }
  }
});

test("cube split - re-split children extend the cube and sum exactly to its weight", () => {
  const p = brendan("06x06");
  const sol = planted("06x06", p);
  const r = splitCubes(p, { targetCubes: 40, recordRefuted: true });
  const holder = r.cubes.find((c) => consistent(p, c, sol));
  assert.ok(holder, "some cube holds the planted solution");
  const picks = [holder, r.cubes[0], r.cubes[r.cubes.length - 1], r.cubes[17]];
  for (const cube of picks) {
    for (const opts of [{ depth: 1 }, { depth: 3 }, { targetChildren: 25 }, { depth: 2, cellOrder: "spiral" as const }]) {
      const c = resplitCube(p, cube, { ...opts, recordRefuted: true });
      assert.ok(equalRational(totalWeight(c), exactWeight(cube.branching)), JSON.stringify(opts));
      for (const child of [...c.cubes, ...c.refuted.branches!, ...c.solutions]) {
        assert.deepEqual(child.placements.slice(0, cube.placements.length), cube.placements);
        assert.deepEqual(child.branching.slice(0, cube.branching.length), cube.branching);
        assert.equal(child.placements.length, child.branching.length);
        assert.deepEqual(verifyPartial(p, boardOf(p, child.placements)), { ok: true });
      }
      if (cube === holder) {
        assert.equal([...c.cubes, ...c.solutions].filter((x) => consistent(p, x, sol)).length, 1);
        assert.equal(c.refuted.branches!.filter((x) => consistent(p, x, sol)).length, 0);
      }
      // Re-splitting a child again keeps the chain exact.
      if ("targetChildren" in opts) assert.ok(c.cubes.length >= 25 || c.cubes.length === 0);
      if (c.cubes.length > 0) {
        const g = resplitCube(p, c.cubes[0], { depth: 2, recordRefuted: true });
        assert.ok(equalRational(totalWeight(g), exactWeight(c.cubes[0].branching)));
      }
    }
  }
});

test("cube split - hints are respected and never reused", () => {
  const p0 = brendan("06x06");
  const sol = planted("06x06", p0);
  const hintCells = [0, 14, 21, 35];
  const p: Puzzle = { ...p0, hints: hintCells.map((cell) => ({ row: Math.floor(cell / 6), col: cell % 6, ...sol.cells[cell]! })) };
  const hintPieces = new Set(p.hints.map((h) => h.piece));
  const r = splitCubes(p, { targetCubes: 300, recordRefuted: true });
  assert.ok(equalRational(totalWeight(r), ONE));
  assert.ok(r.cubes.length >= 300 || r.solutions.length > 0);
  for (const c of [...r.cubes, ...r.solutions]) {
    for (const pl of c.placements) {
      assert.ok(!hintCells.includes(pl.cell));
      assert.ok(!hintPieces.has(pl.piece));
    }
    assert.deepEqual(verifyPartial(p, boardOf(p, c.placements)), { ok: true });
  }
  for (const s of r.solutions) assert.deepEqual(verifySolution(p, s.board), { ok: true });
  assert.equal([...r.cubes, ...r.solutions].filter((c) => consistent(p, c, sol)).length, 1);
});

test("cube split - hints that contradict each other refute the whole puzzle", () => {
  const p0 = brendan("04x04");
  const sol = planted("04x04", p0);
  const a = sol.cells[0]!;
  // The same corner piece at two corners: the second hint cannot hold.
  const p: Puzzle = { ...p0, hints: [{ row: 0, col: 0, ...a }, { row: 0, col: 1, piece: a.piece, rot: a.rot }] };
  const r = splitCubes(p, { targetCubes: 10, recordRefuted: true });
  assert.equal(r.cubes.length, 0);
  assert.equal(r.refuted.count, 1);
  assert.equal(r.refuted.weight, 1);
  assert.ok(equalRational(totalWeight(r), ONE));
});

test("cube split - deterministic: the same inputs give the same cubes in the same order", () => {
  const p = brendan("06x06");
  for (const expansion of ["breadth-first", "heaviest-first"] as const) {
    const opts: SplitOptions = { targetCubes: 400, expansion, recordRefuted: true };
    assert.deepEqual(splitCubes(p, opts), splitCubes(p, opts));
  }
});

test("cube split - targetCubes, maxDepth and nodeLimit stop the split", () => {
  const p = brendan("06x06");
  const one = splitCubes(p, { targetCubes: 1 });
  assert.deepEqual(one.cubes, [{ placements: [], branching: [], weight: 1 }]);
  const shallow = splitCubes(p, { targetCubes: 1_000_000, maxDepth: 2, recordRefuted: true });
  assert.ok(shallow.cubes.every((c) => c.branching.length <= 2));
  assert.ok(shallow.cubes.some((c) => c.branching.length === 2));
  assert.equal(shallow.stats.maxDepth, 2);
  assert.ok(equalRational(totalWeight(shallow), ONE));
  const limited = splitCubes(p, { targetCubes: 1_000_000, nodeLimit: 50, recordRefuted: true });
  assert.ok(limited.stats.nodeLimitReached);
  assert.ok(limited.stats.nodes >= 50 && limited.stats.nodes < 50 + 4 * 36 * 4);
  assert.ok(equalRational(totalWeight(limited), ONE));
});

test("cube split - streaming yields the same cubes as splitCubes, then done", () => {
  const p = brendan("05x05");
  const opts: SplitOptions = { targetCubes: 120, expansion: "heaviest-first" };
  const events = [...streamCubes(p, opts)];
  const last = events[events.length - 1];
  assert.equal(last.kind, "done");
  const r = splitCubes(p, opts);
  assert.deepEqual(events.filter((e) => e.kind === "cube").map((e) => e.kind === "cube" && e.cube), r.cubes);
  if (last.kind === "done") assert.equal(last.cubes, r.cubes.length);
});

test("cube split - probing closes easy children and keeps the sum exact", () => {
  const p = brendan("05x05");
  const sol = planted("05x05", p);
  const r = splitCubes(p, { targetCubes: 100, probeNodes: 300, recordRefuted: true });
  assert.ok(equalRational(totalWeight(r), ONE));
  const plain = splitCubes(p, { targetCubes: 100 });
  assert.ok(r.refuted.count > plain.refuted.count);
  assert.ok(r.solutions.length > 0);
  for (const s of r.solutions) assert.deepEqual(verifySolution(p, s.board), { ok: true });
  assert.equal(r.refuted.branches!.filter((c) => consistent(p, c, sol)).length, 0);
  assert.equal([...r.cubes, ...r.solutions].filter((c) => consistent(p, c, sol)).length, 1);
});

test("cube split - bad options are named", () => {
  const p = brendan("04x04");
  assert.throws(() => splitCubes(p, { targetCubes: 0 }), InvalidOptionError);
  assert.throws(() => splitCubes(p, { targetCubes: 5, maxDepth: -1 }), /maxDepth/);
  assert.throws(() => splitCubes(p, { targetCubes: 5, cellOrder: "diagonal" as never }), /cellOrder/);
  assert.throws(() => splitCubes(p, { targetCubes: 5, pruning: "max" as never }), /pruning/);
  assert.throws(() => splitCubes(p, { targetCubes: 5, expansion: "random" as never }), /expansion/);
  const sol = planted("04x04", p);
  const clash: Cube = { placements: [{ cell: 0, ...sol.cells[0]! }, { cell: 5, ...sol.cells[0]! }], branching: [2, 2], weight: 0.25 };
  assert.throws(() => resplitCube(p, clash), /base/);
});
