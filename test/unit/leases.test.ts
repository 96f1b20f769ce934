/**
 * Leases, identities and the error budget in the run model, without NATS: every task carries a fresh lease that
 * the ledger records (and replays), a verdict counts only with its cube's current lease from the worker its
 * subject names, errors from one worker retry a cube instead of failing it, and a FAILED run can be resumed.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { checkVerdict, workerOfVerdictSubject } from "../../coordinator/model/leases.js";
import { newLease } from "../../coordinator/shell/lease-tokens.js";
import { RunModel } from "../../coordinator/model/run-model.js";
import { CubeTable } from "../../coordinator/model/cube-table.js";
import { CUBE_FAIL_WORKERS } from "../../coordinator/model/record-verdicts.js";
import { createNames } from "../../proto/contract.js";
import { FaultKind, VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { modelHarness } from "../helpers/run-model.js";

const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const names = createNames();

function harness(maxDeliver = 8) {
  return modelHarness({ runId: "r1", searchMs: 0, puzzleText: UNSAT, targetCubes: 4 }, { maxDeliver });
}

function snapshot(m: RunModel) {
  return {
    state: m.state,
    message: m.message,
    finishedAt: m.finishedAt,
    counts: m.table.snapshotCounts(),
    cubes: [...m.table.entries()].map((e) => ({ id: e.id, state: e.state, seq: e.seq, lease: e.lease, errors: e.errors, errorWorkers: e.errorWorkers })),
  };
}

/** A verdict as `worker` sends it, with the cube's current lease unless told otherwise. */
function verdict(m: RunModel, cube: string, kind: VerdictKind, worker = "w1", extra: Partial<Verdict> = {}): Verdict {
  return {
    runId: "r1", cubeId: cube, kind, model: Buffer.alloc(0), numVars: 0, stats: undefined, workerId: worker, host: "h",
    delivery: 1, reason: kind === VerdictKind.VERDICT_KIND_ERROR ? "solver crashed" : "", generation: 0, board: [], taskSeq: 0, best: [], proofSha256: "", fault: FaultKind.FAULT_KIND_UNSPECIFIED,
    lease: m.table.get(cube)?.lease ?? "", ...extra,
  };
}

function openCubes(m: RunModel): string[] {
  return [...m.table.entries()].filter((e) => e.state === "queued" || e.state === "unknown").map((e) => e.id);
}

test("leases - every task carries a fresh lease, recorded with its cube and replayed from the ledger", async () => {
  const h = harness();
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const tasks = h.effects.flatMap((e) => (e.type === "publish" ? e.tasks : []));
  const leases = tasks.map((t) => t.task.lease);
  assert.ok(leases.length >= 2 && leases.every((l) => /^[A-Za-z0-9_-]{22}$/.test(l)), `leases ${leases.join(",")}`);
  assert.equal(new Set(leases).size, leases.length, "no two tasks share a lease");
  for (const t of tasks) assert.equal(h.model.table.get(t.task.cubeId)!.lease, t.task.lease);
  // A requeue (after an error verdict) replaces the lease; the old one no longer counts.
  const [cube] = openCubes(h.model);
  const old = h.model.table.get(cube)!.lease;
  await h.run(h.model.recordVerdicts([verdict(h.model, cube, VerdictKind.VERDICT_KIND_ERROR)]));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  const fresh = h.model.table.get(cube)!.lease;
  assert.notEqual(fresh, old);
  const stale = verdict(h.model, cube, VerdictKind.VERDICT_KIND_UNSAT, "w1", { lease: old });
  assert.equal(checkVerdict(names, h.model.table, stale, "cubist.verdicts.r1.w1"), "verdict_lease");
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
  assert.notEqual(newLease(), newLease());
});

test("leases - a verdict counts only from the worker its subject names, with the current lease, for an open cube", async () => {
  const h = harness();
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [a, b] = openCubes(h.model);
  const t = h.model.table;
  const ok = verdict(h.model, a, VerdictKind.VERDICT_KIND_UNSAT, "w1");
  assert.equal(checkVerdict(names, t, ok, "cubist.verdicts.r1.w1"), null);
  assert.equal(checkVerdict(names, t, ok, "cubist.verdicts.r1.w2"), "verdict_identity", "published as another worker");
  assert.equal(checkVerdict(names, t, ok, "cubist.verdicts.r1"), "verdict_identity", "no worker in the subject");
  assert.equal(checkVerdict(names, t, { ...ok, workerId: "w2" }, "cubist.verdicts.r1.w1"), "verdict_identity", "another worker in the payload");
  assert.equal(checkVerdict(names, t, { ...ok, lease: "" }, "cubist.verdicts.r1.w1"), "verdict_lease", "no lease");
  assert.equal(checkVerdict(names, t, { ...ok, lease: t.get(b)!.lease }, "cubist.verdicts.r1.w1"), "verdict_lease", "another cube's lease");
  assert.equal(checkVerdict(names, t, { ...ok, cubeId: "99" }, "cubist.verdicts.r1.w1"), "verdict_unknown_cube");
  await h.run(h.model.recordVerdicts([ok]));
  assert.equal(checkVerdict(names, t, ok, "cubist.verdicts.r1.w1"), "verdict_closed_cube", "each cube closes once");
  assert.equal(workerOfVerdictSubject(names, "r1", "cubist.verdicts.r1.w-1_x"), "w-1_x");
  assert.equal(workerOfVerdictSubject(names, "r1", "cubist.verdicts.r1.a.b"), null);
  assert.equal(workerOfVerdictSubject(names, "r1", "cubist.verdicts.r2.w1"), null);
  // A cube recorded before leases (empty lease) accepts a verdict without one.
  const before = new CubeTable();
  before.addCubes(undefined, [{ id: b, placements: [], branching: [2] }]);
  assert.equal(checkVerdict(names, before, { ...verdict(h.model, b, VerdictKind.VERDICT_KIND_UNSAT), lease: "" }, "cubist.verdicts.r1.w1"), null);
});

test("leases - errors from one worker send the cube again; errors from several workers fail it", async () => {
  const h = harness(8);
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [a, b, ...rest] = openCubes(h.model);
  for (let i = 1; i <= 5; i++) {
    const lease = h.model.table.get(a)!.lease;
    h.effects.length = 0;
    await h.run(h.model.recordVerdicts([verdict(h.model, a, VerdictKind.VERDICT_KIND_ERROR, "bad")]));
    assert.equal(h.model.table.get(a)!.state, "queued", `after ${i} errors of one worker`);
    const retry = h.effects.find((e) => e.type === "publish");
    assert.ok(retry?.type === "publish" && retry.tasks[0].task.cubeId === a, "a new task");
    assert.notEqual(h.model.table.get(a)!.lease, lease, "with a new lease");
  }
  assert.equal(CUBE_FAIL_WORKERS, 2);
  await h.run(h.model.recordVerdicts([verdict(h.model, b, VerdictKind.VERDICT_KIND_ERROR, "bad")]));
  await h.run(h.model.recordVerdicts([verdict(h.model, b, VerdictKind.VERDICT_KIND_ERROR, "other")]));
  assert.equal(h.model.table.get(b)!.state, "failed");
  assert.match(h.model.table.get(b)!.reason!, /2 worker\(s\)/);
  await h.run(h.model.recordVerdicts([a, ...rest].map((id) => verdict(h.model, id, VerdictKind.VERDICT_KIND_UNSAT, "good"))));
  assert.equal(h.model.state, RunState.RUN_STATE_FAILED);
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("leases - a FAILED run resumed sends its failed cubes again with a fresh budget and ends UNSAT", async () => {
  const h = harness(1);
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [bad, ...rest] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(h.model, bad, VerdictKind.VERDICT_KIND_ERROR, "bad")]));
  await h.run(h.model.recordVerdicts(rest.map((id) => verdict(h.model, id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_FAILED);
  assert.ok(h.model.finishedAt > 0);
  const oldLease = h.model.table.get(bad)!.lease;
  h.effects.length = 0;
  await h.run(h.model.resume());
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
  assert.match(h.model.message, /1 failed cube\(s\) sent again/);
  assert.equal(h.model.finishedAt, 0);
  const e = h.model.table.get(bad)!;
  assert.equal(e.state, "queued");
  assert.equal(e.errors, 0);
  assert.notEqual(e.lease, oldLease);
  assert.ok(h.effects.some((x) => x.type === "publish" && x.tasks[0].task.cubeId === bad));
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
  await h.run(h.model.recordVerdicts([verdict(h.model, bad, VerdictKind.VERDICT_KIND_UNSAT)]));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-9);
  assert.equal(h.model.table.failedWeight, 0);
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});
