/**
 * Best boards and score mode of the native engine (engine/score.c, `--best` in engine/search.c), through the
 * runner and through `cubist solve --objective score`. The engine's own numbers are claims: every board it prints
 * goes through core/score.ts (the verifier's rules, no code shared with the engine), and the tests check that the
 * claims agree with it. Runs are bounded by placements, not time, so every result here is deterministic.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { boardFromPlacements, type Edges, type Puzzle } from "../../core/puzzle.js";
import { acceptScored } from "../../core/score.js";
import { innerEdgeCount, verifySolution } from "../../core/verify.js";
import { engineProblem, runEngine, type EngineBest } from "../../worker/engine/index.js";
import { checkScoredBoards } from "../helpers/engine.js";

const dir = mkdtempSync(join(tmpdir(), "cubist-score-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A generated board whose one inner piece gets a colour nobody else has: no perfect board exists. */
function broken(rows: number, cols: number, seed: number): Puzzle {
  const { puzzle } = generatePuzzle({ rows, cols, borderColors: 3, centerColors: 5, seed });
  const pieces = puzzle.pieces.map((p) => ({ ...p }));
  const inner = pieces.findIndex((p) => p.edges.every((c) => c !== 0));
  const e = [...pieces[inner].edges] as [number, number, number, number];
  e[0] = 99;
  pieces[inner] = { ...pieces[inner], edges: e as Edges };
  return { ...puzzle, pieces };
}

function shape(p: Puzzle): { rows: number; cols: number; pieces: number } {
  return { rows: p.rows, cols: p.cols, pieces: p.pieces.length };
}

test("score mode: every improvement passes the checker, scores what the engine claims, and the scores rise", async () => {
  for (const seed of [1, 2, 3, 4]) {
    const puzzle = broken(6, 6, seed);
    const bests: EngineBest[] = [];
    const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), {
      order: "row", seed, restartBase: 20_000, score: { fromPct: 50 }, nodeLimit: 3_000_000, onBest: (b) => bests.push(b),
    });
    assert.equal(outcome.kind, "unknown", `seed ${seed}: no perfect board exists`);
    assert.ok(bests.length > 0, `seed ${seed}: a complete board was reported`);
    const last = checkScoredBoards(puzzle, bests, `seed ${seed}`);
    assert.ok(last < innerEdgeCount(puzzle), "no board can be perfect");
    assert.ok(last >= innerEdgeCount(puzzle) - 4, `seed ${seed}: 3 M placements get within 4 edges of perfect (got ${last})`);
    assert.deepEqual(outcome.best?.board, bests[bests.length - 1].board, "the outcome carries the last best board");
  }
});

test("score mode mismatches a placement on one of its two keyed sides at most (the one-colour tables)", async () => {
  for (const seed of [1, 2, 3]) {
    const puzzle = broken(8, 8, seed);
    const bests: EngineBest[] = [];
    await runEngine(engineProblem(puzzle, [])!, shape(puzzle), {
      order: "row", seed, restartBase: 20_000, score: { fromPct: 50 }, nodeLimit: 2_000_000, onBest: (b) => bests.push(b),
    });
    assert.ok(bests.length > 0, `seed ${seed}: a complete board was reported`);
    for (const b of bests) {
      const a = acceptScored(puzzle, b.board);
      assert.ok(a.ok, a.ok ? "" : a.reason);
      const bad = new Set(a.scored.mismatches.map(([x, y]) => `${Math.min(x, y)}-${Math.max(x, y)}`));
      // Row order, no hints: a cell's keyed sides are its north and west neighbours, both placed before it.
      for (let cell = 9; cell < 64; cell++) {
        if (cell % 8 === 0) continue;
        assert.ok(!(bad.has(`${cell - 8}-${cell}`) && bad.has(`${cell - 1}-${cell}`)), `seed ${seed}: cell ${cell} mismatches north and west`);
      }
    }
  }
});

test("--score-ramp: every board keeps its breaks under B * f^P at each position of the ramp (B: one below the last board)", async () => {
  for (const rampPct of [100, 200]) {
    const puzzle = broken(8, 8, 5);
    const bests: EngineBest[] = [];
    await runEngine(engineProblem(puzzle, [])!, shape(puzzle), {
      order: "row", seed: 2, restartBase: 20_000, score: { fromPct: 50, rampPct }, nodeLimit: 2_000_000, onBest: (b) => bests.push(b),
    });
    assert.ok(bests.length > 1, `ramp ${rampPct}: improvements were reported`);
    let budget = innerEdgeCount(puzzle);
    for (const b of bests) {
      const a = acceptScored(puzzle, b.board);
      assert.ok(a.ok, a.ok ? "" : a.reason);
      // Row order, no hints: position i is cell i; an edge's break is counted where its later cell is placed.
      const at = new Array<number>(64).fill(0);
      for (const [x, y] of a.scored.mismatches) at[Math.max(x, y)]++;
      let used = 0;
      for (let i = 0; i < 64; i++) {
        used += at[i];
        const allow = i < 32 ? 0 : Math.ceil(budget * ((i - 31) / 32) ** (rampPct / 100) - 1e-9);
        assert.ok(used <= allow, `ramp ${rampPct}: ${used} breaks by position ${i}, allowed ${allow} (budget ${budget})`);
      }
      budget = a.scored.mismatches.length - 1;
    }
  }
});

test("score mode: a perfect board ends the search as a verified solution", async () => {
  const { puzzle } = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 4, seed: 7 });
  const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), { order: "row", seed: 1, score: {}, nodeLimit: 50_000_000 });
  assert.equal(outcome.kind, "sat");
  assert.ok(verifySolution(puzzle, boardFromPlacements(puzzle, outcome.kind === "sat" ? outcome.board : [])).ok);
});

test("score mode keeps the hints and never puts grey inside", async () => {
  const { puzzle, solution } = generatePuzzle({ rows: 6, cols: 6, borderColors: 3, centerColors: 5, seed: 11 });
  const hinted: Puzzle = { ...broken(6, 6, 11), hints: [14, 21].map((cell) => ({ row: Math.floor(cell / 6), col: cell % 6, piece: solution.cells[cell]!.piece, rot: solution.cells[cell]!.rot })) };
  assert.equal(hinted.pieces.length, puzzle.pieces.length);
  const bests: EngineBest[] = [];
  await runEngine(engineProblem(hinted, [])!, shape(hinted), { order: "row", seed: 3, restartBase: 20_000, score: {}, nodeLimit: 1_000_000, onBest: (b) => bests.push(b) });
  assert.ok(bests.length > 0);
  for (const b of bests) {
    const a = acceptScored(hinted, b.board);
    assert.ok(a.ok, a.ok ? "" : a.reason);
    for (const h of hinted.hints) assert.deepEqual(a.scored.board.cells[h.row * 6 + h.col], { piece: h.piece, rot: h.rot });
  }
});

test("--best reports the deepest partial board, every edge matched", async () => {
  const puzzle = broken(5, 5, 5);
  const bests: EngineBest[] = [];
  const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), { order: "row", best: true, onBest: (b) => bests.push(b) });
  assert.equal(outcome.kind, "unsat", "the broken piece can go nowhere");
  assert.ok(outcome.best, "the end of the search reports the best board");
  const a = acceptScored(puzzle, outcome.best!.board);
  assert.ok(a.ok, a.ok ? "" : a.reason);
  assert.equal(a.scored.mismatches.length, 0);
  assert.equal(a.scored.placed, outcome.best!.placed);
  assert.equal(a.scored.placed, outcome.stats.depth, "placed = the deepest position (no hints here)");
  assert.ok(a.scored.placed < 25);
});

function cubist(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(process.cwd(), "dist/cli/main.js"), ...args], { encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("cubist solve --objective score --json: the best board, re-scored, with its history; exit 0 at the time limit with a board", () => {
  const puzzle = broken(5, 5, 2);
  const file = join(dir, "broken.txt");
  writeFileSync(file, writeCanonical(puzzle));
  const r = cubist(["solve", file, "--objective", "score", "--json", "--time", "4", "--threads", "1"]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { status: string; best: { score: number; maxScore: number; placed: number; mismatches: number; board: Array<Array<[number, number]>> }; history: Array<{ score: number }> };
  assert.equal(out.status, "unknown");
  assert.equal(out.best.maxScore, innerEdgeCount(puzzle));
  assert.equal(out.best.placed, 25);
  assert.ok(out.best.score < out.best.maxScore && out.best.score === out.best.maxScore - out.best.mismatches);
  assert.equal(out.history[out.history.length - 1].score, out.best.score);
  const placements = out.best.board.flatMap((row, r) => row.map(([id, rot], c) => ({ cell: r * 5 + c, piece: puzzle.pieces.findIndex((p) => p.id === id), rot })));
  const a = acceptScored(puzzle, placements);
  assert.ok(a.ok && a.scored.score === out.best.score, "the printed board scores what it says");
  assert.match(r.stderr, /^score \d+\/40 \(\d+ mismatched edges\) after/m);
});

test("cubist solve --objective score on a solvable board prints a verified solution and exits 0", () => {
  const { puzzle } = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 3, seed: 3 });
  const file = join(dir, "ok.txt");
  writeFileSync(file, writeCanonical(puzzle));
  const r = cubist(["solve", file, "--objective", "score", "--threads", "1", "--time", "60"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^solution \(verified\)/);
  const bad = cubist(["solve", file, "--objective", "score", "--all"]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /objective/);
});

test("cubist solve --json on unknown carries the deepest partial board, checked", () => {
  const r = cubist(["solve", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--solver", "none", "--time", "1", "--json"]);
  assert.equal(r.status, 30, r.stderr);
  const out = JSON.parse(r.stdout) as { status: string; best: { score: number; maxScore: number; placed: number; mismatches: number; board: Array<Array<[number, number] | null>> } };
  assert.equal(out.status, "unknown");
  assert.equal(out.best.maxScore, 480);
  assert.equal(out.best.mismatches, 0, "a partial board from the complete search has no mismatch");
  assert.ok(out.best.placed > 5, "more than the 5 hints");
  assert.equal(out.best.board.flat().filter((c) => c !== null).length, out.best.placed);
});

test("cubist solve --workers 1 on unknown: the run's best board comes from the workers' searches, checked by the coordinator", () => {
  const r = cubist(["solve", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--workers", "1", "--time", "20", "--json"]);
  assert.equal(r.status, 30, r.stderr);
  const out = JSON.parse(r.stdout) as { status: string; best?: { score: number; maxScore: number; placed: number; cubeId: string }; stats: { placements: number; remainingPlacements: number } };
  assert.equal(out.status, "unknown");
  assert.ok(out.stats.placements > 0, "the workers' placements reach the run");
  assert.ok(out.stats.remainingPlacements > 0, "the cubes' tree estimates give the work left");
  assert.ok(out.best, "a best board was reported");
  assert.equal(out.best.maxScore, 480);
  assert.ok(out.best.placed > 5 && out.best.score > 0, `placed ${out.best.placed}, score ${out.best.score}`);
});

test("--estimate: Knuth's estimate of a refutation's tree is within a factor of 4 of the placements it takes", async () => {
  for (const seed of [21, 22]) {
    const puzzle = broken(5, 5, seed);
    const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), { order: "row", estimateProbes: 4000 });
    assert.equal(outcome.kind, "unsat");
    const est = outcome.stats.estNodes!, real = outcome.stats.nodes;
    assert.ok(est > 0 && outcome.stats.estStderr! >= 0);
    assert.ok(est > real / 4 && est < real * 4, `seed ${seed}: estimate ${est} for ${real} placements`);
  }
});

test("cubist solve --workers 1 --objective score: every cube runs the score mode, and the run's best is a complete board, re-scored", () => {
  const r = cubist(["solve", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--workers", "1",
    "--objective", "score", "--cube-time-first", "1", "--time", "15", "--json"]);
  assert.equal(r.status, 0, "a score run that reaches --time with a board did what it was asked");
  const out = JSON.parse(r.stdout) as { status: string; best?: { score: number; maxScore: number; placed: number } };
  assert.equal(out.status, "unknown");
  assert.ok(out.best, "a best board was reported");
  assert.equal(out.best.placed, 256, "score mode fills the board");
  assert.ok(out.best.score > 300 && out.best.score < 480, `score ${out.best.score}`);
  const refused = cubist(["solve", "test/fixtures/eternity2/e2_pieces.txt", "--workers", "1", "--objective", "score", "--solver", "kissat"]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /objective/);
});

test("progress lines carry the searched fraction: within 0..1 and never falling within a pass", async () => {
  const puzzle = broken(7, 7, 4);
  const seen: number[] = [];
  const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), { order: "row", progressMs: 20, nodeLimit: 60_000_000, onProgress: (p) => { if (p.covered !== undefined) seen.push(p.covered); } });
  assert.ok(seen.length > 0, `progress lines came (${outcome.kind} after ${outcome.stats.nodes} placements)`);
  for (let i = 0; i < seen.length; i++) {
    assert.ok(seen[i] >= 0 && seen[i] <= 1, `covered ${seen[i]}`);
    if (i > 0) assert.ok(seen[i] >= seen[i - 1] - 1e-9, `covered fell from ${seen[i - 1]} to ${seen[i]}`);
  }
});

/** Restarts of a Luby schedule (unit `base`) within `limit` placements, after `skip` placements of it. */
function lubyRestarts(base: number, skip: number, limit: number): number {
  const luby = (i: number): number => {
    for (;;) {
      let k = 1;
      while (2 ** k - 1 < i) k++;
      if (2 ** k - 1 === i) return 2 ** (k - 1);
      i -= 2 ** (k - 1) - 1;
    }
  };
  let i = 1;
  while (skip >= luby(i) * base) skip -= luby(i++) * base;
  let nodes = luby(i) * base - skip;
  let restarts = 0;
  while (nodes < limit) {
    restarts++;
    nodes += luby(++i) * base;
  }
  return restarts;
}

test("--restart-skip: the Luby restarts go on where that many placements of the schedule ended", async () => {
  const puzzle = broken(8, 8, 3);
  const base = 1000, limit = 20_000;
  for (const skip of [0, 3_500, 100_000]) {
    const outcome = await runEngine(engineProblem(puzzle, [])!, shape(puzzle), {
      order: "row", seed: 4, restartBase: base, score: { fromPct: 50, restartSkip: skip }, nodeLimit: limit,
    });
    assert.equal(outcome.stats.nodes, limit);
    assert.equal(outcome.stats.restarts, lubyRestarts(base, skip, limit), `skip ${skip}`);
  }
  // After 100 units of the schedule the restarts are long: far fewer in the same placements than from the start.
  assert.ok(lubyRestarts(base, 100_000, limit) < lubyRestarts(base, 0, limit));
});

test("--bound-file: a bound there from the start narrows the first board; one written later is taken without a restart", async () => {
  const puzzle = broken(10, 10, 2);
  const problem = engineProblem(puzzle, [])!;
  const options = { order: "row" as const, seed: 3, restartBase: 0, nodeLimit: 3_000_000 };
  const free: EngineBest[] = [];
  await runEngine(problem, shape(puzzle), { ...options, score: { fromPct: 50 }, onBest: (b) => free.push(b) });
  assert.ok(free.length >= 2 && free[0].breaks! > free[free.length - 1].breaks!, "unbound, the boards improve one after another");
  const bound = free[free.length - 1].breaks!;
  const file = join(dir, "bound");
  writeFileSync(file, `${bound}\n`);
  const bound1: EngineBest[] = [];
  await runEngine(problem, shape(puzzle), { ...options, score: { fromPct: 50, boundFile: file }, onBest: (b) => bound1.push(b) });
  assert.ok(bound1.length > 0 && bound1.every((b) => b.breaks! <= bound), `every board within the file's bound ${bound}: ${bound1.map((b) => b.breaks).join(", ")}`);

  // Mid-run: after its first board the file says 3 fewer breaks; boards found a second later keep to it.
  const later = join(dir, "bound-later");
  const seen: EngineBest[] = [];
  let told = -1;
  const outcome = await runEngine(problem, shape(puzzle), {
    ...options, nodeLimit: 0, timeLimitMs: 4000, score: { fromPct: 50, boundFile: later },
    onBest: (b) => {
      seen.push(b);
      if (told < 0) {
        told = b.breaks! - 3;
        writeFileSync(later, `${told}\n`);
      }
    },
  });
  assert.equal(outcome.stats.restarts, 0, "the bound was taken without a restart");
  const after = seen.filter((b) => b.seconds > seen[0].seconds + 1.5);
  assert.ok(after.every((b) => b.breaks! <= told), `boards found later keep to the bound ${told}: ${seen.map((b) => `${b.breaks}@${b.seconds}`).join(", ")}`);
  assert.ok(seen[seen.length - 1].breaks! <= told, `the search went on under the bound ${told}: ${seen.map((b) => b.breaks).join(", ")}`);
});
