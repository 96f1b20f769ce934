/**
 * Triangle puzzles on the cluster (docs/cluster.md "Triangle runs"), with a real nats-server, the coordinator and
 * workers running the triangle search in worker threads and Kissat on the triangle encoding:
 * - `solve --workers 2` finds a board that the triangle verifier accepts, by the search and by Kissat alone;
 * - `solve --workers 2 --all` counts what `solve --all` counts on one machine and what the brute-force counter
 *   counts (test/helpers/brute-force.ts), also when tiny budgets force re-splits, and -o writes the same boards;
 * - a coordinator SIGKILLed mid-count is replaced and the count is exact, nothing counted twice;
 * - a "worker" that answers its pulled tasks with forged counts is rejected, a task with a cell off the triangle is
 *   terminated by the worker, and the real worker's count is exact;
 * - a cancel stops a running triangle cube within a second.
 * Answers are kept in one table (the counts from `solve --all`, cross-checked here where the brute force can).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { REPO_ROOT, spawnCubist, runCubist, writeFakeSolver } from "../helpers/processes.js";
import { startTestNats } from "../helpers/nats.js";
import { apiClient, freePort, replaceCoordinator, runMidCount, spawnCoordinator } from "../helpers/api.js";
import { startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { startTestWorker } from "../helpers/worker.js";
import { eventually } from "../helpers/runs.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { bruteCountTriangle } from "../helpers/brute-force.js";
import { parseTriangle, readTriangleBoardJSON, writeTriangle } from "../../core/triangle/format.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import { placedLabel, placementsOfTriangleBoard, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { verifyTriangleBoard } from "../../core/triangle/verify.js";
import { CubeTask, Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import type { SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";

/** Fixtures and their counts (`cubist solve FILE --all`; the first is also the brute force's). */
const ANSWERS = {
  small: { file: "test/fixtures/cluster/tri-4-l4-s4.txt", count: 146 },
  framed: { file: "test/fixtures/cluster/tri-6-l3-f0-s1.txt", count: 204 },
} as const;

function load(file: string): TrianglePuzzle {
  return parseTriangle(readFileSync(join(REPO_ROOT, file), "utf8"), file);
}

/** The labels a board shows, cell by cell: copies of identical pieces are one board. */
function labelsKey(puzzle: TrianglePuzzle, board: unknown, what: string): string {
  const b = readTriangleBoardJSON(JSON.stringify(board), puzzle, what);
  assert.deepEqual(verifyTriangleBoard(puzzle, b), { ok: true }, what);
  return b.cells.map((c) => [0, 1, 2].map((d) => placedLabel(puzzle.pieces[c!.piece].edges, c!.rot, d)).join(".")).join(",");
}

function boardKeys(puzzle: TrianglePuzzle, file: string): string[] {
  return readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line, i) => labelsKey(puzzle, JSON.parse(line).board, `${file}:${i + 1}`)).sort();
}

test("triangle cluster - solve --workers 2 prints a board the triangle verifier accepts, found by the search and by Kissat alone", async () => {
  const { file } = ANSWERS.small;
  const puzzle = load(file);
  for (const extra of [[], ["--search-ms", "0"]]) {
    const r = await runCubist(["solve", file, "--workers", "2", "--json", ...extra]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { status: string; shape: string; side: number; board: unknown; encoding: string; workers: number; stats: { cubes: { sat: number } } };
    assert.deepEqual([out.status, out.shape, out.side, out.encoding, out.workers, out.stats.cubes.sat], ["sat", "triangle", 4, "triangle", 2, 1]);
    labelsKey(puzzle, out.board, `board (${extra.join(" ") || "search"})`);
  }
  const text = await runCubist(["solve", file, "--workers", "1"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^solution \(verified\) for tri-4-l4-s4 in .* on 1 worker\(s\)/);
  assert.match(text.stdout, /\^\d+:\d\/\d\/\d/);
});

test("triangle cluster - counts on 2 workers equal solve --all and the brute force, also through re-splits; -o writes the same boards, verified", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-tri-count-"));
  try {
    const { file, count } = ANSWERS.small;
    const puzzle = load(file);
    assert.equal(bruteCountTriangle(puzzle), count);
    const local = await runCubist(["solve", file, "--all", "--json", "-o", join(dir, "local.ndjson")]);
    assert.equal(local.code, 0, local.stderr);
    assert.equal((JSON.parse(local.stdout) as { count: number }).count, count);
    const cluster = await runCubist(["solve", file, "--workers", "2", "--all", "--json", "--cubes", "8", "-o", join(dir, "cluster.ndjson")]);
    assert.equal(cluster.code, 0, cluster.stderr);
    const out = JSON.parse(cluster.stdout) as { status: string; count: number; complete: boolean; shape: string; side: number; workers: number; stats: { progress: number; rejectedModels: number } };
    assert.deepEqual([out.status, out.count, out.complete, out.shape, out.side, out.workers, out.stats.rejectedModels], ["sat", count, true, "triangle", 4, 2, 0]);
    assert.ok(Math.abs(out.stats.progress - 1) < 1e-9);
    const keys = boardKeys(puzzle, join(dir, "cluster.ndjson"));
    assert.equal(new Set(keys).size, count);
    assert.deepEqual(keys, boardKeys(puzzle, join(dir, "local.ndjson")));
    // Tiny budgets: cubes come back unknown and are re-split; only exhausted cubes count, so the count stays exact.
    const framed = ANSWERS.framed;
    const alone = await runCubist(["solve", framed.file, "--all", "--json"]);
    assert.equal((JSON.parse(alone.stdout) as { count: number }).count, framed.count);
    const resplit = await runCubist(["solve", framed.file, "--workers", "2", "--all", "--json", "--cubes", "4", "--cube-time-first", "0.005", "--cube-time", "0.02"]);
    assert.equal(resplit.code, 0, resplit.stderr);
    const r = JSON.parse(resplit.stdout) as { count: number; complete: boolean; stats: { cubes: { resplit: number } } };
    assert.deepEqual([r.count, r.complete], [framed.count, true]);
    assert.ok(r.stats.cubes.resplit > 0, "no cube was re-split");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("triangle count resume - coordinator SIGKILLed mid-count: a new one resumes from the ledger and the count is exact", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const port = await freePort();
  // The framed side-6 puzzle (204 solutions) on an engine slowed by 0.15 s a cube: the kill lands while cubes are still
  // being counted, without the 5 s of engine work of the side-5 puzzle of 2,409 solutions used before.
  const dir = mkdtempSync(join(tmpdir(), "cubist-tri-resume-"));
  const engine = writeFakeSolver(dir, "slow-engine", `sleep 0.15\nexec "${join(REPO_ROOT, "dist/engine/cubist-engine")}" "$@"`);
  const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "w1", "--grace", "0"], { env: { ...marker.env, CUBIST_ENGINE: engine } });
  const a = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
  let b: Awaited<ReturnType<typeof spawnCoordinator>> | undefined;
  const { file, count } = ANSWERS.framed;
  try {
    const api = apiClient(a.address);
    const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", {
      puzzleText: readFileSync(join(REPO_ROOT, file), "utf8"), puzzleName: file, mode: RunMode.RUN_MODE_ALL_SOLUTIONS, cubing: { targetCubes: 48 },
    });
    const id = run!.runId;
    assert.equal(run!.shape, "triangle");
    const before = await runMidCount(api.call, id, 3);
    assert.deepEqual([before.status!.state, before.status!.countComplete], [RunState.RUN_STATE_RUNNING, false], "the run ended before the kill");
    api.close();
    const replaced = await replaceCoordinator(t, a, marker.env, port, id);
    b = replaced.next;
    const s = replaced.info.status!;
    assert.equal(s.state, RunState.RUN_STATE_SAT, s.message);
    assert.deepEqual([s.solutionCount, s.countComplete, s.cubes!.failed, s.rejectedModels], [count, true, 0, 0]);
    assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    const list = await runCubist(["solution", "list", id, "--coordinator", b.address, "--json"]);
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout) as { count: number; complete: boolean; solutions: Array<{ board: unknown }> };
    assert.deepEqual([listed.count, listed.complete, listed.solutions.length], [count, true, 100]);
    const puzzle = load(file);
    assert.equal(new Set(listed.solutions.map((x, i) => labelsKey(puzzle, x.board, `solution ${i}`))).size, 100);
    const show = await runCubist(["run", "show", id, "--coordinator", b.address]);
    assert.match(show.stdout, /^puzzle\s+triangle 6, encoding triangle/m);
    assert.match(show.stdout, new RegExp(`^count\\s+exactly ${count} solutions`, "m"));
    const one = await runCubist(["solution", "show", id, "--index", "7", "--coordinator", b.address, "--json"]);
    assert.equal(one.code, 0, one.stderr);
    const sol = JSON.parse(one.stdout) as { shape: string; side: number; board: unknown };
    assert.deepEqual([sol.shape, sol.side], ["triangle", 6]);
    labelsKey(puzzle, sol.board, "solution show");
  } finally {
    worker.kill("SIGTERM");
    a.proc.kill("SIGKILL");
    b?.proc.kill("SIGTERM");
    await Promise.all([worker.exited, a.proc.exited, b?.proc.exited]);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});

test("triangle untrusted input - forged counts under real leases are rejected, a task off the triangle is terminated, and the real count is exact", async () => {
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  const { file, count } = ANSWERS.small;
  const puzzle = load(file);
  try {
    const run = await c.coordinator.submitRun({ puzzleText: readFileSync(join(REPO_ROOT, file), "utf8"), puzzleLabel: file, mode: "all", targetCubes: 8 });
    await run.splitDone();
    // The forger pulls tasks as a worker does, so it holds their leases, and answers each one with a lie.
    const nc = await t.connect("forger");
    const js = jetstream(nc);
    // Tasks whose placements are off the triangle (cell 16 of 16, and a turn the puzzle does not allow), published
    // before the lies: the cubes the lies put back queue behind them, so the run cannot end before the worker meets
    // them (published later, they could sit behind the last real cube and be dropped with the run's consumer).
    const spec = run.spec;
    // The forger must meet real tasks only: the split's cubes are all queued ahead of these two.
    assert.ok(run.status().cubes!.queued >= 4, `the split queued ${run.status().cubes!.queued} cubes`);
    for (const placements of [[{ cell: 16, piece: 0, rot: 0 }], [{ cell: 0, piece: 0, rot: 1 }]]) {
      await js.publish(t.names.cubesSubject(run.id), CubeTask.encode(CubeTask.fromPartial({
        runId: run.id, cubeId: "999", formulaSha256: spec.formulaSha256, numVars: spec.numVars, units: [1], placements, solver: spec.solver, puzzleSha256: spec.puzzleSha256, lease: "x",
      })).finish());
    }
    const consumer = await js.consumers.get(t.names.cubesStream, t.names.runConsumer(run.id));
    const solution = placementsOfTriangleBoard(readTriangleBoardJSON(readFileSync(join(REPO_ROOT, "test/fixtures/cluster/tri-4-l4-s4.solution.json"), "utf8"), puzzle));
    const swapped = solution.map((p, k, all) => (k === 0 ? { ...p, piece: all[1].piece } : k === 1 ? { ...p, piece: all[0].piece } : p));
    const shows = (p: { cell: number; piece: number; rot: number }): string => [0, 1, 2].map((d) => placedLabel(puzzle.pieces[p.piece].edges, p.rot, d)).join(".");
    const inCube = (task: CubeTask): boolean => task.placements.every((p) => shows(solution.find((q) => q.cell === p.cell)!) === shows(p));
    const notASolution: Partial<Verdict> = { kind: VerdictKind.VERDICT_KIND_SAT, counted: { solutions: 1, boards: [{ cells: swapped }] } };
    const lies: Array<(task: CubeTask) => Partial<Verdict>> = [
      () => notASolution,
      // More solutions than boards, under the cap of boards a verdict carries.
      () => ({ kind: VerdictKind.VERDICT_KIND_SAT, counted: { solutions: 1_000_000, boards: [] } }),
      // A turn the puzzle does not allow.
      (task) => ({ kind: VerdictKind.VERDICT_KIND_SAT, counted: { solutions: 1, boards: [{ cells: solution.map((p) => (p.cell === task.placements[0].cell ? { ...p, rot: 2 } : p)) }] } }),
      // A real solution, of another cube.
      (task) => (inCube(task) ? notASolution : { kind: VerdictKind.VERDICT_KIND_SAT, counted: { solutions: 1, boards: [{ cells: solution }] } }),
    ];
    for (const lie of lies) {
      const m = await consumer.next({ expires: 5000 });
      assert.ok(m, "a task to answer");
      const task = CubeTask.decode(m.data);
      await js.publish(t.names.verdictsSubject(run.id, "forger"), Verdict.encode(Verdict.fromPartial({
        runId: run.id, cubeId: task.cubeId, workerId: "forger", lease: task.lease, taskSeq: m.info.streamSequence, delivery: m.info.deliveryCount, ...lie(task),
      })).finish());
      m.ack();
    }
    assert.ok(await eventually(() => run.status().rejectedModels === lies.length, 20_000), `rejected ${run.status().rejectedModels}`);
    assert.equal(run.status().solutionCount, 0, "nothing forged was counted");
    const w = await startTestWorker(t, { workerId: "good" });
    try {
      assert.equal(await waitForRunEnd(run, 60_000), RunState.RUN_STATE_SAT);
      const s = run.status();
      assert.deepEqual([s.solutionCount, s.countComplete, s.rejectedModels, s.cubes!.failed], [count, true, lies.length, 0]);
      assert.ok(await eventually(() => w.logged(/task terminated.*out of range for a triangle of side 4 of 16 pieces/).length === 2), w.logs.slice(-20).join("\n"));
    } finally {
      await w.close();
    }
  } finally {
    await c.close();
    await t.close();
  }
});

test("triangle cancel - a running triangle count stops within a second of the run's cancel; the worker stays responsive meanwhile", async () => {
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  const w = await startTestWorker(t, { workerId: "w1" });
  try {
    // Free outer edges and 4 labels on side 6: far more than any budget here counts.
    const big = generateTriangle({ side: 6, labels: 4, seed: 1 }).puzzle;
    const run = await c.coordinator.submitRun({ puzzleText: writeTriangle(big), puzzleLabel: "big", mode: "all", targetCubes: 1, timeLimitSec: 600, firstTimeLimitSec: 600 });
    assert.ok(await eventually(() => w.worker.status().busy === 1, 20_000), "the worker took the cube");
    // The search runs in a thread: this process's event loop (the worker's heartbeats and acks) stays free.
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(performance.now() - t0 < 400, `a 100 ms timer fired after ${(performance.now() - t0).toFixed(0)} ms`);
    }
    assert.equal(w.worker.status().busy, 1);
    const beats = w.logs.length;
    const cancelledAt = performance.now();
    await run.cancel("enough");
    assert.ok(await eventually(() => w.worker.status().busy === 0, 3000), "the cube did not stop");
    const took = performance.now() - cancelledAt;
    assert.ok(took < 1500, `stopped after ${took.toFixed(0)} ms`);
    assert.ok(await eventually(() => w.logged(/cube stopped; task acked/).length === 1, 2000), w.logs.slice(beats).join("\n"));
  } finally {
    await w.close();
    await c.close();
    await t.close();
  }
});
