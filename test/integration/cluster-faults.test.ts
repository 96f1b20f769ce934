/**
 * Faults a week-long run must survive, with real parts: a private nats-server, the coordinator, worker
 * processes and real Kissat (behind wrappers where a test needs a slow or broken solver).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, writeFakeSolver, type CubistProcess } from "../helpers/processes.js";
import { requestFor, startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";

/** Kissat refutes each of its cubes in tens of ms: a test that needs a cube to run a while wraps the solver in a sleep. */
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";

function startWorker(t: TestNats, id: string, solverPath: string | undefined, marker: { env: Record<string, string> }, extra: string[] = []): CubistProcess {
  const args = ["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", id, "--log-level", "debug", "--grace", "0", ...extra];
  if (solverPath) args.push("--solver-path", solverPath);
  return spawnCubist(args, { env: marker.env });
}

async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), "cubist-faults-"));
  const t = await startTestNats();
  const marker = newMarker();
  const workers: CubistProcess[] = [];
  return {
    dir, t, marker, workers,
    async close() {
      for (const w of workers) w.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.exited));
      await t.close();
      rmSync(dir, { recursive: true, force: true });
      assert.deepEqual(await waitNoMarked(marker.value), []);
    },
  };
}

test("faults - a worker killed with SIGKILL mid-cube: its cube is redelivered after ack_wait and the run ends right", async () => {
  const f = await fixture();
  const c = await startTestCoordinator(f.t, { ackWaitMs: 3000, maxDeliver: 5 });
  try {
    const slow = writeFakeSolver(f.dir, "slow-kissat", 'sleep 2\nexec kissat "$@"');
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 6 }));
    const verdicts: Verdict[] = [];
    run.on("verdict", (v) => verdicts.push(v));
    const a = startWorker(f.t, "victim", slow, f.marker);
    f.workers.push(a);
    await a.waitForLog(/cube started/, 20_000);
    a.kill("SIGKILL");
    await a.exited;
    f.workers.push(startWorker(f.t, "survivor", undefined, f.marker));
    assert.equal(await waitForRunEnd(run, 90_000), RunState.RUN_STATE_UNSAT);
    assert.ok(verdicts.some((v) => v.delivery >= 2 && v.workerId === "survivor"), "a redelivered cube was answered by the survivor");
    assert.equal(run.status().cubes!.failed, 0);
    assert.ok(Math.abs(run.status().progress - 1) < 1e-9);
  } finally {
    await c.close();
    await f.close();
  }
});

for (const [name, body] of [
  ["crashes", "kill -SEGV $$"],
  ["prints garbage", 'cat > /dev/null\necho "s SATISFIABLE"\necho "v 1 2 banana 0"\nexit 10'],
] as const) {
  test(`faults - a solver that ${name}: a lone worker's errors retry the cube up to max_deliver, the run ends FAILED, and resumed with a good worker ends UNSAT`, async () => {
    const f = await fixture();
    const c = await startTestCoordinator(f.t, { ackWaitMs: 5000, maxDeliver: 3 });
    try {
      const bad = writeFakeSolver(f.dir, "bad-solver", body);
      // Never quarantined: the lone worker keeps answering, so its errors use up the cubes' error budget.
      const w = startWorker(f.t, "w1", bad, f.marker, ["--quarantine-after", "0"]);
      f.workers.push(w);
      const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 2 }));
      const verdicts: Verdict[] = [];
      run.on("verdict", (v) => verdicts.push(v));
      assert.equal(await waitForRunEnd(run, 90_000), RunState.RUN_STATE_FAILED);
      const s = run.status();
      assert.ok(s.cubes!.failed >= 1, JSON.stringify(s.cubes));
      assert.match(s.message, /failed/);
      // Every cube that failed got max_deliver error verdicts, each for a new task (delivered once).
      const perCube = new Map<string, number>();
      for (const v of verdicts) perCube.set(v.cubeId, (perCube.get(v.cubeId) ?? 0) + 1);
      for (const e of run.table.entries()) if (e.state === "failed") assert.equal(perCube.get(e.id), 3, `cube ${e.id}`);
      assert.ok(verdicts.every((v) => v.delivery === 1), "no task was redelivered");
      assert.equal(w.child.exitCode, null, "the worker is still running");
      assert.ok(c.coordinator.liveWorkers().some((x) => x.status.workerId === "w1"));

      // Fixed: the broken worker goes, a good one comes, and the FAILED run is resumed.
      w.kill("SIGKILL");
      await w.exited;
      f.workers.push(startWorker(f.t, "w2", undefined, f.marker));
      await run.resume();
      assert.match(run.message, /failed cube\(s\) sent again/);
      assert.equal(await waitForRunEnd(run, 90_000), RunState.RUN_STATE_UNSAT);
      assert.equal(run.status().cubes!.failed, 0);
      assert.ok(Math.abs(run.status().progress - 1) < 1e-9);
    } finally {
      await c.close();
      await f.close();
    }
  });
}

test("faults - malformed and foreign messages on the cube subject are terminated; the worker survives and the run completes", async () => {
  const f = await fixture();
  const c = await startTestCoordinator(f.t);
  try {
    // The junk goes onto the run's subject before the run's cubes, so the worker meets it first: published after
    // them, it raced the run's end (a one-slot worker could finish the last cube before pulling it).
    const runId = `junk-${process.pid}-${Date.now()}`;
    const subject = f.t.names.cubesSubject(runId);
    await f.t.layout.js.publish(subject, new Uint8Array([1, 2, 3, 250, 251]));
    await f.t.layout.js.publish(subject, new TextEncoder().encode("not a cube at all"));
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 4, runId }));
    const w = startWorker(f.t, "w1", undefined, f.marker);
    f.workers.push(w);
    assert.equal(await waitForRunEnd(run, 90_000), RunState.RUN_STATE_UNSAT);
    assert.match(w.stderr(), /task terminated: malformed or foreign/);
    assert.equal(w.child.exitCode, null);
  } finally {
    await c.close();
    await f.close();
  }
});

test("faults - nats-server restarted mid-run on the same store: everyone reconnects and the run completes", async () => {
  const f = await fixture();
  const c = await startTestCoordinator(f.t, { ackWaitMs: 5000 });
  try {
    const slow = writeFakeSolver(f.dir, "slow-kissat", 'sleep 1\nexec kissat "$@"');
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 12 }));
    f.workers.push(startWorker(f.t, "w1", slow, f.marker), startWorker(f.t, "w2", slow, f.marker));
    await f.workers[0].waitForLog(/cube started/, 20_000);
    await new Promise((r) => setTimeout(r, 1500));
    await f.t.server.restart();
    assert.equal(await waitForRunEnd(run, 120_000), RunState.RUN_STATE_UNSAT);
    assert.ok(Math.abs(run.status().progress - 1) < 1e-9);
    for (const w of f.workers) {
      assert.equal(w.child.exitCode, null);
      assert.match(w.stderr(), /NATS reconnected|reconnect/i);
    }
  } finally {
    await c.close();
    await f.close();
  }
});

test("faults - after the first verified solution no solver is left running (cancel within a second)", async () => {
  const f = await fixture();
  const c = await startTestCoordinator(f.t);
  try {
    // The first solver call answers at once; every later one sleeps first, so it is still running when the
    // solution arrives and must be killed by the cancel.
    const counter = join(f.dir, "calls");
    const gated = writeFakeSolver(f.dir, "gated-kissat", `n=$(( $(cat ${counter} 2>/dev/null || echo 0) + 1 ))\necho $n > ${counter}\nif [ "$n" -gt 1 ]; then sleep 60; fi\nexec kissat "$@"`);
    const run = await c.coordinator.submitRun(requestFor("test/fixtures/cluster/clue1-shuffled-s11.txt", { targetCubes: 8 }));
    const w1 = startWorker(f.t, "w1", gated, f.marker);
    f.workers.push(w1);
    await w1.waitForLog(/cube started/, 20_000);
    f.workers.push(startWorker(f.t, "w2", gated, f.marker));
    assert.equal(await waitForRunEnd(run, 60_000), RunState.RUN_STATE_SAT);
    const t0 = Date.now();
    // No solver (nor its sleeping wrapper) is left: only the two worker processes carry the marker.
    for (;;) {
      const { markedProcesses } = await import("../helpers/leftovers.js");
      const left = markedProcesses(f.marker.value).filter((p) => !/ worker /.test(p.cmd));
      if (left.length === 0) break;
      assert.ok(Date.now() - t0 < 2000, `solvers still running ${Date.now() - t0} ms after the solution: ${JSON.stringify(left)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await c.close();
    await f.close();
  }
});

test("faults - a worker killed with SIGKILL and started again: its cubes go out again at once, not after ack_wait", async () => {
  const f = await fixture();
  // An ack_wait far longer than the test: only the restart can bring the cube back in time.
  const c = await startTestCoordinator(f.t, { ackWaitMs: 120_000, maxDeliver: 5 });
  try {
    const slow = writeFakeSolver(f.dir, "slow-kissat", 'sleep 3\nexec kissat "$@"');
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 4 }));
    const a = startWorker(f.t, "phoenix", slow, f.marker, ["--status-interval", "0.5"]);
    f.workers.push(a);
    await a.waitForLog(/cube started/, 20_000);
    // Its heartbeats (every 0.5 s) have told the coordinator what it runs.
    await new Promise((r) => setTimeout(r, 1200));
    a.kill("SIGKILL");
    await a.exited;
    const restartedAt = Date.now();
    f.workers.push(startWorker(f.t, "phoenix", undefined, f.marker));
    assert.equal(await waitForRunEnd(run, 60_000), RunState.RUN_STATE_UNSAT);
    assert.ok(Date.now() - restartedAt < 30_000, `the run ended ${Date.now() - restartedAt} ms after the restart`);
    assert.equal(c.logged(/worker started again; its cubes are sent again/).length, 1);
  } finally {
    await c.close();
    await f.close();
  }
});
