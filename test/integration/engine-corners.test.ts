/**
 * The engine's second starting corner (docs/engine.md "Scan orders"): `--mirror` runs a scan order mirrored left to
 * right, so it starts from the top-right corner, and `--alternate N` runs the scan and its mirror in turns of N
 * placements in one process. The oracle is the TypeScript placement search (core/cubes/search.ts): mirrored counts
 * equal its counts; every board printed goes through the verifier (core/verify.ts); an alternating run proves UNSAT
 * where the oracle does, and makes about twice the placements of the better of its two scans, no more.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Puzzle } from "../../core/puzzle.js";
import { createRandom } from "../../core/random.js";
import { engineProblem, locateEngine, type EngineProgress } from "../../worker/engine/index.js";
import { engine, assertSolution, fixture, mirrored, UNSAT5, UNSAT6, pinnedCorner } from "../helpers/engine-oracle.js";

const CHECK_EVERY = 65_536; // engine/search.h SEARCH_CHECK_EVERY: a turn ends at the first check point past N
const STATIC_ORDERS = ["short", "long", "row", "col", "spiral", "border"] as const;

type Case = { p: Puzzle; count: number };

/** The oracle's count, or null when it gives up. */
function oracle(p: Puzzle): number | null {
  const r = searchPlacements(p, { findAll: true, nodeLimit: 2_000_000 });
  if (r.kind === "unknown" || (r.kind === "sat" && !r.complete)) return null;
  return r.kind === "sat" ? r.solutions : 0;
}

/** Small boards: each generated one (planted, solvable) and, where one piece mirrored makes it unsolvable, that too. */
function table(n: number, tag: string): Case[] {
  const rng = createRandom(tag);
  const sizes = [[2, 2], [3, 3], [4, 4], [2, 3], [3, 2], [3, 4], [4, 3], [3, 5], [5, 3], [2, 5]] as const;
  const out: Case[] = [];
  for (let i = 0; i < n; i++) {
    const [rows, cols] = sizes[i % sizes.length];
    const g = generatePuzzle({ rows, cols, borderColors: 1 + rng.nextInt(2), centerColors: 1 + rng.nextInt(3), seed: 700 + i });
    const count = oracle(g.puzzle);
    if (count !== null) out.push({ p: g.puzzle, count });
    const unsat = g.puzzle.pieces.map((_, k) => mirrored(g.puzzle, k)).find((m) => oracle(m) === 0);
    if (unsat) out.push({ p: unsat, count: 0 });
  }
  return out;
}

test("engine mirror - counts equal the oracle's in every static order, with and without a seed", { timeout: 120_000 }, async () => {
  const cases = table(30, "engine-mirror-counts");
  const counts = cases.map((c) => c.count);
  assert.ok(counts.filter((c) => c === 0).length >= 10 && counts.filter((c) => c >= 2).length >= 5, `unsat and many-solution boards: ${counts.join(" ")}`);
  for (const [i, { p, count }] of cases.entries()) {
    const order = STATIC_ORDERS[i % STATIC_ORDERS.length];
    const what = `${p.name} order ${order} mirrored`;
    const o = await engine(p, [], { order, mirror: true, count: true, seed: i % 3 });
    assert.equal(o.stats.end, "exhausted", what);
    assert.equal(o.stats.solutions, count, what);
    if (o.kind === "sat") assertSolution(p, o.board, [], what);
  }
});

test("engine mirror - with symmetry: a verified board whenever there is one, the pinned corner piece on the mirrored scan's corners", { timeout: 120_000 }, async () => {
  let pinned = 0;
  for (const [i, { p, count }] of table(40, "engine-mirror-symmetry").entries()) {
    const order = STATIC_ORDERS[i % STATIC_ORDERS.length];
    const what = `${p.name} order ${order} mirrored`;
    const o = await engine(p, [], { order, mirror: true, symmetry: true });
    assert.equal(o.kind, count > 0 ? "sat" : "unsat", what);
    if (o.kind !== "sat") continue;
    assertSolution(p, o.board, [], what);
    const corner = pinnedCorner(p);
    if (corner === null) continue;
    pinned++;
    // The mirrored scan starts top-right; its first line ends bottom-right along columns, top-left along rows.
    const cell = o.board.find((x) => x.piece === corner)!.cell;
    const byCols = order === "col" || (order === "short" && p.cols > p.rows) || (order === "long" && p.rows >= p.cols) || (order === "border" && p.cols > p.rows);
    const ok = p.rows === p.cols ? cell === p.cols - 1 : cell === p.cols - 1 || cell === (byCols ? p.rows * p.cols - 1 : 0);
    if (order !== "spiral" && order !== "border") assert.ok(ok, `${what}: corner piece ${corner} at cell ${cell}`);
  }
  assert.ok(pinned >= 10, `only ${pinned} boards had a pinned corner`);
});

test("engine alternate - answers as the oracle does, with turns of one check interval (many hand-overs)", { timeout: 120_000 }, async () => {
  const cases: Case[] = [...table(24, "engine-alternate"), { p: UNSAT5, count: 0 }, { p: UNSAT6, count: 0 }, { p: fixture("brendan/pieces_06x06.txt"), count: 1 }];
  for (const [i, { p, count }] of cases.entries()) {
    const what = `${p.name} alternating`;
    const o = await engine(p, [], { order: i % 2 ? "short" : "long", alternate: 1, symmetry: p.hints.length === 0 });
    assert.equal(o.kind, count > 0 ? "sat" : "unsat", what);
    if (o.kind === "sat") assertSolution(p, o.board, [], what);
    else assert.equal(o.stats.end, "exhausted", what);
  }
});

test("engine alternate - about twice the placements of the better scan, never more (UNSAT 6x6, Brendan 6x6)", { timeout: 120_000 }, async () => {
  for (const p of [UNSAT6, fixture("brendan/pieces_06x06.txt"), fixture("brendan/pieces_05x05.txt")]) {
    const alone = await Promise.all([false, true].map((mirror) => engine(p, [], { order: "short", mirror, symmetry: true })));
    const best = Math.min(...alone.map((o) => o.stats.nodes));
    for (const turn of [1, 200_000]) {
      const o = await engine(p, [], { order: "short", alternate: turn, symmetry: true });
      const what = `${p.name} turns of ${turn}: ${o.stats.nodes} placements, the scans alone ${alone.map((a) => a.stats.nodes).join(" and ")}`;
      assert.equal(o.kind, alone[0].kind, what);
      assert.ok(o.stats.nodes >= best, what);
      assert.ok(o.stats.nodes <= 2 * best + Math.max(turn, CHECK_EVERY) + CHECK_EVERY, what);
    }
  }
});

test("engine alternate - a node limit is shared by the two scans; counts, parts and restarts are refused", async () => {
  const o = await engine(fixture("eternity2/e2_pieces.txt"), [], { order: "row", alternate: 1, nodeLimit: 300_000 });
  assert.equal(o.kind, "unknown");
  assert.ok(o.stats.nodes <= 300_000 + 2 * CHECK_EVERY && o.stats.nodes >= 150_000, `${o.stats.nodes} placements`);
  const text = engineProblem(UNSAT5, [])!;
  for (const extra of [["--count"], ["--part", "0/2"], ["--restart", "100"], ["--part-depth", "3"]]) {
    const r = spawnSync(locateEngine(), ["--alternate", "1000", ...extra], { input: text, encoding: "utf8" });
    assert.equal(r.status, 2, extra.join(" "));
    assert.match(r.stderr, /--alternate runs complete scans/);
  }
});

test("engine alternate - progress lines count both scans' placements and never go back in placements, depth or share covered", { timeout: 60_000 }, async () => {
  const lines: EngineProgress[] = [];
  const o = await engine(fixture("eternity2/e2_pieces.txt"), [], { order: "row", alternate: CHECK_EVERY, nodeLimit: 20_000_000, progressMs: 20, onProgress: (p) => lines.push(p) });
  assert.equal(o.kind, "unknown");
  assert.ok(lines.length >= 3, `${lines.length} progress lines`);
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1], lines[i]];
    assert.ok(b.nodes >= a.nodes && b.depth >= a.depth && (b.covered ?? 0) >= (a.covered ?? 0), `line ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
  }
  assert.ok(lines[lines.length - 1].nodes <= o.stats.nodes);
});
