/**
 * Shared by the engine's integration tests (test/integration/engine-*.test.ts): the engine run through its
 * TypeScript runner (worker/engine/runner.ts) and the oracle it is checked against, the TypeScript placement search
 * (core/cubes/search.ts). Both count solutions up to swapping identical pieces, with a symmetric piece's equal
 * rotations counted once. Every board the engine prints goes through the verifier (core/verify.ts), which shares no
 * code with either search. Puzzles come from the project's generator (core/generate.ts, planted solutions) and the
 * fixtures; all boards are small, so each run takes milliseconds.
 *
 * CUBIST_ENGINE_BOARDS scales the random-board table (default 80) for a longer soak (400: about three minutes).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { searchPlacements } from "../../core/cubes/search.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { equivalentPieces, rotateEdges, rotatedEdge, type Board, type Edges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { createRandom, type Random } from "../../core/random.js";
import { verifySolution } from "../../core/verify.js";
import { engineProblem, locateEngine, runEngine, type EngineOptions, type EngineOutcome } from "../../worker/engine/index.js";

export const ENGINE = locateEngine();
const FIX = new URL("../fixtures/", import.meta.url);
export const fixture = (rel: string): Puzzle => parsePuzzle(readFileSync(new URL(rel, FIX), "utf8"), rel);

export const BOARDS = Number(process.env.CUBIST_ENGINE_BOARDS ?? 80);
export const PARALLEL = 3;

export const E2 = fixture("eternity2/e2_pieces.txt"); // 16x16: never finishes, for limits and stops
export const UNSAT5 = fixture("cluster/unsat-5x5.txt"); // ~2,700 nodes to refute
export const UNSAT6 = fixture("cluster/unsat-6x6.txt"); // ~170,000 nodes to refute

export const shapeOf = (p: Puzzle): { rows: number; cols: number; pieces: number } => ({ rows: p.rows, cols: p.cols, pieces: p.pieces.length });

export function problem(p: Puzzle, fixed: readonly Placement[] = []): string {
  const text = engineProblem(p, fixed);
  assert.ok(text !== null, `${p.name}: the placements contradict each other`);
  return text;
}

export function engine(p: Puzzle, fixed: readonly Placement[], options: EngineOptions = {}): Promise<EngineOutcome> {
  return runEngine(problem(p, fixed), shapeOf(p), options);
}

/** Runs `fn` over `items`, `limit` at a time. */
export async function pool<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  }));
}

export function toBoard(p: Puzzle, placements: readonly Placement[]): Board {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(p.rows * p.cols).fill(null);
  for (const x of placements) cells[x.cell] = { piece: x.piece, rot: x.rot };
  return { rows: p.rows, cols: p.cols, cells };
}

/** A board's placed colours cell by cell: equal exactly for boards equal up to swapping identical pieces. */
export function signature(p: Puzzle, placements: readonly Placement[]): string {
  return placements.map((x) => [0, 1, 2, 3].map((d) => rotatedEdge(p.pieces[x.piece].edges, x.rot, d)).join(",")).join(" ");
}

/** Asserts that `placements` is a verified solution of `p` that keeps `fixed`. */
export function assertSolution(p: Puzzle, placements: readonly Placement[], fixed: readonly Placement[], what: string): void {
  assert.deepEqual(verifySolution(p, toBoard(p, placements)), { ok: true }, what);
  for (const f of fixed) {
    const got = placements[f.cell];
    assert.ok(got.piece === f.piece && got.rot === f.rot, `${what}: fixed ${JSON.stringify(f)} not kept, got ${JSON.stringify(got)}`);
  }
}

/** The oracle's exact count (0 when unsat). */
export function oracleCount(p: Puzzle, fixed: readonly Placement[] = []): number {
  const r = searchPlacements(p, { fixed, findAll: true });
  assert.notEqual(r.kind, "unknown", `${p.name}: the oracle gave up`);
  if (r.kind === "sat") {
    assert.ok(r.complete, `${p.name}: the oracle's count is not complete`);
    return r.solutions;
  }
  return 0;
}

/** The engine's exact count (0 when unsat); a sat answer's board is verified. */
export async function engineCount(p: Puzzle, fixed: readonly Placement[], options: EngineOptions, what: string): Promise<number> {
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

export const placementsOf = (b: Board, cells: readonly number[]): Placement[] => cells.map((cell) => ({ cell, piece: b.cells[cell]!.piece, rot: b.cells[cell]!.rot }));

export function hasIdentical(p: Puzzle): boolean {
  return p.pieces.some((a, i) => p.pieces.some((b, j) => j > i && equivalentPieces(a.edges, b.edges)));
}

export function hasSymmetric(p: Puzzle): boolean {
  return p.pieces.some((x) => [1, 2].some((r) => rotateEdges(x.edges, r).every((c, d) => c === x.edges[d])));
}

/** The puzzle with one piece mirrored (N E S W -> N W S E): usually no longer solvable. */
export function mirrored(p: Puzzle, piece: number): Puzzle {
  const [n, e, s, w] = p.pieces[piece].edges;
  return { ...p, name: `${p.name}-mirror${piece}`, pieces: p.pieces.map((x, i) => (i === piece ? { ...x, edges: [n, w, s, e] as Edges } : x)) };
}

export interface Generated {
  puzzle: Puzzle;
  solution: Board;
}

export const BOUNDED_SIZES = [[2, 2], [2, 3], [3, 2], [3, 3], [2, 4], [4, 2], [3, 4], [4, 3], [4, 4], [3, 5], [5, 3]] as const;
// Unbounded boards with two or three colours have 10^4..10^6 solutions from 3x4 up: keep them at 9 cells or fewer.
export const UNBOUNDED_SIZES = [[2, 2], [2, 3], [3, 2], [3, 3], [2, 4], [4, 2]] as const;

/** The random-board table: bounded boards with 1-2 frame and 1-3 centre colours, every fourth unbounded, every third with hints. */
export function smallBoards(n: number): Generated[] {
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
export function cube(g: Generated, rng: Random, k: number, planted: boolean): Placement[] {
  const cells = g.puzzle.rows * g.puzzle.cols;
  const where = rng.shuffle(Array.from({ length: cells }, (_, c) => c)).slice(0, k);
  if (planted) return placementsOf(g.solution, where);
  const pieces = rng.shuffle(Array.from({ length: cells }, (_, c) => c)).slice(0, k);
  return where.map((cell, i) => ({ cell, piece: pieces[i], rot: rng.nextInt(4) }));
}

export interface Direct {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the engine binary itself with `args` and `stdin`; SIGKILL after `timeoutMs` (a hang fails the test). */
export function runDirect(args: readonly string[], stdin: string | Buffer, timeoutMs = 10_000): Promise<Direct> {
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

/** The corner pieces without a twin, in piece order: the ones the engine's --corner K picks from. */
export function uniqueCorners(p: Puzzle): number[] {
  return p.pieces
    .map((x, k) => ({ x, k }))
    .filter(({ x, k }) => x.edges.filter((c) => c === 0).length === 2 && !p.pieces.some((y, j) => j !== k && equivalentPieces(x.edges, y.edges)))
    .map(({ k }) => k);
}

/** The corner piece --symmetry pins (the first without a twin), or null when every corner piece has one. */
export function pinnedCorner(p: Puzzle): number | null {
  return uniqueCorners(p)[0] ?? null;
}
