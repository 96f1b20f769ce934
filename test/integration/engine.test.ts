/**
 * The native placement engine (engine/*.c, dist/engine/cubist-engine) through its TypeScript runner
 * (worker/engine/runner.ts) and, for input, usage and signal handling, as a bare process.
 *
 * The oracle is the TypeScript placement search (core/cubes/search.ts): both count solutions up to swapping
 * identical pieces, with a symmetric piece's equal rotations counted once, so on every small board and cube the
 * two counts must be equal, in every scan order, with any seed. Every board the engine prints goes through the
 * verifier (core/verify.ts), which shares no code with either search. Puzzles come from the project's generator
 * (core/generate.ts, planted solutions) and the fixtures; all boards are small, so each run takes milliseconds.
 *
 * CUBIST_ENGINE_BOARDS scales the random-board table (default 80) for a longer soak (400: about three minutes).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { equivalentPieces, rotateEdges, rotatedEdge, type Board, type Edges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { createRandom, type Random } from "../../core/random.js";
import { verifySolution } from "../../core/verify.js";
import {
  ENGINE_ORDERS,
  EngineCrashedError,
  EngineNotFoundError,
  EngineOutputError,
  engineProblem,
  locateEngine,
  runEngine,
  type EngineOptions,
  type EngineOutcome,
} from "../../worker/engine/index.js";
import { assertGone, trackedEngine as trackedHelper } from "../helpers/engine.js";

const ENGINE = locateEngine();
const FIX = new URL("../fixtures/", import.meta.url);
const fixture = (rel: string): Puzzle => parsePuzzle(readFileSync(new URL(rel, FIX), "utf8"), rel);
const dir = mkdtempSync(join(tmpdir(), "cubist-engine-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const BOARDS = Number(process.env.CUBIST_ENGINE_BOARDS ?? 80);
const PARALLEL = 3;

// ---- helpers ----

const shapeOf = (p: Puzzle): { rows: number; cols: number; pieces: number } => ({ rows: p.rows, cols: p.cols, pieces: p.pieces.length });

function problem(p: Puzzle, fixed: readonly Placement[] = []): string {
  const text = engineProblem(p, fixed);
  assert.ok(text !== null, `${p.name}: the placements contradict each other`);
  return text;
}

function engine(p: Puzzle, fixed: readonly Placement[], options: EngineOptions = {}): Promise<EngineOutcome> {
  return runEngine(problem(p, fixed), shapeOf(p), options);
}

/** Runs `fn` over `items`, `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

function toBoard(p: Puzzle, placements: readonly Placement[]): Board {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(p.rows * p.cols).fill(null);
  for (const x of placements) cells[x.cell] = { piece: x.piece, rot: x.rot };
  return { rows: p.rows, cols: p.cols, cells };
}

/** A board's placed colours cell by cell: equal exactly for boards equal up to swapping identical pieces. */
function signature(p: Puzzle, placements: readonly Placement[]): string {
  return placements.map((x) => [0, 1, 2, 3].map((d) => rotatedEdge(p.pieces[x.piece].edges, x.rot, d)).join(",")).join(" ");
}

/** Asserts that `placements` is a verified solution of `p` that keeps `fixed`. */
function assertSolution(p: Puzzle, placements: readonly Placement[], fixed: readonly Placement[], what: string): void {
  assert.deepEqual(verifySolution(p, toBoard(p, placements)), { ok: true }, what);
  for (const f of fixed) {
    const got = placements[f.cell];
    assert.ok(got.piece === f.piece && got.rot === f.rot, `${what}: fixed ${JSON.stringify(f)} not kept, got ${JSON.stringify(got)}`);
  }
}

/** The oracle's exact count (0 when unsat). */
function oracleCount(p: Puzzle, fixed: readonly Placement[] = []): number {
  const r = searchPlacements(p, { fixed, findAll: true });
  assert.notEqual(r.kind, "unknown", `${p.name}: the oracle gave up`);
  if (r.kind === "sat") {
    assert.ok(r.complete, `${p.name}: the oracle's count is not complete`);
    return r.solutions;
  }
  return 0;
}

/** The engine's exact count (0 when unsat); a sat answer's board is verified. */
async function engineCount(p: Puzzle, fixed: readonly Placement[], options: EngineOptions, what: string): Promise<number> {
  const o = await engine(p, fixed, { ...options, count: true });
  if (o.kind === "unknown") assert.fail(`${what}: unknown (${o.reason})`);
  assert.equal(o.stats.end, "exhausted", what);
  if (o.kind === "unsat") {
    assert.equal(o.stats.solutions, 0, what);
    return 0;
  }
  assertSolution(p, o.board, fixed, what);
  return o.stats.solutions;
}

const placementsOf = (b: Board, cells: readonly number[]): Placement[] => cells.map((cell) => ({ cell, piece: b.cells[cell]!.piece, rot: b.cells[cell]!.rot }));

function hasIdentical(p: Puzzle): boolean {
  return p.pieces.some((a, i) => p.pieces.some((b, j) => j > i && equivalentPieces(a.edges, b.edges)));
}

function hasSymmetric(p: Puzzle): boolean {
  return p.pieces.some((x) => [1, 2].some((r) => rotateEdges(x.edges, r).every((c, d) => c === x.edges[d])));
}

/** The puzzle with one piece mirrored (N E S W -> N W S E): usually no longer solvable. */
function mirrored(p: Puzzle, piece: number): Puzzle {
  const [n, e, s, w] = p.pieces[piece].edges;
  return { ...p, name: `${p.name}-mirror${piece}`, pieces: p.pieces.map((x, i) => (i === piece ? { ...x, edges: [n, w, s, e] as Edges } : x)) };
}

interface Generated {
  puzzle: Puzzle;
  solution: Board;
}

const BOUNDED_SIZES = [[2, 2], [2, 3], [3, 2], [3, 3], [2, 4], [4, 2], [3, 4], [4, 3], [4, 4], [3, 5], [5, 3]] as const;
// Unbounded boards with two or three colours have 10^4..10^6 solutions from 3x4 up: keep them at 9 cells or fewer.
const UNBOUNDED_SIZES = [[2, 2], [2, 3], [3, 2], [3, 3], [2, 4], [4, 2]] as const;

/** The random-board table: bounded boards with 1-2 frame and 1-3 centre colours, every fourth unbounded, every third with hints. */
function smallBoards(n: number): Generated[] {
  const rng = createRandom("engine-small-boards");
  const out: Generated[] = [];
  for (let i = 0; i < n; i++) {
    const unbounded = i % 4 === 3;
    const [rows, cols] = unbounded ? UNBOUNDED_SIZES[(i >> 2) % UNBOUNDED_SIZES.length] : BOUNDED_SIZES[i % BOUNDED_SIZES.length];
    const g = generatePuzzle({
      rows,
      cols,
      unbounded,
      borderColors: unbounded ? undefined : 1 + rng.nextInt(2),
      centerColors: 1 + rng.nextInt(3),
      seed: 1000 + i,
    });
    let puzzle = g.puzzle;
    if (i % 3 === 1) {
      const cells = rng.shuffle(Array.from({ length: rows * cols }, (_, c) => c)).slice(0, 1 + rng.nextInt(2));
      const hints = cells.map((cell) => ({ row: Math.floor(cell / cols), col: cell % cols, ...g.solution.cells[cell]! }));
      puzzle = { ...puzzle, name: `${puzzle.name}-hints${cells.join("+")}`, hints };
    }
    out.push({ puzzle, solution: g.solution });
  }
  return out;
}

/** A cube's placements: `k` cells of the planted solution (`planted`), or arbitrary cells, pieces and rotations. */
function cube(g: Generated, rng: Random, k: number, planted: boolean): Placement[] {
  const cells = g.puzzle.rows * g.puzzle.cols;
  const where = rng.shuffle(Array.from({ length: cells }, (_, c) => c)).slice(0, k);
  if (planted) return placementsOf(g.solution, where);
  const pieces = rng.shuffle(Array.from({ length: cells }, (_, c) => c)).slice(0, k);
  return where.map((cell, i) => ({ cell, piece: pieces[i], rot: rng.nextInt(4) }));
}

interface Direct {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the engine binary itself with `args` and `stdin`; SIGKILL after `timeoutMs` (a hang fails the test). */
function runDirect(args: readonly string[], stdin: string | Buffer, timeoutMs = 10_000): Promise<Direct> {
  return new Promise((resolve, reject) => {
    const child = spawn(ENGINE, args, { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.on("error", () => {});
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cubist-engine ${args.join(" ")} hung; stdout so far: ${stdout.slice(-500)}`));
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(stdin);
  });
}

/** An engine wrapper that records its pid (the engine's: it execs) in a file, for checking that no process is left. */
function trackedEngine(name: string): { binary: string; pids(): number[] } {
  return trackedHelper(dir, name);
}

const E2 = fixture("eternity2/e2_pieces.txt"); // 16x16: never finishes, for limits and stops
const UNSAT5 = fixture("cluster/unsat-5x5.txt"); // ~2,700 nodes to refute
const UNSAT6 = fixture("cluster/unsat-6x6.txt"); // ~170,000 nodes to refute

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

// ---- 4. restarts ----

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

// ---- 5. symmetry breaking ----

/** The first piece with two grey sides that no other piece is identical to (the one the engine pins). */
function pinnedCorner(p: Puzzle): number | null {
  const first = p.pieces.findIndex((x, i) => x.edges.filter((c) => c === 0).length === 2 && !p.pieces.some((y, j) => j !== i && equivalentPieces(y.edges, x.edges)));
  return first < 0 ? null : first;
}

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

// ---- 6. limits, stops and signals ----

test("engine limits - a node limit and a time limit end in unknown with their reason; a solution limit ends a count", async () => {
  const nodes = await engine(E2, [], { nodeLimit: 5_000 });
  assert.equal(nodes.kind, "unknown");
  if (nodes.kind === "unknown") assert.equal(nodes.reason, "node-limit");
  assert.equal(nodes.stats.end, "node-limit");
  assert.equal(nodes.stats.nodes, 5_000);

  // With restarts the limit counts every pass's placements.
  const restarting = await engine(UNSAT6, [], { nodeLimit: 10_000, restartBase: 50, seed: 4 });
  assert.deepEqual([restarting.kind, restarting.stats.end, restarting.stats.nodes], ["unknown", "node-limit", 10_000]);
  assert.ok(restarting.stats.restarts > 0);

  // A limit larger than the search needs changes nothing.
  assert.equal((await engine(UNSAT5, [], { nodeLimit: 1_000_000 })).kind, "unsat");
  assert.equal((await engine(UNSAT5, [], { nodeLimit: 100 })).kind, "unknown");

  const time = await engine(E2, [], { timeLimitMs: 300 });
  assert.equal(time.kind, "unknown");
  if (time.kind === "unknown") assert.equal(time.reason, "time-limit");
  assert.equal(time.stats.end, "time-limit");
  assert.ok(time.stats.seconds >= 0.3 && time.stats.seconds < 2, `seconds ${time.stats.seconds}`);
  assert.ok(time.stats.wallMs < 5_000 && time.stats.nodes > 0);

  const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
  const some = await engine(g.puzzle, [], { count: true, solutionLimit: 5, printAll: true });
  assert.equal(some.kind, "sat");
  assert.equal(some.stats.end, "solution-limit");
  assert.equal(some.stats.solutions, 5);
  if (some.kind === "sat") assert.equal(some.boards.length, 5);
});

test("engine stop - an abort stops the run promptly as 'aborted' with its statistics, and leaves no process", async () => {
  const tracked = trackedEngine("abort");
  const stop = new AbortController();
  const progress: number[] = [];
  let abortedAt = 0;
  const o = await engine(E2, [], {
    binary: tracked.binary,
    signal: stop.signal,
    progressMs: 20,
    onProgress: (p) => {
      progress.push(p.nodes);
      assert.equal(p.of, 256);
      if (progress.length === 3) {
        abortedAt = performance.now();
        stop.abort();
      }
    },
  });
  const took = performance.now() - abortedAt;
  assert.equal(o.kind, "unknown");
  if (o.kind === "unknown") assert.equal(o.reason, "aborted");
  assert.ok(took < 900, `stopped ${took} ms after the abort (the grace period is 1000 ms)`);
  assert.equal(o.stats.end, "stopped", "the engine printed its statistics on SIGTERM");
  assert.ok(o.stats.nodes >= progress[2] && o.stats.depth > 0 && o.stats.of === 256);
  assert.deepEqual([...progress].sort((a, b) => a - b), progress, "progress only grows");
  assert.equal(tracked.pids().length, 1);
  await assertGone(tracked.pids());

  // Aborted before the start: no process at all.
  const pre = trackedEngine("pre-aborted");
  const none = await engine(E2, [], { binary: pre.binary, signal: AbortSignal.abort() });
  assert.deepEqual([none.kind, none.kind === "unknown" && none.reason], ["unknown", "aborted"]);
  assert.deepEqual(pre.pids(), []);
});

test("engine stop - a process that ignores SIGTERM is killed after the grace period; nothing is left", async () => {
  const pidFile = join(dir, "deaf.pids");
  const binary = join(dir, "deaf.sh");
  writeFileSync(binary, `#!/bin/sh\ntrap '' TERM\necho $$ >> "${pidFile}"\nsleep 30 &\nwait\n`);
  chmodSync(binary, 0o755);
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 200);
  const started = performance.now();
  const o = await engine(E2, [], { binary, signal: stop.signal, killGraceMs: 300 });
  const took = performance.now() - started;
  assert.deepEqual([o.kind, o.kind === "unknown" && o.reason], ["unknown", "aborted"]);
  assert.ok(took >= 450 && took < 5_000, `settled after ${took} ms`);
  const pids = readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number);
  await assertGone(pids);
});

test("engine signals - SIGTERM and SIGINT make the engine print its statistics and exit 0 with UNKNOWN", async () => {
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    const child = spawn(ENGINE, ["--progress-ms", "20"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    const progressed = new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("c progress")) resolve();
    }));
    child.stdin.end(problem(E2));
    await progressed;
    child.kill(sig);
    const { code, signal } = await closed;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, sig);
    const lines = out.split("\n");
    assert.ok(lines.includes("s UNKNOWN"), out);
    assert.ok(lines.includes("c end stopped"), out);
    const nodes = Number(lines.find((l) => l.startsWith("c nodes "))?.slice(8));
    assert.ok(nodes > 0, out);
    assert.match(out, /^c depth \d+ of 256$/m);
    assert.doesNotMatch(out, /^v /m);
  }
});

test("engine runner - a SIGTERM from elsewhere is 'interrupted', a SIGKILL a crash; a missing binary is EngineNotFoundError", async () => {
  for (const [sig, expect] of [["SIGTERM", "interrupted"], ["SIGKILL", "crash"]] as const) {
    const tracked = trackedEngine(`foreign-${sig}`);
    let sent = false;
    const run = engine(E2, [], {
      binary: tracked.binary,
      progressMs: 20,
      onProgress: () => {
        if (sent) return;
        sent = true;
        process.kill(tracked.pids()[0], sig);
      },
    });
    if (expect === "crash") {
      await assert.rejects(run, (err: unknown) => err instanceof EngineCrashedError && /killed by SIGKILL/.test(err.message));
    } else {
      const o = await run;
      assert.deepEqual([o.kind, o.kind === "unknown" && o.reason, o.stats.end], ["unknown", "interrupted", "stopped"]);
    }
    await assertGone(tracked.pids());
  }
  await assert.rejects(engine(UNSAT5, [], { binary: join(dir, "no-such-engine") }), EngineNotFoundError);
  assert.throws(() => locateEngine({ CUBIST_ENGINE: join(dir, "no-such-engine") }), /CUBIST_ENGINE names no executable file/);
  assert.equal(locateEngine({ CUBIST_ENGINE: ENGINE }), ENGINE);
});

test("engine runner - output that contradicts the exit code, or garbage, is an error, never an answer", async () => {
  const fake = (name: string, body: string): string => {
    const file = join(dir, `${name}.sh`);
    writeFileSync(file, `#!/bin/sh\ncat > /dev/null\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const board = Array.from({ length: 25 }, (_, c) => `${c} ${c} 0`).join(" ");
  const cases: Array<[string, string, (err: unknown) => boolean]> = [
    ["sat-exit-20", 'echo "s SATISFIABLE"; exit 20', (e) => e instanceof EngineCrashedError && /exit 20 with status 'sat'/.test(e.message)],
    ["sat-without-board", 'echo "s SATISFIABLE"; exit 10', (e) => e instanceof EngineCrashedError && /exit 10 with status 'sat'/.test(e.message)],
    ["unsat-exit-10", `echo "s UNSATISFIABLE"; echo "v ${board}"; exit 10`, (e) => e instanceof EngineCrashedError && /exit 10 with status 'unsat'/.test(e.message)],
    ["no-status", "exit 20", (e) => e instanceof EngineCrashedError && /status 'none'/.test(e.message)],
    ["exit-3", 'echo "boom" >&2; exit 3', (e) => e instanceof EngineCrashedError && /exit 3.*boom/.test(e.message)],
    ["garbage", 'echo "hello world"; exit 10', (e) => e instanceof EngineOutputError && /unexpected engine output line 'hello world'/.test(e.message)],
    ["short-board", 'echo "s SATISFIABLE"; echo "v 0 0 0"; exit 10', (e) => e instanceof EngineOutputError && /1 placements for 25 cells/.test(e.message)],
    ["segv", "kill -SEGV $$", (e) => e instanceof EngineCrashedError && /killed by SIGSEGV/.test(e.message)],
  ];
  for (const [name, body, check] of cases) await assert.rejects(engine(UNSAT5, [], { binary: fake(name, body) }), check, name);
  // A board the fake invents is passed on (whether it solves anything is the verifier's call) ...
  const o = await engine(UNSAT5, [], { binary: fake("invented", `echo "s SATISFIABLE"; echo "v ${board}"; exit 10`) });
  assert.equal(o.kind, "sat");
  // ... and the verifier rejects it.
  if (o.kind === "sat") assert.equal(verifySolution(UNSAT5, toBoard(UNSAT5, o.board)).ok, false);
});

// ---- 7. bad input ----

const TINY = "cubist-engine 1\n2 2\n0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n"; // the four corners of a 2x2, then the fixed count

test("engine input - a well-formed problem with comments, CRLF and blank lines is read", async () => {
  const text = "cubist-engine 1 # header\r\n\r\n# size\n2 2\n0 1 2 0   # a corner\n0 0 3 1\n\t2 4 0 0\n3 0 0 4\n1\n0 0 0 # fixed\n\n";
  const r = await runDirect([], text);
  assert.deepEqual([r.code, r.stderr], [10, ""]);
  assert.match(r.stdout, /^s SATISFIABLE\nv 0 0 0 1 1 0 2 2 0 3 3 0\n/);
});

test("engine input - malformed problems exit 1 with a message naming the line; runEngine throws EngineCrashedError with it", { timeout: 60_000 }, async () => {
  const big = "99999999999999999999999";
  const cases: Array<[string, string | Buffer, string]> = [
    ["empty", "", "line 1: expected the header 'cubist-engine 1'"],
    ["no header", "2 2\n0 1 2 0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["other version", TINY.replace("cubist-engine 1", "cubist-engine 2") + "0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["version 12 is not version 1", TINY.replace("cubist-engine 1\n2 2", "cubist-engine 12 2") + "0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["header only", "cubist-engine 1\n", "line 2: expected rows, found the end of the input"],
    ["rows 0", "cubist-engine 1\n0 2\n", "line 2: rows 0 out of range 1..64"],
    ["rows 65", "cubist-engine 1\n65 2\n", "line 2: rows 65 out of range 1..64"],
    ["negative cols", "cubist-engine 1\n2 -2\n", "line 2: cols -2 out of range 1..64"],
    ["huge rows", `cubist-engine 1\n${big} 2\n`, `line 2: rows '${big.slice(0, 20)}' out of range`],
    ["word for rows", "cubist-engine 1\ntwo 2\n", "line 2: expected rows, found 'two'"],
    ["number glued to a word", "cubist-engine 1\n2x2\n", "line 2: expected rows, found '2x2'"],
    ["too few pieces", TINY.split("\n").slice(0, 5).join("\n") + "\n", "line 6: expected colour, found the end of the input"],
    ["a piece with three colours", TINY.replace("0 0 3 1\n", "0 0 3\n") + "0\n", "line 8: expected number of fixed placements, found the end of the input"],
    ["colour 256", TINY.replace("2 4 0 0", "2 256 0 0") + "0\n", "line 5: colour 256 out of range 0..255"],
    ["negative colour", TINY.replace("2 4 0 0", "2 -4 0 0") + "0\n", "line 5: colour -4 out of range 0..255"],
    ["fractional colour", TINY.replace("2 4 0 0", "2 4.5 0 0") + "0\n", "line 5: expected colour, found '4.5'"],
    ["huge colour", TINY.replace("2 4 0 0", `2 ${big} 0 0`) + "0\n", "line 5: colour '99999999999999999999' out of range"],
    ["a bounded puzzle one row high", "cubist-engine 1\n1 2\n0 1 0 0\n0 0 0 1\n0\n", "a bounded puzzle needs at least 2 rows and 2 columns"],
    ["no fixed count", TINY, "line 7: expected number of fixed placements, found the end of the input"],
    ["more fixed than cells", TINY + "5\n", "line 7: number of fixed placements 5 out of range 0..4"],
    ["fewer fixed than announced", TINY + "2\n0 0 0\n", "line 9: expected cell, found the end of the input"],
    ["cell out of range", TINY + "1\n4 0 0\n", "line 8: cell 4 out of range 0..3"],
    ["piece out of range", TINY + "1\n0 4 0\n", "line 8: piece 4 out of range 0..3"],
    ["rotation 4", TINY + "1\n0 0 4\n", "line 8: rotation 4 out of range 0..3"],
    ["a cell fixed twice", TINY + "2\n0 0 0\n0 1 1\n", "line 9: cell 0 is fixed twice"],
    ["a piece fixed twice", TINY + "2\n0 0 0\n1 0 1\n", "line 9: piece 0 is fixed twice"],
    ["a trailing number", TINY + "0\n7\n", "line 8: unexpected data after the fixed placements: '7'"],
    ["trailing garbage", TINY + "0\nxyz\n", "line 8: unexpected data after the fixed placements: 'xyz'"],
    ["trailing garbage on the last line", TINY + "1\n0 0 0 zz", "line 8: unexpected data after the fixed placements: 'zz'"],
    ["a NUL byte", Buffer.concat([Buffer.from(TINY + "0\n"), Buffer.from([0]), Buffer.from("junk")]), "line 8: a NUL byte"],
    ["a NUL byte inside", Buffer.concat([Buffer.from("cubist-engine 1\n2 2\n0 1"), Buffer.from([0]), Buffer.from(" 2 0\n")]), "line 3: a NUL byte"],
  ];
  await pool(cases, PARALLEL, async ([what, stdin, message]) => {
    const r = await runDirect([], stdin);
    assert.deepEqual({ code: r.code, signal: r.signal, stdout: r.stdout }, { code: 1, signal: null, stdout: "" }, what);
    assert.equal(r.stderr, `cubist-engine: error: stdin ${message}\n`, what);
    await assert.rejects(
      runEngine(stdin.toString(), { rows: 2, cols: 2, pieces: 4 }),
      (err: unknown) => err instanceof EngineCrashedError && err.message.includes(`(exit 1): cubist-engine: error: stdin ${message}`),
      what,
    );
  });
});

test("engine usage - bad options exit 2 with a message; runEngine turns that into EngineCrashedError", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["--frobnicate"], /bad or incomplete option '--frobnicate'/],
    [["--order", "diagonal"], /unknown order 'diagonal'/],
    [["--order"], /bad or incomplete option '--order'/],
    [["--part", "2/2"], /--part wants K\/N with 0 <= K < N, got '2\/2'/],
    [["--part", "1/2x"], /got '1\/2x'/],
    [["--part", "-1/2"], /got '-1\/2'/],
    [["--seed", "-1"], /bad or incomplete option '--seed'/],
    [["--nodes", "1e6"], /bad or incomplete option '--nodes'/],
    [["--nodes", "99999999999999999999999"], /bad or incomplete option '--nodes'/],
    [["--seed", "18446744073709551616"], /bad or incomplete option '--seed'/],
    [["--time-ms"], /bad or incomplete option '--time-ms'/],
    [["--symmetry", "--count"], /--symmetry would change a count/],
  ];
  for (const [args, message] of cases) {
    const r = await runDirect(args, TINY + "0\n");
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message, args.join(" "));
    assert.equal(r.stdout, "");
  }
  const help = await runDirect(["--help"], "");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: cubist-engine/);
  await assert.rejects(runEngine(TINY + "0\n", { rows: 2, cols: 2, pieces: 4 }, { part: { k: 2, n: 2 } }), (err: unknown) => err instanceof EngineCrashedError && /\(exit 2\).*--part wants K\/N/.test(err.message));
});

test("engine input - random garbage and mangled problems never crash it: exit 1 with a message, or a consistent answer", { timeout: 60_000 }, async () => {
  const rng = createRandom("engine-garbage");
  const valid = problem(generatePuzzle({ rows: 3, cols: 4, borderColors: 2, centerColors: 2, seed: 11 }).puzzle, []);
  const tokens = valid.split(/(\s+)/);
  const inputs: Array<string | Buffer> = [];
  for (let i = 0; i < 12; i++) inputs.push(Buffer.from(Array.from({ length: rng.nextInt(300) }, () => rng.nextInt(256))));
  for (let i = 0; i < 8; i++) inputs.push(Buffer.concat([Buffer.from("cubist-engine 1\n"), Buffer.from(Array.from({ length: rng.nextInt(200) }, () => rng.nextInt(256)))]));
  const mangle = [
    () => String(rng.nextInt(1000) - 500),
    () => "99999999999999999999999999",
    () => "-9223372036854775808",
    () => ["x", "#", "--", "0x1f", "1e3", "+3", "", "\n\n", "\0"][rng.nextInt(9)],
    () => String(rng.nextInt(70)),
  ];
  for (let i = 0; i < 30; i++) {
    const t = [...tokens];
    for (let k = 0; k < 1 + rng.nextInt(3); k++) {
      const at = 2 * rng.nextInt(Math.ceil(t.length / 2));
      const how = rng.nextInt(3);
      if (how === 0) t.splice(at, 1);
      else if (how === 1) t.splice(at, 0, mangle[rng.nextInt(mangle.length)](), " ");
      else t[at] = mangle[rng.nextInt(mangle.length)]();
    }
    let text = t.join("");
    if (rng.nextInt(5) === 0) text = text.slice(0, rng.nextInt(text.length));
    inputs.push(text);
  }
  let rejected = 0;
  await pool(inputs, PARALLEL, async (stdin, i) => {
    const what = `input ${i}: ${JSON.stringify(stdin.toString().slice(0, 200))}`;
    const r = await runDirect(["--nodes", "200000"], stdin);
    assert.equal(r.signal, null, what);
    if (r.code === 1) {
      rejected++;
      assert.equal(r.stdout, "", what);
      assert.match(r.stderr, /^cubist-engine: error: stdin (line \d+: .+|a bounded puzzle needs at least 2 rows and 2 columns)\n$/s, what);
      assert.equal(r.stderr.indexOf("\n"), r.stderr.length - 1, `${what}: a one-line message`);
      return;
    }
    assert.equal(r.stderr, "", what);
    const status = { 10: "s SATISFIABLE", 20: "s UNSATISFIABLE", 0: "s UNKNOWN" }[r.code as 0 | 10 | 20];
    assert.ok(status !== undefined, `${what}: exit ${r.code}`);
    assert.equal(r.stdout.split("\n").filter((l) => l.startsWith("s ")).join("|"), status, what);
    assert.match(r.stdout, /^c end (exhausted|solution-limit|node-limit)$/m, what);
  });
  assert.ok(rejected >= inputs.length / 2, `only ${rejected} of ${inputs.length} rejected`);
});

// ---- 8. fixed placements that cannot be ----

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
