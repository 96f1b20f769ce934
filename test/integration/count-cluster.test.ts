/**
 * Counting on the cluster (docs/cluster.md "Counting"), as users run it: `solve --workers N --all` on the embedded
 * cluster, and `run submit --all` to a coordinator process that is SIGKILLed mid-count and replaced. The counts are
 * checked against `solve --all` on one machine and the boards (every one written, verified here again) against its
 * boards, compared by the colours they show (copies of identical pieces are one board).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, spawnCubist, writeFakeSolver, runCubist } from "../helpers/processes.js";
import { startTestNats } from "../helpers/nats.js";
import { apiClient, freePort, replaceCoordinator, runMidCount, spawnCoordinator } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { rotateEdges, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";

const SMALL = "test/fixtures/cluster/count-4x4-24.txt";
const MEDIUM = "test/fixtures/cluster/count-5x5-1820.txt";

/** The boards of an -o file as colour strings, each verified. */
function boardKeys(puzzle: Puzzle, file: string): string[] {
  const keys = readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((line) => {
    const board = readBoardJSON(JSON.stringify(JSON.parse(line).board), puzzle);
    assert.ok(verifySolution(puzzle, board).ok);
    return board.cells.map((c) => rotateEdges(puzzle.pieces[c!.piece].edges, c!.rot).join(".")).join(",");
  });
  return keys.sort();
}

test("count cluster - solve --workers 2 --all counts what solve --all counts, with re-splits; -o writes the same boards, verified", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-count-cluster-"));
  try {
    const puzzle = parsePuzzle(readFileSync(join(REPO_ROOT, SMALL), "utf8"), SMALL, "auto");
    const local = await runCubist(["solve", SMALL, "--all", "--json", "-o", join(dir, "local.ndjson")]);
    assert.equal(local.code, 0, local.stderr);
    const expected = JSON.parse(local.stdout) as { count: number };
    const cluster = await runCubist(["solve", SMALL, "--workers", "2", "--all", "--json", "--cubes", "8", "-o", join(dir, "cluster.ndjson")]);
    assert.equal(cluster.code, 0, cluster.stderr);
    const out = JSON.parse(cluster.stdout) as { status: string; count: number; complete: boolean; workers: number; stats: { progress: number } };
    assert.deepEqual([out.status, out.count, out.complete, out.workers], ["sat", expected.count, true, 2]);
    assert.ok(Math.abs(out.stats.progress - 1) < 1e-9);
    assert.deepEqual(boardKeys(puzzle, join(dir, "cluster.ndjson")), boardKeys(puzzle, join(dir, "local.ndjson")));
    // Tiny budgets: cubes come back unknown and are re-split; only exhausted cubes count, so the count is still exact.
    const resplit = await runCubist(["solve", MEDIUM, "--workers", "2", "--all", "--json", "--cubes", "4", "--cube-time-first", "0.005", "--cube-time", "0.02"]);
    assert.equal(resplit.code, 0, resplit.stderr);
    const r = JSON.parse(resplit.stdout) as { count: number; complete: boolean; stats: { cubes: { resplit: number } } };
    assert.deepEqual([r.count, r.complete], [1820, true]);
    assert.ok(r.stats.cubes.resplit > 0, "no cube was re-split");
    // --limit: a lower bound, not complete.
    const limited = await runCubist(["solve", MEDIUM, "--workers", "1", "--all", "--json", "--limit", "10", "--cubes", "32"]);
    assert.equal(limited.code, 0, limited.stderr);
    const l = JSON.parse(limited.stdout) as { count: number; complete: boolean; reason: string };
    assert.equal(l.complete, false);
    assert.equal(l.reason, "limit");
    assert.ok(l.count >= 10 && l.count < 1820, `count ${l.count}`);
    const refused = await runCubist(["solve", SMALL, "--workers", "1", "--all", "--up-to-symmetry"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /up-to-symmetry: folds boards on one machine only/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("count resume - coordinator SIGKILLed mid-count: a new one resumes from the ledger and the count is exact, nothing counted twice", async () => {
  const t = await startTestNats();
  const dir = mkdtempSync(join(tmpdir(), "cubist-count-resume-"));
  const marker = newMarker();
  const port = await freePort();
  const verdicts = new Map<string, number>();
  const sub = t.nc.subscribe(`${t.names.prefix}.verdicts.>`, {
    callback: (_e, m) => {
      const v = Verdict.decode(m.data);
      verdicts.set(v.cubeId, (verdicts.get(v.cubeId) ?? 0) + 1);
    },
  });
  // A slower engine: the kill lands while cubes are still being counted.
  const engine = writeFakeSolver(dir, "slow-engine", `sleep 0.15\nexec "${join(REPO_ROOT, "dist/engine/cubist-engine")}" "$@"`);
  const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "2", "--id", "w1", "--grace", "0"], { env: { ...marker.env, CUBIST_ENGINE: engine } });
  const a = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
  let b: Awaited<ReturnType<typeof spawnCoordinator>> | undefined;
  try {
    const api = apiClient(a.address);
    const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", {
      puzzleText: readFileSync(join(REPO_ROOT, MEDIUM), "utf8"), puzzleName: MEDIUM, mode: RunMode.RUN_MODE_ALL_SOLUTIONS, cubing: { targetCubes: 48 },
    });
    const id = run!.runId;
    const before = await runMidCount(api.call, id, 6);
    assert.equal(before.status!.state, RunState.RUN_STATE_RUNNING, "the run ended before the kill");
    assert.equal(before.status!.countComplete, false);
    api.close();
    const replaced = await replaceCoordinator(t, a, marker.env, port, id);
    b = replaced.next;
    const s = replaced.info.status!;
    assert.equal(s.state, RunState.RUN_STATE_SAT, s.message);
    assert.deepEqual([s.solutionCount, s.countComplete], [1820, true]);
    assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    assert.equal(s.cubes!.failed, 0);
    assert.equal(s.rejectedModels, 0);
    // The recorded boards (the first 100) are distinct and verified; solution list shows the count.
    assert.equal(s.solutions, 100);
    const list = await runCubist(["solution", "list", id, "--coordinator", b.address, "--json"]);
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout) as { count: number; complete: boolean; solutions: Array<{ board: unknown }> };
    assert.deepEqual([listed.count, listed.complete, listed.solutions.length], [1820, true, 100]);
    assert.equal(new Set(listed.solutions.map((x) => JSON.stringify(x.board))).size, 100);
    const show = await runCubist(["run", "show", id, "--coordinator", b.address]);
    assert.match(show.stdout, /^count\s+exactly 1820 solutions/m);
    // One count: not "solutions 100" (the recorded boards) beside it; and a watch prints no line per board.
    assert.doesNotMatch(show.stdout, /^solutions\s/m);
    const watch = await runCubist(["run", "watch", id, "--coordinator", b.address]);
    assert.equal(watch.code, 0, watch.stderr);
    assert.doesNotMatch(watch.stdout, /solution \d+ found/);
    assert.match(watch.stdout, /exactly 1820 solutions/);
    assert.ok(verdicts.size > 0);
  } finally {
    sub.unsubscribe();
    worker.kill("SIGTERM");
    a.proc.kill("SIGKILL");
    b?.proc.kill("SIGTERM");
    await Promise.all([worker.exited, a.proc.exited, b?.proc.exited]);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
