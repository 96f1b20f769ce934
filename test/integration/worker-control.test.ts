/**
 * Stopping and keeping cubes alive, with scripted fake solvers that record their pids: cancels (whole run, one
 * cube, pause-now), a run that ends or disappears mid-cube, heartbeats across several ack_waits, a crashing
 * solver (error verdicts, then quarantine), a hanging one (killed at the task's time limit), and close() with and
 * without grace. Every stop is checked to leave no solver process behind.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { readBrendan } from "../../core/formats/index.js";
import { VerdictKind, WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { processGroupMembers, recordedPids, sleepingSolver, writeFakeSolver } from "../helpers/processes.js";
import { createTestRun, cubeTask, eventually, publishCancel, publishTasks, readVerdicts, runConsumerInfo, setRunState } from "../helpers/runs.js";
import { startTestWorker } from "../helpers/worker.js";

const puzzle = readBrendan(readFileSync(new URL("../fixtures/brendan/pieces_04x04.txt", import.meta.url), "utf8"), "pieces_04x04.txt");
const FAKES = new URL("../fixtures/fake-solvers/", import.meta.url).pathname;

let t: TestNats;
let dir: string;
before(async () => {
  t = await startTestNats();
  dir = mkdtempSync(join(tmpdir(), "cubist-worker-control-"));
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Waits until the fake solver has recorded `n` pids; returns them. */
async function solverStarted(pidFile: string, n = 1): Promise<number[]> {
  assert.ok(await eventually(() => recordedPids(pidFile).length >= n, 10_000), `${n} solver(s) started`);
  return recordedPids(pidFile);
}

/** True once no process is left in the solver's process group (its pid is the group id). */
function gone(pid: number): boolean {
  return processGroupMembers(pid).length === 0;
}

async function quietFor(ms: number): Promise<number> {
  return (await readVerdicts(t, 1, ms)).length;
}

test("cancel - a cancel for the run stops its solver within 1 s, acks the task, sends no verdict", async () => {
  const pidFile = join(dir, "cancel-run.pids");
  const run = await createTestRun(t, { id: "cancel-run", puzzle });
  const w = await startTestWorker(t, { solverPath: sleepingSolver(dir, "sleep-a.sh", 60, pidFile) });
  try {
    await publishTasks(t, [cubeTask(run, "7")]);
    const [pid] = await solverStarted(pidFile);
    const cancelledAt = performance.now();
    publishCancel(t, run.id, "", "sat");
    assert.ok(await eventually(() => gone(pid), 1000), "the solver's process group is gone within 1 s");
    assert.ok(performance.now() - cancelledAt < 1000);
    assert.ok(await eventually(async () => (await runConsumerInfo(t, run.id)).num_ack_pending === 0), "the task was acked");
    assert.equal(await quietFor(500), 0, "no verdict");
    assert.equal(w.logged(/cancel .*run=cancel-run .*why=sat .*stopped=1/).length, 1, w.logs.join("\n"));
    assert.equal(w.worker.stats().dropped, 1);
  } finally {
    await w.close();
  }
});

test("cancel - a cancel for one cube stops that cube only", async () => {
  const pidFile = join(dir, "cancel-cube.pids");
  const run = await createTestRun(t, { id: "cancel-cube", puzzle });
  const w = await startTestWorker(t, { concurrency: 2, solverPath: sleepingSolver(dir, "sleep-b.sh", 3, pidFile) });
  try {
    await publishTasks(t, [cubeTask(run, "1.2"), cubeTask(run, "1.3")]);
    const pids = await solverStarted(pidFile, 2);
    publishCancel(t, run.id, "1.2", "resplit");
    assert.ok(await eventually(() => w.logged(/cancel .*cube=1\.2 .*stopped=1/).length === 1, 2000));
    const verdicts = await readVerdicts(t, 1, 10_000);
    assert.deepEqual(verdicts.map((v) => [v.cubeId, v.kind]), [["1.3", VerdictKind.VERDICT_KIND_UNSAT]]);
    assert.equal(await quietFor(300), 0);
    for (const pid of pids) assert.ok(gone(pid));
  } finally {
    await w.close();
  }
});

test("cancel - pause-now hands the task back; it runs again once the run is resumed", async () => {
  const pidFile = join(dir, "pause.pids");
  const marker = join(dir, "pause.marker");
  // The first run sleeps (and is stopped); later ones answer at once.
  const solver = writeFakeSolver(dir, "pause.sh", `
if [ -e "${marker}" ]; then echo "s UNSATISFIABLE"; exit 20; fi
touch "${marker}"
echo $$ >> "${pidFile}"
sleep 60`);
  const run = await createTestRun(t, { id: "pausing", puzzle });
  const w = await startTestWorker(t, { solverPath: solver });
  try {
    await publishTasks(t, [cubeTask(run, "3")]);
    const [pid] = await solverStarted(pidFile);
    await setRunState(t, run, RunState.RUN_STATE_PAUSED);
    publishCancel(t, run.id, "", "pause-now");
    assert.ok(await eventually(() => gone(pid), 1000), "stopped within 1 s");
    assert.equal(await quietFor(700), 0, "no verdict while paused");
    const info = await runConsumerInfo(t, run.id);
    assert.equal(info.num_ack_pending + info.num_pending, 1, "the task is still there");
    await setRunState(t, run, RunState.RUN_STATE_RUNNING);
    const [v] = await readVerdicts(t, 1, 10_000);
    assert.deepEqual([v?.cubeId, v?.kind, v?.delivery], ["3", VerdictKind.VERDICT_KIND_UNSAT, 2]);
  } finally {
    await w.close();
  }
});

test("cancel - a run that ends (KV state) or is deleted mid-cube has its cubes stopped", async () => {
  const pidFile = join(dir, "state.pids");
  const ended = await createTestRun(t, { id: "ends", puzzle });
  const deleted = await createTestRun(t, { id: "deleted", puzzle });
  const w = await startTestWorker(t, { concurrency: 2, solverPath: sleepingSolver(dir, "sleep-c.sh", 60, pidFile) });
  try {
    await publishTasks(t, [cubeTask(ended, "0"), cubeTask(deleted, "0")]);
    const pids = await solverStarted(pidFile, 2);
    await setRunState(t, ended, RunState.RUN_STATE_UNSAT);
    await t.layout.runs.delete(deleted.id);
    assert.ok(await eventually(() => pids.every(gone), 1500), "both solvers stopped");
    assert.ok(w.logged(/stopping the run's cubes .*run=ends .*why="run unsat"/).length === 1, w.logs.join("\n"));
    assert.ok(w.logged(/stopping the run's cubes .*run=deleted .*why="run deleted"/).length === 1);
    assert.equal(await quietFor(300), 0, "no verdicts");
  } finally {
    await w.close();
  }
});

test("heartbeat - a cube running for 2.5 ack_waits is not redelivered while its worker lives", async () => {
  const pidFile = join(dir, "long.pids");
  const run = await createTestRun(t, { id: "long", puzzle, ackWaitMs: 2000 });
  // Two slots: a redelivered copy would be picked up by the idle one.
  const w = await startTestWorker(t, { concurrency: 2, solverPath: sleepingSolver(dir, "sleep-5.sh", 5, pidFile) });
  try {
    await publishTasks(t, [cubeTask(run, "0")]);
    const verdicts = await readVerdicts(t, 1, 15_000);
    assert.deepEqual(verdicts.map((v) => [v.kind, v.delivery]), [[VerdictKind.VERDICT_KIND_UNSAT, 1]]);
    assert.ok(verdicts[0].stats!.wallMs >= 5000, `wall ${verdicts[0].stats!.wallMs}`);
    assert.equal(recordedPids(pidFile).length, 1, "the solver ran once");
    const info = await runConsumerInfo(t, run.id);
    assert.equal(info.num_redelivered, 0);
  } finally {
    await w.close();
  }
});

test("solver crash - an error verdict with the reason and the task acked; 3 in a row quarantine the worker, which says why", async () => {
  const run = await createTestRun(t, { id: "crashy", puzzle, maxDeliver: 3 });
  const w = await startTestWorker(t, { solverPath: join(FAKES, "crash-exit1.sh") });
  const statuses: WorkerStatus[] = [];
  const sub = t.nc.subscribe(t.names.workerSubject(w.worker.id), { callback: (_e, m) => void statuses.push(WorkerStatus.decode(m.data)) });
  try {
    await publishTasks(t, [0, 1, 2, 3].map((i) => cubeTask(run, String(i))));
    const verdicts = await readVerdicts(t, 3, 15_000);
    // Each error is answered once and acked: the coordinator, not a redelivery, decides whether it runs again.
    assert.deepEqual(verdicts.map((v) => [v.cubeId, v.kind, v.delivery, v.lease]), [0, 1, 2].map((i) => [String(i), VerdictKind.VERDICT_KIND_ERROR, 1, `lease-${i}`]));
    assert.match(verdicts[0].reason, /SolverCrashedError: solver .*crash-exit1\.sh exited with code 1/);
    assert.match(verdicts[0].reason, /out of memory/);
    assert.equal(await quietFor(1500), 0, "no fourth cube taken while quarantined");
    const info = await runConsumerInfo(t, run.id);
    assert.deepEqual([info.num_redelivered, info.num_ack_pending, info.num_pending], [0, 0, 1], "3 acked, the 4th left for others");
    assert.equal(w.worker.state, "running");
    assert.equal(w.worker.stats().errors, 3);
    assert.match(w.worker.stats().quarantined, /^3 solver errors in a row; last: SolverCrashedError: .*exited with code 1/);
    assert.equal(w.logged(/worker quarantined/).length, 1);
    assert.ok(await eventually(() => statuses.some((s) => /^3 solver errors in a row/.test(s.quarantined)), 3000), "heartbeats say why");
  } finally {
    sub.unsubscribe();
    await w.close();
    // The 4th task stays queued: the next tests' workers must not meet it.
    await t.jsm.streams.purge(t.names.cubesStream, { filter: t.names.cubesSubject(run.id) });
  }
});

test("solver hang - a solver that ignores its time limit and SIGTERM is killed, the verdict is unknown time-limit", async () => {
  const pidFile = join(dir, "hang.pids");
  const solver = writeFakeSolver(dir, "hang.sh", `
trap '' TERM INT
echo $$ >> "${pidFile}"
sleep 60 &
while :; do sleep 1; done`);
  const run = await createTestRun(t, { id: "hangs", puzzle });
  const w = await startTestWorker(t, { solverPath: solver });
  try {
    const started = performance.now();
    await publishTasks(t, [cubeTask(run, "0", { solver: { timeLimitSec: 0.5 } })]);
    const [v] = await readVerdicts(t, 1, 10_000);
    const elapsed = performance.now() - started;
    assert.deepEqual([v?.kind, v?.reason], [VerdictKind.VERDICT_KIND_UNKNOWN, "time-limit"]);
    // 0.5 s limit + 2 s watchdog slack + 1 s between SIGTERM and SIGKILL.
    assert.ok(elapsed > 3000 && elapsed < 6000, `took ${elapsed} ms`);
    assert.ok(gone(recordedPids(pidFile)[0]), "the whole group was killed");
  } finally {
    await w.close();
  }
});

test("close - with grace a running cube finishes and is answered; without, it is handed back at once", async () => {
  const pidFile = join(dir, "close.pids");
  const run = await createTestRun(t, { id: "closing", puzzle });
  const a = await startTestWorker(t, { workerId: "grace-a", solverPath: sleepingSolver(dir, "sleep-1.sh", 1, pidFile) });
  await publishTasks(t, [cubeTask(run, "0")]);
  await solverStarted(pidFile);
  await a.close(10_000);
  assert.equal(a.worker.state, "closed");
  const [v] = await readVerdicts(t, 1, 1000);
  assert.deepEqual([v?.cubeId, v?.kind, v?.workerId], ["0", VerdictKind.VERDICT_KIND_UNSAT, "grace-a"], "answered before close() resolved");

  const pidFile2 = join(dir, "close2.pids");
  const b = await startTestWorker(t, { workerId: "grace-b", solverPath: sleepingSolver(dir, "sleep-60.sh", 60, pidFile2) });
  await publishTasks(t, [cubeTask(run, "1")]);
  const [pid] = await solverStarted(pidFile2);
  await b.close(0);
  assert.ok(gone(pid), "the solver was stopped");
  assert.ok(b.logged(/task handed back .*why=shutdown/).length === 1, b.logs.join("\n"));
  // ack_wait is 30 s: only the nak makes it available to the next worker this soon.
  const c = await startTestWorker(t, { workerId: "grace-c" });
  try {
    const [v2] = await readVerdicts(t, 1, 5000);
    assert.deepEqual([v2?.cubeId, v2?.workerId, v2?.delivery], ["1", "grace-c", 2]);
  } finally {
    await c.close();
  }
});
