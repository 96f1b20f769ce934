/**
 * Checker slots (issue 23; coordinator/model/proof-checks.ts) with real parts: a private nats-server, the
 * coordinator, `cubist worker` processes with real Kissat writing DRAT proofs and real drat-trim checking them. In a
 * certified run every cube's proof is checked by an identity other than its producer: another worker (a check task),
 * or the coordinator (alone, a sample, a dispute). A worker whose checker lies (a script that rejects every proof,
 * `--drat-trim-path`) is caught by the coordinator's own check and distrusted, and the run still ends certified.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DISTRUSTED_NOTE } from "../../coordinator/model/run-trust.js";
import { COORDINATOR_CHECKER } from "../../coordinator/model/run-certification.js";
import { PROOF_CHECK_ACTOR } from "../../coordinator/model/proof-checks.js";
import { Ledger } from "../../coordinator/shell/ledger.js";
import type { RunController } from "../../coordinator/shell/run.js";
import type { ProofCheck } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { requestFor, startTestCoordinator, waitForRunEnd, type TestCoordinator } from "../helpers/coordinator.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, type CubistProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";
import { flaggedWorkerViews } from "../helpers/worker-views.js";

const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const LYING_CHECKER = new URL("../fixtures/fake-checkers/lying-reject.sh", import.meta.url).pathname;

function startWorker(t: TestNats, id: string, args: string[] = []): CubistProcess {
  return spawnCubist(["worker", "--nats", t.url, "--id", id, "--concurrency", "1", "--status-interval", "0.5", "--grace", "0", "--log-level", "debug", ...args]);
}

/** `ownProofChecks` 0: every proof is checked by another worker, but the coordinator's samples, disputes and fallbacks. */
async function withCluster(workers: Array<[string, string[]]>, body: (t: TestNats, c: TestCoordinator) => Promise<void>, ownProofChecks = 0): Promise<void> {
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000, ownProofChecks });
  const procs = workers.map(([id, args]) => startWorker(t, id, args));
  try {
    const ids = workers.map(([id]) => id);
    assert.ok(await eventually(() => ids.every((id) => c.coordinator.liveWorkers().some((w) => w.status.workerId === id)), 30_000), "workers live");
    await body(t, c);
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => p.exited));
    await c.close();
    await t.close();
  }
}

/** A certified run of the 5x5 UNSAT to its end: UNSAT. */
async function certifiedRun(c: TestCoordinator, runId: string, spotCheckPercent: number): Promise<RunController> {
  const run = await c.coordinator.submitRun(requestFor(UNSAT, { runId, targetCubes: 12, solver: "kissat", certify: true, spotCheckPercent }));
  assert.equal(await waitForRunEnd(run, 180_000), RunState.RUN_STATE_UNSAT, run.message);
  assert.match(run.message, /^certified: /);
  return run;
}

/** The ProofCheck entries of the run's ledger (what a restarted coordinator reads), by cube. */
async function ledgerChecks(t: TestNats, run: RunController): Promise<Map<string, ProofCheck[]>> {
  const out = new Map<string, ProofCheck[]>();
  for (const e of await new Ledger(t.layout.js, t.names).replay(run.id)) {
    if (e.entry?.$case !== "proofCheck") continue;
    const list = out.get(e.entry.value.cubeId) ?? [];
    list.push(e.entry.value);
    out.set(e.entry.value.cubeId, list);
  }
  return out;
}

/** Every refuted cube's proof was verified by an identity other than its producer, per the ledger; returns the checkers. */
async function assertCheckedByOthers(t: TestNats, run: RunController): Promise<string[]> {
  const checks = await ledgerChecks(t, run);
  const refuted = [...run.table.entries()].filter((e) => e.state === "unsat" && e.placements.length > 0);
  assert.ok(refuted.length > 0);
  const checkers: string[] = [];
  for (const e of refuted) {
    const list = checks.get(e.id) ?? [];
    assert.ok(list.some((c) => c.outcome === "sent" && c.producer === e.worker), `cube ${e.id}: held for its check`);
    const verified = list.filter((c) => c.outcome === "verified" && c.proofSha256 === run.model.certification.proofs.get(e.id));
    assert.ok(verified.length > 0, `cube ${e.id}: verified (${JSON.stringify(list)})`);
    for (const c of verified) assert.notEqual(c.checker, e.worker, `cube ${e.id}: checked by its producer`);
    checkers.push(...verified.map((c) => c.checker));
  }
  return checkers;
}

test("checker slots - a certified run on 2 workers ends UNSAT, every cube's proof verified by a worker other than its producer (or the coordinator), the checkers' CPU apart", async () => {
  await withCluster([["w-a", []], ["w-b", []]], async (t, c) => {
    const run = await certifiedRun(c, "two-workers", 0);
    const checkers = await assertCheckedByOthers(t, run);
    assert.ok(checkers.some((w) => w !== COORDINATOR_CHECKER), `some proofs checked by workers: ${checkers.join(", ")}`);
    const cert = run.status().certification!;
    assert.equal(cert.cubeProofsRejected, 0);
    assert.equal(cert.checksByWorkers, checkers.filter((w) => w !== COORDINATOR_CHECKER).length);
    assert.ok(cert.workerCheckWallSeconds > 0, JSON.stringify(cert));
    assert.equal(run.model.trust.distrusted.size, 0);
  });
});

test("checker slots - a worker whose checker rejects every proof, beside an honest one: the run ends certified UNSAT and the liar is distrusted", async () => {
  await withCluster([["liar", ["--drat-trim-path", LYING_CHECKER, "--lrat-check-path", LYING_CHECKER]], ["honest", []]], async (t, c) => {
    const run = await certifiedRun(c, "with-a-liar", 0);
    await assertCheckedByOthers(t, run);
    assert.ok(run.model.trust.distrusted.has("liar"), "the liar is distrusted");
    assert.ok(!run.model.trust.distrusted.has("honest"));
    const notes = (await new Ledger(t.layout.js, t.names).replay(run.id)).flatMap((e) => (e.entry?.$case === "note" && e.entry.value.kind === DISTRUSTED_NOTE ? [e.entry.value] : []));
    assert.deepEqual(notes.map((n) => [n.worker, n.actor]), [["liar", PROOF_CHECK_ACTOR]]);
    // The liar's rejection is in the ledger under its name, and the coordinator's verification of the same proof.
    const checks = [...(await ledgerChecks(t, run)).values()].flat();
    const lie = checks.find((x) => x.checker === "liar" && x.outcome === "rejected")!;
    assert.ok(lie, "the liar's rejection recorded");
    assert.ok(checks.some((x) => x.cubeId === lie.cubeId && x.checker === COORDINATOR_CHECKER && x.outcome === "verified"));
    assert.equal(run.status().certification!.cubeProofsRejected, 0, "no valid proof was rejected");

    const { rows, metrics: text } = await flaggedWorkerViews(t, c, "liar");
    assert.match(rows.find((w) => w.workerId === "liar")!.quarantined, /said the proof of cube \S+ of run with-a-liar \(from honest\) was rejected; the coordinator's check verified it/);
    assert.match(text, /^cubist_cluster_distrusted_workers 1$/m);
    assert.match(text, /^cubist_coordinator_proof_checks\{checker="coordinator"\} [1-9]/m);
    assert.match(text, /^cubist_coordinator_proof_check_cpu_seconds\{checker="worker"\} /m);
  });
});

test("checker slots - one worker alone: the coordinator checks every proof and the run ends certified", async () => {
  await withCluster([["alone", []]], async (t, c) => {
    const run = await certifiedRun(c, "one-worker", 0);
    const checkers = await assertCheckedByOthers(t, run);
    assert.ok(checkers.every((w) => w === COORDINATOR_CHECKER), checkers.join(", "));
    const cert = run.status().certification!;
    assert.equal(cert.checksByWorkers, 0);
    assert.equal(cert.checksByCoordinator, checkers.length);
  });
});
