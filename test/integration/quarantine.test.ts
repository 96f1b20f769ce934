/**
 * Quarantine instead of failure, with real parts (nats-server, coordinator, in-process workers, real Kissat): a
 * worker whose solver crashes beside a good one does not fail the run. It is quarantined after 3 errors in a row,
 * says why (heartbeats, the dashboard's worker view, the coordinator's metric), and the cubes it failed are solved
 * by the good worker. A run whose formula is bad is the task's fault, not the workers': it fails, and quarantines
 * nobody.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { requestFor, startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { startTestNats } from "../helpers/nats.js";
import { writeFakeSolver } from "../helpers/processes.js";
import { sha256Hex } from "../helpers/runs.js";
import { startTestWorker } from "../helpers/worker.js";
import { flaggedWorkerViews } from "../helpers/worker-views.js";

/** Kissat refutes each of its cubes in tens of ms; the good worker is slowed by a wrapper. */
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const CRASH = new URL("../fixtures/fake-solvers/crash-exit1.sh", import.meta.url).pathname;

test("quarantine - a worker whose solver crashes beside a good one: quarantined with its reason, no cube fails, the run ends UNSAT", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-quarantine-"));
  const t = await startTestNats();
  // max_deliver 3: before quarantine, the always-idle broken worker took every retry and failed cubes with it.
  const c = await startTestCoordinator(t, { ackWaitMs: 5000, maxDeliver: 3 });
  const broken = await startTestWorker(t, { workerId: "broken", solverPath: CRASH });
  // The good worker is slow to answer, so the broken one gets most cubes first.
  const good = await startTestWorker(t, { workerId: "good", solverPath: writeFakeSolver(dir, "slow-kissat", 'sleep 0.5\nexec kissat "$@"') });
  try {
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 8 }));
    assert.equal(await waitForRunEnd(run, 120_000), RunState.RUN_STATE_UNSAT);
    const s = run.status();
    assert.equal(s.cubes!.failed, 0);
    assert.ok(Math.abs(s.progress - 1) < 1e-9);
    assert.equal(broken.worker.stats().errors, 3, "three errors, then no more cubes");
    assert.match(broken.worker.stats().quarantined, /^3 solver errors in a row; last: SolverCrashedError/);
    assert.equal(good.worker.stats().errors, 0);
    const closedBy = new Set([...run.table.entries()].filter((e) => e.state === "unsat").map((e) => e.worker));
    assert.deepEqual([...closedBy], ["good"]);
    // The run's timeline says which worker was quarantined and why, once (coordinator/shell/quarantine-notes.ts).
    const notes = run.timeline.events.filter((e) => e.kind === "quarantine");
    assert.deepEqual(notes.map((e) => e.actor), ["broken"], JSON.stringify(run.timeline.events));
    assert.match(notes[0].message, /^worker broken quarantined: 3 solver errors in a row; last: SolverCrashedError/);
    // What the dashboard (its worker table reads /api/workers) and Prometheus see, from the heartbeats.
    const { rows, metrics: text } = await flaggedWorkerViews(t, c, "broken");
    assert.match(rows.find((w) => w.workerId === "broken")!.quarantined, /^3 solver errors in a row; last: SolverCrashedError/);
    assert.equal(rows.find((w) => w.workerId === "good")!.quarantined, "");
    assert.match(text, /^cubist_cluster_quarantined_workers 1$/m);
  } finally {
    await broken.close();
    await good.close();
    await c.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("quarantine - a run whose formula object does not match its name fails as the task's fault and quarantines no worker", async () => {
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  const workers: Array<Awaited<ReturnType<typeof startTestWorker>>> = [];
  try {
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 8 }));
    // Before any worker reads it, the formula object is replaced by bytes that do not hash to its name.
    const sha = run.spec.formulaSha256;
    const other = "p cnf 1 1\n1 0\n";
    assert.notEqual(sha256Hex(other), sha);
    await t.layout.formulas.put({ name: sha, description: "not the run's formula" }, new Blob([other]).stream());
    for (const id of ["w1", "w2"]) workers.push(await startTestWorker(t, { workerId: id, quarantineAfter: 3 }));
    assert.equal(await waitForRunEnd(run, 120_000), RunState.RUN_STATE_FAILED);
    const errors = workers.map((w) => w.worker.stats().errors);
    assert.ok(Math.max(...errors) >= 3, `errors ${errors}: enough in a row to quarantine a worker if they counted`);
    for (const w of workers) {
      assert.equal(w.worker.stats().quarantined, "", "nobody is quarantined for a bad run");
      assert.ok(w.logged(/cube failed; error verdict sent/).every((l) => /fault=task/.test(l)));
    }
    const failed = [...run.table.entries()].filter((e) => e.state === "failed");
    assert.ok(failed.length > 0);
    // The coordinator read the fault from the verdicts (Verdict.fault), not from the reason's words.
    for (const e of failed) assert.match(e.reason ?? "", /in all: task fault: formula unavailable: formula [0-9a-f]{64}: downloaded bytes hash to/);
  } finally {
    for (const w of workers) await w.close();
    await c.close();
    await t.close();
  }
});
