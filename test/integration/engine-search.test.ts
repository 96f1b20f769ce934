/**
 * The native placement engine's search options against the oracle (test/helpers/engine-oracle.ts): restarts keep
 * answers exact, and symmetry breaking (the pinned corner piece) keeps every solvable board solvable and covers the
 * space with parts and cubes.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { generatePuzzle } from "../../core/generate.js";
import { equivalentPieces, rotatedEdge, type Puzzle } from "../../core/puzzle.js";
import { createRandom } from "../../core/random.js";
import { ENGINE_ORDERS } from "../../worker/engine/index.js";
import { fixture, PARALLEL, UNSAT5, UNSAT6, problem, engine, pool, signature, assertSolution, oracleCount, engineCount, placementsOf, mirrored, runDirect, pinnedCorner } from "../helpers/engine-oracle.js";

// ---- 1. restarts ----

test("engine restarts - with a small restart base and any seed, unsat stays proved unsat and sat finds a verified board", { timeout: 120_000 }, async () => {
  const unsat = [UNSAT5, UNSAT6];
  for (const [rows, cols, seed] of [[4, 4, 3], [4, 5, 8], [5, 4, 2]] as const) {
    const g = generatePuzzle({ rows, cols, borderColors: 2, centerColors: 4, seed });
    const m = g.puzzle.pieces.map((_, piece) => mirrored(g.puzzle, piece)).find((x) => {
      const r = searchPlacements(x, { nodeLimit: 300_000 });
      return r.kind === "unsat" && r.nodes > 500;
    });
    assert.ok(m, `no unsat mirror of ${g.puzzle.name}`);
    unsat.push(m);
  }
  const sat = [fixture("brendan/pieces_04x04.txt"), fixture("brendan/pieces_05x05.txt"), fixture("brendan/pieces_06x06.txt"), fixture("clues/clue1.txt"), generatePuzzle({ rows: 5, cols: 7, borderColors: 2, centerColors: 3, seed: 9 }).puzzle];
  // Luby budgets cost about log(proof) passes: the 6x6's spiral-order proof (42 M nodes) would take a minute, so it
  // gets the line orders (2.6 M nodes with restarts).
  const runs = [...unsat, ...sat].flatMap((p, k) => [0, 1, 2, 7, 1234567].map((seed, i) => ({ p, seed, order: ENGINE_ORDERS[(i + k) % (p === UNSAT6 ? 4 : 6)] })));
  await pool(runs, PARALLEL, async ({ p, seed, order }) => {
    const what = `${p.name} seed ${seed} order ${order}`;
    const o = await engine(p, [], { restartBase: 50, seed, order });
    if (unsat.includes(p)) {
      assert.equal(o.kind, "unsat", what);
      assert.equal(o.stats.end, "exhausted", what);
      assert.ok(o.stats.restarts > 0, `${what}: no restart happened`);
    } else {
      assert.equal(o.kind, "sat", what);
      if (o.kind === "sat") assertSolution(p, o.board, [], what);
    }
  });
});

test("engine restarts - counting never restarts, so a count with a restart base is still exact", async () => {
  const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
  const want = oracleCount(g.puzzle);
  for (const seed of [0, 1, 5]) {
    const o = await engine(g.puzzle, [], { count: true, restartBase: 3, seed, printAll: true });
    assert.ok(o.kind === "sat");
    if (o.kind !== "sat") return;
    assert.equal(o.stats.solutions, want, `seed ${seed}`);
    assert.equal(new Set(o.boards.map((b) => signature(g.puzzle, b))).size, want, `seed ${seed}: boards repeated`);
    assert.equal(o.stats.restarts, 0);
  }
});

// ---- 2. symmetry breaking ----

test("engine symmetry - finds a verified board whenever there is one (square and oblong boards), proves unsat boards unsat", { timeout: 120_000 }, async () => {
  const rng = createRandom("engine-symmetry");
  const sizes = [[2, 2], [3, 3], [4, 4], [5, 5], [6, 6], [2, 3], [3, 2], [3, 5], [5, 3], [4, 6], [6, 4], [2, 6]] as const;
  const cases: Array<{ p: Puzzle; sat: boolean }> = [];
  let pinned = 0, undecided = 0;
  for (let i = 0; i < 72; i++) {
    const [rows, cols] = sizes[i % sizes.length];
    const g = generatePuzzle({ rows, cols, borderColors: 1 + rng.nextInt(3), centerColors: 1 + rng.nextInt(4), seed: 500 + i });
    cases.push({ p: g.puzzle, sat: true });
    // A mirrored piece usually makes the board unsat; refuting a large one can take long in some scan orders.
    const m = mirrored(g.puzzle, rng.nextInt(rows * cols));
    if (rows * cols > 25) continue;
    const r = searchPlacements(m, { nodeLimit: 2_000_000 });
    if (r.kind === "unknown") undecided++;
    else cases.push({ p: m, sat: r.kind === "sat" });
  }
  assert.ok(undecided <= 2, `${undecided} boards the oracle could not decide`);
  cases.push({ p: UNSAT5, sat: false }, { p: UNSAT6, sat: false });
  assert.ok(cases.filter((c) => !c.sat).length >= 20, "unsat boards in the table");
  await pool(cases, PARALLEL, async ({ p, sat }, i) => {
    const order = ENGINE_ORDERS[i % ENGINE_ORDERS.length];
    const what = `${p.name} order ${order}`;
    const o = await engine(p, [], { symmetry: true, order, seed: i % 3 });
    assert.equal(o.kind, sat ? "sat" : "unsat", what);
    if (o.kind !== "sat") return;
    assertSolution(p, o.board, [], what);
    // The pinned corner piece lies top-left on a square board; on an oblong one top-left or at the end of the
    // scan's first line (top-right along rows, bottom-left along columns).
    const corner = pinnedCorner(p);
    if (corner === null) return;
    pinned++;
    const cell = o.board.find((x) => x.piece === corner)!.cell;
    const byCols = order === "col" || ((order === "short" || order === "mcf") && p.cols > p.rows) || (order === "long" && p.rows >= p.cols);
    const second = byCols ? (p.rows - 1) * p.cols : p.cols - 1;
    assert.ok(p.rows === p.cols ? cell === 0 : cell === 0 || cell === second, `${what}: corner piece ${corner} at cell ${cell}`);
  });
  assert.ok(pinned >= 25, `only ${pinned} boards had a pinned corner`);
});

test("engine symmetry - a cube (fixed cells) with the corner piece anywhere is searched whole: still solved", async () => {
  let tried = 0;
  for (let seed = 1; tried < 6 && seed < 200; seed++) {
    const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 3, centerColors: 3, seed });
    const corner = pinnedCorner(g.puzzle);
    if (corner === null) continue;
    const cell = g.solution.cells.findIndex((c) => c?.piece === corner);
    if (cell === 0) continue;
    tried++;
    const fixed = placementsOf(g.solution, [cell]);
    for (const p of [g.puzzle, { ...g.puzzle, hints: [{ row: Math.floor(cell / 4), col: cell % 4, ...g.solution.cells[cell]! }] }]) {
      const what = `${g.puzzle.name}: corner ${p.hints.length ? "hinted" : "fixed"} at cell ${cell}`;
      const o = await engine(p, p.hints.length ? [] : fixed, { symmetry: true });
      assert.equal(o.kind, "sat", what);
      if (o.kind === "sat") assertSolution(p, o.board, p.hints.length ? [] : fixed, what);
    }
  }
  assert.equal(tried, 6);
});

test("engine symmetry - the corner piece free, its corner taken by a cube's piece: nothing left to search; not so without symmetry", async () => {
  let tried = 0;
  for (let seed = 1; tried < 4 && seed < 200; seed++) {
    const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 3, seed });
    const corner = pinnedCorner(g.puzzle);
    if (corner === null) continue;
    // Another corner piece top-left: the solution turned until it is there.
    const other = g.puzzle.pieces.findIndex((x, i) => i !== corner && x.edges.filter((c) => c === 0).length === 2);
    const rot = [0, 1, 2, 3].find((r) => rotatedEdge(g.puzzle.pieces[other].edges, r, 0) === 0 && rotatedEdge(g.puzzle.pieces[other].edges, r, 3) === 0)!;
    const fixed = [{ cell: 0, piece: other, rot }];
    const sym = await engine(g.puzzle, fixed, { symmetry: true });
    assert.equal(sym.kind, "unsat", `${g.puzzle.name}: corner ${corner} has nowhere to go`);
    assert.equal(sym.stats.nodes, 0);
    const plain = await engine(g.puzzle, fixed, {});
    assert.notEqual(plain.stats.nodes, 0, `${g.puzzle.name}: searched without symmetry`);
    tried++;
  }
  assert.equal(tried, 4);
});

test("engine symmetry - a corner piece with a copy first in piece order: the next corner piece without one is pinned, and an unsat square's tree is about a quarter", async () => {
  const isCorner = (x: Puzzle["pieces"][number]): boolean => x.edges.filter((c) => c === 0).length === 2;
  const twin = UNSAT5.pieces.findIndex((x, i) => isCorner(x) && UNSAT5.pieces.some((y, j) => j !== i && equivalentPieces(y.edges, x.edges)));
  assert.ok(twin >= 0, "the 5x5 fixture has a corner piece with a copy");
  // The same puzzle with that piece first: before, the engine then broke no symmetry at all.
  const pieces = [UNSAT5.pieces[twin], ...UNSAT5.pieces.filter((_, i) => i !== twin)];
  const p: Puzzle = { ...UNSAT5, name: `${UNSAT5.name}-twin-first`, pieces };
  assert.notEqual(pinnedCorner(p), 0);
  assert.notEqual(pinnedCorner(p), null);
  const sym = await engine(p, [], { symmetry: true });
  const plain = await engine(p, [], {});
  assert.deepEqual([sym.kind, plain.kind], ["unsat", "unsat"]);
  assert.ok(sym.stats.nodes * 2.5 < plain.stats.nodes, `${sym.stats.nodes} placements with symmetry, ${plain.stats.nodes} without`);
  // The split follows the same rule: its cubes exhaust exactly the engine's --symmetry scan.
  const split = scanSplit(p, { targetCubes: 16, symmetry: true });
  let nodes = split.stats.nodes;
  for (const cube of split.cubes) nodes += (await engine(p, cube.placements, { symmetry: true })).stats.nodes;
  assert.equal(nodes, sym.stats.nodes);
});

test("engine symmetry - with parts the space is still covered, and a count ignores it (the engine refuses both together)", async () => {
  const sat = generatePuzzle({ rows: 4, cols: 5, borderColors: 2, centerColors: 3, seed: 77 }).puzzle;
  for (const [p, want] of [[sat, "sat"], [UNSAT6, "unsat"]] as const) {
    for (const n of [2, 3]) {
      const parts = await Promise.all(Array.from({ length: n }, (_, k) => engine(p, [], { symmetry: true, part: { k, n } })));
      const kinds = parts.map((o) => o.kind);
      if (want === "unsat") assert.deepEqual(kinds, new Array(n).fill("unsat"));
      else assert.ok(kinds.includes("sat") && !kinds.includes("unknown"), kinds.join(" "));
    }
  }
  const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
  assert.equal(await engineCount(g.puzzle, [], { symmetry: true }, "count with symmetry"), oracleCount(g.puzzle));
  const direct = await runDirect(["--symmetry", "--count"], problem(g.puzzle));
  assert.equal(direct.code, 2);
  assert.match(direct.stderr, /--symmetry would change a count; not with --count/);
});

