/**
 * The native placement engine against the oracle (test/helpers/engine-oracle.ts): on every small board and cube the
 * two counts must be equal, in every scan order, with any seed; printed boards verify; parts cover the space once;
 * contradicting fixed placements are UNSAT with no search.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { generatePuzzle } from "../../core/generate.js";
import { rotateEdges, rotatedEdge, type Edges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { createRandom } from "../../core/random.js";
import { ENGINE_ORDERS, engineProblem, type EngineOptions } from "../../worker/engine/index.js";
import { BOARDS, PARALLEL, UNSAT5, problem, engine, pool, signature, assertSolution, oracleCount, engineCount, placementsOf, hasIdentical, hasSymmetric, smallBoards, cube, type Generated, runDirect } from "../helpers/engine-oracle.js";

// ---- 1. counts against the oracle ----

test("engine counts - equal the oracle's on random small boards in every scan order, with any seed", { timeout: 300_000 }, async () => {
  const boards = smallBoards(BOARDS);
  const counts = boards.map((g) => oracleCount(g.puzzle));
  // The table holds what it claims to: identical and symmetric pieces, hints, unbounded boards, many solutions.
  assert.ok(boards.filter((g) => hasIdentical(g.puzzle)).length >= BOARDS / 3, "boards with identical pieces");
  assert.ok(boards.filter((g) => hasSymmetric(g.puzzle)).length >= BOARDS / 10, "boards with symmetric pieces");
  assert.ok(boards.filter((g) => g.puzzle.hints.length > 0).length >= BOARDS / 4, "boards with hints");
  assert.ok(boards.filter((g) => !g.puzzle.pieces.some((x) => x.edges.includes(0))).length >= BOARDS / 5, "unbounded boards");
  assert.ok(counts.filter((c) => c >= 10).length >= BOARDS / 4 && Math.max(...counts) >= 10_000, `counts ${counts.join(" ")}`);
  assert.ok(counts.every((c) => c >= 1), "every generated board has its planted solution");

  const runs = boards.flatMap((g, i) => ENGINE_ORDERS.map((order, j) => ({ g, want: counts[i], order, seed: (i + j) % 3 })));
  await pool(runs, PARALLEL, async ({ g, want, order, seed }) => {
    const what = `${g.puzzle.name} order ${order} seed ${seed}`;
    assert.equal(await engineCount(g.puzzle, [], { order, seed }, what), want, what);
  });
});

test("engine counts - equal the oracle's under a cube's fixed placements (planted ones, and arbitrary ones that are mostly unsat)", { timeout: 300_000 }, async () => {
  const boards = smallBoards(BOARDS);
  const rng = createRandom("engine-cubes");
  const cases: Array<{ g: Generated; fixed: Placement[]; order: (typeof ENGINE_ORDERS)[number] }> = [];
  let contradicting = 0;
  boards.forEach((g, i) => {
    for (const planted of [true, false]) {
      const fixed = cube(g, rng, 1 + rng.nextInt(3), planted);
      if (engineProblem(g.puzzle, fixed) === null) {
        // Contradicting placements (an arbitrary one on a hint's cell or piece): the oracle agrees there is nothing.
        assert.deepEqual(searchPlacements(g.puzzle, { fixed, findAll: true }), { kind: "unsat", nodes: 0 }, g.puzzle.name);
        contradicting++;
        continue;
      }
      cases.push({ g, fixed, order: ENGINE_ORDERS[(i + (planted ? 0 : 3)) % ENGINE_ORDERS.length] });
    }
  });
  const wants = cases.map((c) => oracleCount(c.g.puzzle, c.fixed));
  assert.ok(wants.filter((w) => w === 0).length >= cases.length / 4, "some cubes are unsat");
  assert.ok(wants.filter((w) => w > 1).length >= cases.length / 10, "some cubes have several solutions");
  assert.ok(contradicting < cases.length / 4);
  await pool(cases, PARALLEL, async ({ g, fixed, order }, i) => {
    const what = `${g.puzzle.name} fixed ${JSON.stringify(fixed)} order ${order}`;
    assert.equal(await engineCount(g.puzzle, fixed, { order }, what), wants[i], what);
  });
});

/** The same puzzle with every non-grey colour c renumbered by `f` (the structure, and so the count, is unchanged). */
function recoloured(p: Puzzle, f: (c: number) => number, tag: string): Puzzle {
  return { ...p, name: `${p.name}-${tag}`, pieces: p.pieces.map((x) => ({ ...x, edges: x.edges.map((c) => (c === 0 ? 0 : f(c))) as unknown as Edges })) };
}

test("engine counts - with colour numbers up to 255 (fewer keyed sides, the rest compared per candidate) they still equal the oracle's", { timeout: 120_000 }, async () => {
  // Above 161 colours a table keys at most two sides (162^3 > 2^22 buckets): cells with three or four placed
  // neighbours then compare one or two sides per candidate.
  const rng = createRandom("engine-many-colours");
  const cases: Array<{ p: Puzzle; fixed: Placement[]; order: (typeof ENGINE_ORDERS)[number] }> = [];
  smallBoards(12).forEach((g, i) => {
    const p = i % 2 ? recoloured(g.puzzle, (c) => 256 - c, "high") : recoloured(g.puzzle, (c) => 161 + c, "k162");
    for (const order of ENGINE_ORDERS) cases.push({ p, fixed: [], order });
    cases.push({ p, fixed: cube({ puzzle: p, solution: g.solution }, rng, 2, true), order: ENGINE_ORDERS[i % ENGINE_ORDERS.length] });
  });
  const wants = cases.map((c) => oracleCount(c.p, c.fixed));
  assert.ok(wants.filter((w) => w > 1).length >= cases.length / 4, "several boards with many solutions");
  await pool(cases, PARALLEL, async ({ p, fixed, order }, i) => {
    const what = `${p.name} fixed ${JSON.stringify(fixed)} order ${order}`;
    assert.equal(await engineCount(p, fixed, { order, seed: i % 2 }, what), wants[i], what);
  });
});

// ---- 2. printed boards ----

test("engine printAll - every board printed verifies, keeps the fixed cells, and no two are the same board", { timeout: 120_000 }, async () => {
  const rng = createRandom("engine-print");
  const cases: Array<{ p: Puzzle; fixed: Placement[]; want: number }> = [];
  for (const g of smallBoards(BOARDS)) {
    const want = oracleCount(g.puzzle);
    if (want <= 3_000 && cases.length < 40) cases.push({ p: g.puzzle, fixed: [], want });
    if (cases.length < 50 && g.puzzle.rows * g.puzzle.cols >= 9) {
      const fixed = cube(g, rng, 1, true);
      if (engineProblem(g.puzzle, fixed) !== null) cases.push({ p: g.puzzle, fixed, want: oracleCount(g.puzzle, fixed) });
    }
  }
  assert.ok(cases.reduce((s, c) => s + c.want, 0) >= 2_000, "enough boards printed");
  await pool(cases, PARALLEL, async ({ p, fixed, want }, i) => {
    const order = ENGINE_ORDERS[i % ENGINE_ORDERS.length];
    const what = `${p.name} fixed ${JSON.stringify(fixed)} order ${order}`;
    const reported: Placement[][] = [];
    const o = await engine(p, fixed, { order, seed: i % 2, count: true, printAll: true, onBoard: (b) => reported.push(b) });
    assert.equal(o.kind, "sat", what);
    if (o.kind !== "sat") return;
    assert.equal(o.boards.length, want, what);
    assert.equal(o.stats.solutions, want, what);
    assert.deepEqual(reported, o.boards, what);
    assert.deepEqual(o.board, o.boards[0], what);
    const seen = new Set<string>();
    for (const b of o.boards) {
      assertSolution(p, b, fixed, what);
      const s = signature(p, b);
      assert.ok(!seen.has(s), `${what}: board printed twice: ${s}`);
      seen.add(s);
    }
  });
  // Without count, printAll prints the first board only.
  const g = smallBoards(9)[8];
  const one = await engine(g.puzzle, [], { printAll: true });
  assert.ok(one.kind === "sat" && one.boards.length === 1 && one.stats.solutions === 1 && one.stats.end === "solution-limit");
});

// ---- 3. partitions ----

/** Counts of parts 0..n-1 (their boards' signatures too, with `print`). */
async function partCounts(p: Puzzle, fixed: readonly Placement[], n: number, options: EngineOptions, print = false): Promise<{ counts: number[]; boards: string[][] }> {
  const counts: number[] = new Array(n).fill(0);
  const boards: string[][] = Array.from({ length: n }, () => []);
  await pool(Array.from({ length: n }, (_, k) => k), PARALLEL, async (k) => {
    const o = await engine(p, fixed, { ...options, count: true, printAll: print, part: { k, n, depth: options.part?.depth } });
    assert.notEqual(o.kind, "unknown");
    counts[k] = o.stats.solutions;
    if (o.kind === "sat") for (const b of o.boards) boards[k].push(signature(p, b));
  });
  return { counts, boards };
}

test("engine partitions - the parts' counts sum to the whole count for 2, 3 and 5 parts at every partition depth", { timeout: 180_000 }, async () => {
  const many = generatePuzzle({ rows: 3, cols: 3, centerColors: 2, seed: 1, unbounded: true }); // 44,144 solutions
  const frame = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 }); // 672
  const wide = generatePuzzle({ rows: 3, cols: 5, borderColors: 2, centerColors: 1, seed: 5 });
  const cases: Array<{ p: Puzzle; fixed: Placement[]; order: (typeof ENGINE_ORDERS)[number]; seed: number; depths: (positions: number) => Array<number | undefined> }> = [
    { p: many.puzzle, fixed: [], order: "short", seed: 0, depths: (n) => [undefined, 0, 2, n - 1, n + 10] },
    { p: frame.puzzle, fixed: [], order: "spiral", seed: 5, depths: (n) => [undefined, 1, 3, n - 1, n + 10] },
    { p: wide.puzzle, fixed: placementsOf(wide.solution, [7]), order: "border", seed: 0, depths: (n) => [undefined, 2, n - 2] },
    { p: UNSAT5, fixed: [], order: "long", seed: 2, depths: () => [undefined, 1, 4] },
  ];
  for (const { p, fixed, order, seed, depths } of cases) {
    const total = oracleCount(p, fixed);
    const positions = p.rows * p.cols - fixed.length;
    for (const n of [2, 3, 5]) {
      for (const depth of depths(positions)) {
        const what = `${p.name} order ${order} seed ${seed} n ${n} depth ${depth ?? "auto"}`;
        const { counts } = await partCounts(p, fixed, n, { order, seed, part: { k: 0, n, depth } });
        assert.equal(counts.reduce((a, b) => a + b, 0), total, `${what}: ${counts.join(" + ")}`);
      }
    }
  }
});

test("engine partitions - parts print disjoint sets of boards whose union is every board", { timeout: 60_000 }, async () => {
  const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
  const all = await engine(g.puzzle, [], { count: true, printAll: true });
  assert.ok(all.kind === "sat");
  const everything = new Set(all.kind === "sat" ? all.boards.map((b) => signature(g.puzzle, b)) : []);
  for (const [n, depth] of [[3, undefined], [5, 2]] as const) {
    const { boards } = await partCounts(g.puzzle, [], n, { order: "row", part: { k: 0, n, depth } }, true);
    const union = new Set<string>();
    for (const part of boards) for (const s of part) {
      assert.ok(!union.has(s), `n ${n}: a board in two parts`);
      union.add(s);
    }
    assert.deepEqual([...union].sort(), [...everything].sort());
  }
});

test("engine partitions - a cube with no or one free cell is counted once over all parts", async () => {
  const g = generatePuzzle({ rows: 3, cols: 3, borderColors: 1, centerColors: 2, seed: 4 });
  const cells = Array.from({ length: 9 }, (_, c) => c);
  for (const free of [0, 1, 2]) {
    const fixed = placementsOf(g.solution, cells.slice(0, 9 - free));
    const total = oracleCount(g.puzzle, fixed);
    assert.equal(total, 1);
    for (const n of [2, 3]) {
      const { counts } = await partCounts(g.puzzle, fixed, n, { part: { k: 0, n } });
      assert.equal(counts.reduce((a, b) => a + b, 0), total, `${free} free cells, ${n} parts: ${counts.join(" + ")}`);
      const found = await Promise.all(Array.from({ length: n }, (_, k) => engine(g.puzzle, fixed, { part: { k, n } })));
      assert.equal(found.filter((o) => o.kind === "sat").length, 1, `${free} free cells, ${n} parts: ${found.map((o) => o.kind).join(" ")}`);
    }
  }
});

// ---- 4. fixed placements that cannot be ----

test("engine fixed cells - placements against the rim or each other are UNSAT with 0 nodes, as the oracle says", async () => {
  const g = generatePuzzle({ rows: 3, cols: 3, borderColors: 2, centerColors: 2, seed: 21 });
  const p = g.puzzle, sol = g.solution;
  const at = (cell: number): Placement => placementsOf(sol, [cell])[0];
  const u = generatePuzzle({ rows: 2, cols: 3, centerColors: 3, seed: 2, unbounded: true });
  // A piece and rotation for cell 1 that fits the rim but not the planted piece at cell 0.
  const clash = (() => {
    const need = rotatedEdge(p.pieces[at(0).piece].edges, at(0).rot, 1);
    for (let piece = 0; piece < p.pieces.length; piece++) {
      for (let rot = 0; rot < 4; rot++) {
        const e = rotateEdges(p.pieces[piece].edges, rot);
        if (piece !== at(0).piece && e[0] === 0 && e[1] !== 0 && e[2] !== 0 && e[3] !== 0 && e[3] !== need) return { cell: 1, piece, rot };
      }
    }
    return null;
  })();
  assert.ok(clash !== null);
  const uClash = (() => {
    const need = rotatedEdge(u.puzzle.pieces[u.solution.cells[0]!.piece].edges, u.solution.cells[0]!.rot, 1);
    for (let piece = 0; piece < 6; piece++) for (let rot = 0; rot < 4; rot++) {
      if (piece !== u.solution.cells[0]!.piece && rotatedEdge(u.puzzle.pieces[piece].edges, rot, 3) !== need) return { cell: 1, piece, rot };
    }
    return null;
  })();
  assert.ok(uClash !== null);
  const cases: Array<[string, Puzzle, Placement[], RegExp]> = [
    ["a corner piece in the centre", p, [{ ...at(0), cell: 4 }], /^c fixed piece \d+ at cell 4 does not fit the rim$/m],
    ["the centre piece in a corner", p, [{ ...at(4), cell: 8 }], /^c fixed piece \d+ at cell 8 does not fit the rim$/m],
    ["a corner piece turned", p, [{ ...at(0), rot: (at(0).rot + 1) & 3 }], /^c fixed piece \d+ at cell 0 does not fit the rim$/m],
    ["a border piece in a corner", p, [{ ...at(1), cell: 2 }], /does not fit the rim/],
    ["two neighbours that differ", p, [at(0), clash], /^c fixed pieces at cells (0 and 1|1 and 0) do not match$/m],
    ["unbounded neighbours that differ", u.puzzle, [placementsOf(u.solution, [0])[0], uClash], /^c fixed pieces at cells (0 and 1|1 and 0) do not match$/m],
    ["a hint and a cube that differ", { ...p, hints: [{ row: 0, col: 0, ...sol.cells[0]! }] }, [clash], /do not match/],
  ];
  for (const [what, puzzle, fixed, message] of cases) {
    assert.deepEqual(searchPlacements(puzzle, { fixed }), { kind: "unsat", nodes: 0 }, `oracle: ${what}`);
    for (const options of [{}, { count: true }, { restartBase: 10, seed: 3 }, { part: { k: 1, n: 2 } }] as EngineOptions[]) {
      const o = await engine(puzzle, fixed, options);
      assert.equal(o.kind, "unsat", what);
      assert.equal(o.stats.nodes, 0, what);
      assert.equal(o.stats.end, "exhausted", what);
    }
    const r = await runDirect([], problem(puzzle, fixed));
    assert.equal(r.code, 20, what);
    assert.match(r.stdout, message, what);
    assert.match(r.stdout, /^s UNSATISFIABLE$/m);
  }
  // The unbounded board has no rim: any piece in any rotation may sit in a corner, and nothing is refuted up front.
  for (let rot = 0; rot < 4; rot++) {
    const fixed = [{ cell: 0, piece: 0, rot }];
    assert.equal(await engineCount(u.puzzle, fixed, {}, `unbounded, piece 0 turned ${rot} in the corner`), oracleCount(u.puzzle, fixed));
  }
});

test("engine fixed cells - contradicting placements have no problem text, and the oracle agrees there is nothing", () => {
  const g = generatePuzzle({ rows: 3, cols: 3, borderColors: 2, centerColors: 2, seed: 21 });
  const sol = placementsOf(g.solution, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  const hinted: Puzzle = { ...g.puzzle, hints: [{ row: 1, col: 1, ...g.solution.cells[4]! }] };
  const cases: Array<[string, Puzzle, Placement[]]> = [
    ["the same piece twice", g.puzzle, [sol[0], { ...sol[0], cell: 8 }]],
    ["the same cell twice, different pieces", g.puzzle, [sol[0], { ...sol[1], cell: 0 }]],
    ["the same cell twice, different rotations", g.puzzle, [sol[0], { ...sol[0], rot: (sol[0].rot + 2) & 3 }]],
    ["a cube against a hint's cell", hinted, [{ ...sol[0], cell: 4 }]],
    ["a cube against a hint's piece", hinted, [{ ...sol[4], cell: 0 }]],
  ];
  for (const [what, p, fixed] of cases) {
    assert.equal(engineProblem(p, fixed), null, what);
    assert.deepEqual(searchPlacements(p, { fixed }), { kind: "unsat", nodes: 0 }, `oracle: ${what}`);
  }
  // The same placement twice, or a hint repeated by the cube, is no contradiction.
  assert.notEqual(engineProblem(hinted, [sol[0], sol[0], sol[4]]), null);
});
