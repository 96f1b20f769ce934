/**
 * Identities and leases against a real nats-server configured as the default clusters configure it: the embedded
 * cluster's (`solve --workers N`, cli/local-cluster.ts `startLocalNats`), whose users are those `cubist nats users`
 * writes for the deploy files (cluster/nats-users.ts). The coordinator has the whole account, each worker its own
 * user, and a client without credentials is refused. A worker's user reads no task, verdict, ledger entry or proof
 * directly (so it sees no lease it did not pull), publishes verdicts and proofs only as itself, and cannot delete or
 * replace a proof; a junk publisher's forged verdicts are dropped and counted. Beside them, the same forgery on an
 * open server (a user's own, without users) shows what these permissions prevent.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { writeBundle } from "../../certify/bundle.js";
import { startLocalNats } from "../../cli/local-cluster.js";
import { connectNats } from "../../cluster/nats.js";
import { workerInboxPrefix } from "../../cluster/nats-users.js";
import { certificateFiles } from "../../coordinator/shell/certificate.js";
import type { RunController } from "../../coordinator/shell/run.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { createNames, PROOF_HEADERS } from "../../proto/contract.js";
import { CubeTask, Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { requestFor, startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { startTestWorker } from "../helpers/worker.js";
import { eventually } from "../helpers/runs.js";

const names = createNames();
const SAT = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 3 });
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const STREAMS = [names.cubesStream, names.verdictsStream, names.ledgerStream, names.proofsStream];

interface DefaultCluster {
  readonly t: TestNats;
  /** The NATS options of worker `id`'s user. */
  worker(id: "good" | "junk" | "checker"): { user: string; pass: string; inboxPrefix: string };
  close(): Promise<void>;
}

/** The embedded cluster's nats-server, with workers "good", "junk" and "checker", and the layout made by the coordinator's user. */
async function startDefaultCluster(): Promise<DefaultCluster> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-identities-"));
  const local = await startLocalNats(join(dir, "jetstream"), ["good", "junk", "checker"]);
  const t = await startTestNats({ running: local.server, auth: local.coordinator });
  return {
    t,
    worker: (id) => ({ ...local.workers.get(id)!, inboxPrefix: workerInboxPrefix(id) }),
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Asserts that `attempt` is refused as a permissions violation (or, with `re`, with that message). */
async function refused(what: string, attempt: () => Promise<unknown>, re = /permissions violation/i): Promise<void> {
  let err: Error | null = null;
  try {
    await attempt();
  } catch (e) {
    err = e as Error;
  }
  assert.ok(err, `${what}: allowed`);
  assert.match(err.message, re, `${what}: ${err.message}`);
}

/** A JetStream API request (raw, so that nothing but the server decides). */
function api(nc: NatsConnection, subject: string, body: unknown = {}): Promise<unknown> {
  return nc.request(subject, JSON.stringify(body), { timeout: 3000 });
}

/** Submits a satisfiable run split into cubes, with no worker: its tasks wait in the cube stream. */
async function waitingRun(c: Awaited<ReturnType<typeof startTestCoordinator>>): Promise<RunController> {
  const run = await c.coordinator.submitRun({ puzzleText: writeCanonical(SAT.puzzle), puzzleLabel: "gen-5x5", searchMs: 0, targetCubes: 8 });
  await run.splitDone();
  return run;
}

/**
 * Finding 2's forgery: read every task of the cube stream with STREAM.MSG.GET (which leases nothing), and publish
 * UNSAT with its lease as worker "forger". Returns how many verdicts were published.
 */
async function refuteByReading(nc: NatsConnection, run: RunController): Promise<number> {
  const jsm = await jetstreamManager(nc, { timeout: 3000 });
  const js = jetstream(nc);
  const { state } = await jsm.streams.info(names.cubesStream);
  let forged = 0;
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(names.cubesStream, { seq }).catch((err: Error) => {
      if (/no message found/i.test(err.message)) return null;
      throw err;
    });
    if (!m) continue;
    const task = CubeTask.decode(m.data);
    const verdict = Verdict.fromPartial({ runId: run.id, cubeId: task.cubeId, kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: "forger", lease: task.lease });
    await js.publish(names.verdictsSubject(run.id, "forger"), Verdict.encode(verdict).finish());
    forged++;
  }
  return forged;
}

test("identities - on an open server (no users: a user's own) any client reads each task's lease with STREAM.MSG.GET and refutes a satisfiable run", async () => {
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  try {
    const run = await waitingRun(c);
    const anyone = await t.connect("anyone");
    assert.equal(await refuteByReading(anyone, run), run.table.size);
    assert.equal(await waitForRunEnd(run, 30_000), RunState.RUN_STATE_UNSAT, "no worker ran, yet the satisfiable run is UNSAT");
    const ledger = await (await jetstreamManager(anyone)).streams.getMessage(names.ledgerStream, { seq: 1 });
    assert.ok(ledger !== null && ledger.data.length > 0, "and the ledger is readable");
  } finally {
    await c.close();
    await t.close();
  }
});

test("identities - the default clusters' nats-server refuses a client without credentials or with a wrong password", async () => {
  const d = await startDefaultCluster();
  try {
    await refused("anonymous", () => connectNats({ servers: d.t.url, connectTimeoutMs: 3000 }), /authorization violation/i);
    await refused("wrong password", () => connectNats({ servers: d.t.url, user: "junk", pass: "guessed", connectTimeoutMs: 3000 }), /authorization violation/i);
  } finally {
    await d.close();
  }
});

test("identities - a worker reads no task, verdict, ledger entry or proof directly, makes no consumer on the first three (nor a durable one on proofs), and publishes only as itself", async () => {
  const d = await startDefaultCluster();
  const c = await startTestCoordinator(d.t, { ackWaitMs: 5000 });
  try {
    const run = await waitingRun(c);
    const junk = await d.t.connect("junk", d.worker("junk"));
    await refused("reading tasks with STREAM.MSG.GET (finding 2's forgery)", () => refuteByReading(junk, run));
    for (const stream of STREAMS) {
      await refused(`MSG.GET ${stream}`, () => api(junk, `$JS.API.STREAM.MSG.GET.${stream}`, { seq: 1 }));
      await refused(`DIRECT.GET ${stream}`, () => api(junk, `$JS.API.DIRECT.GET.${stream}`, { seq: 1 }));
      await refused(`DIRECT.GET by subject ${stream}`, () => api(junk, `$JS.API.DIRECT.GET.${stream}.${names.prefix}.x`));
      // A proof is read through a consumer of the reader's own (a check task's proof): it holds no lease.
      if (stream !== names.proofsStream) {
        await refused(`ephemeral consumer on ${stream}`, () => api(junk, `$JS.API.CONSUMER.CREATE.${stream}`, { stream_name: stream, config: {} }));
        await refused(`named consumer on ${stream}`, () => api(junk, `$JS.API.CONSUMER.CREATE.${stream}.peek`, { stream_name: stream, config: { name: "peek" } }));
      }
      await refused(`durable consumer on ${stream}`, () => api(junk, `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.peek`, { stream_name: stream, config: { durable_name: "peek" } }));
      for (const call of ["STREAM.PURGE", "STREAM.MSG.DELETE", "STREAM.DELETE", "STREAM.UPDATE"]) await refused(`${call} ${stream}`, () => api(junk, `$JS.API.${call}.${stream}`, { seq: 1 }));
    }
    const js = jetstream(junk);
    const verdict = (worker: string): Uint8Array => Verdict.encode(Verdict.fromPartial({ runId: run.id, cubeId: "0", kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: worker })).finish();
    assert.ok((await js.publish(names.verdictsSubject(run.id, "junk"), verdict("junk"), { timeout: 3000 })).seq > 0, "its own verdict subject");
    await refused("a verdict as another worker", () => js.publish(names.verdictsSubject(run.id, "good"), verdict("good"), { timeout: 3000 }));
    await refused("a task", () => js.publish(names.cubesSubject(run.id), new Uint8Array([1]), { timeout: 3000 }));
    await refused("a ledger entry", () => js.publish(names.ledgerSubject(run.id), new Uint8Array([1]), { timeout: 3000 }));
    // Another worker's inbox (where its pulled tasks arrive): a subscription the server refuses.
    const errors: Error[] = [];
    const sub = junk.subscribe(`${workerInboxPrefix("good")}.>`, { callback: (err) => void (err && errors.push(err)) });
    for (let i = 0; i < 50 && errors.length === 0 && !sub.isClosed(); i++) await sleep(100);
    assert.ok(errors.some((e) => /permissions violation/i.test(e.message)) || sub.isClosed(), "the subscription was refused");
    assert.equal(run.status().cubes!.unsat, 0);
  } finally {
    await c.close();
    await d.close();
  }
});

test("identities - forged verdicts from a junk publisher do not close cubes; the satisfiable run is solved", async () => {
  const d = await startDefaultCluster();
  const c = await startTestCoordinator(d.t, { ackWaitMs: 5000 });
  try {
    const run = await waitingRun(c);
    const cubes = [...run.table.entries()].map((e) => e.id);
    assert.ok(cubes.length >= 4, `${cubes.length} cubes`);
    // The junk publisher is a worker identity that pulled nothing: it knows the cube ids, not their leases.
    const js = jetstream(await d.t.connect("junk", d.worker("junk")));
    const forged = (cube: string, extra: Partial<Verdict>): Promise<unknown> => js.publish(
      names.verdictsSubject(run.id, "junk"),
      Verdict.encode(Verdict.fromPartial({ runId: run.id, cubeId: cube, kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: "junk", ...extra })).finish(),
    );
    for (const cube of cubes) {
      await forged(cube, { lease: "" });
      await forged(cube, { lease: "guessed-lease-000000000" });
      await forged(cube, { workerId: "good" });
      await forged(cube, { kind: VerdictKind.VERDICT_KIND_SAT, board: [{ cell: 0, piece: 0, rot: 0 }] });
    }
    const r = c.coordinator.rejections;
    for (let i = 0; i < 100 && r.count("verdict_lease") + r.count("verdict_identity") < 4 * cubes.length; i++) await sleep(100);
    assert.equal(r.count("verdict_lease"), 3 * cubes.length);
    assert.equal(r.count("verdict_identity"), cubes.length);
    const s = run.status();
    assert.equal(s.state, RunState.RUN_STATE_RUNNING);
    assert.equal(s.cubes!.unsat, 0, "no forged verdict closed a cube");
    assert.equal(s.rejectedModels, 0, "forged SAT verdicts never reach the verifier");
    assert.equal(s.cubes!.failed, 0);

    const w = await startTestWorker(d.t, { workerId: "good" }, d.worker("good"));
    try {
      assert.equal(await waitForRunEnd(run, 90_000), RunState.RUN_STATE_SAT);
      assert.equal(run.solutions.length, 1);
      assert.equal(run.solutions[0].workerId, "good");
      assert.equal(w.logged(/permissions violation/i).length, 0, "the worker needed nothing its user may not do");
    } finally {
      await w.close();
    }
  } finally {
    await c.close();
    await d.close();
  }
});

test("identities - workers check each other's proofs as their own users; a worker cannot delete or replace a certified run's proofs (finding 3): its certificate still exports and re-checks", async () => {
  const d = await startDefaultCluster();
  // No proof checks of the coordinator's own but its samples: every first check goes to the other worker.
  const c = await startTestCoordinator(d.t, { ownProofChecks: 0 });
  const dir = mkdtempSync(join(tmpdir(), "cubist-identities-bundle-"));
  try {
    const w = await startTestWorker(d.t, { workerId: "good", concurrency: 1 }, d.worker("good"));
    const checker = await startTestWorker(d.t, { workerId: "checker", concurrency: 1 }, d.worker("checker"));
    let run: RunController;
    try {
      assert.ok(await eventually(() => ["good", "checker"].every((id) => c.coordinator.liveWorkers().some((x) => x.status.workerId === id)), 30_000), "both workers live");
      run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 8, certify: true, spotCheckPercent: 0 }));
      assert.equal(await waitForRunEnd(run, 120_000), RunState.RUN_STATE_UNSAT, run.message);
      for (const x of [w, checker]) assert.equal(x.logged(/permissions violation/i).length, 0, "the workers needed nothing their users may not do");
      // Checker slots (coordinator/model/proof-checks.ts): the proofs were read and checked by the workers' users.
      const cert = run.status().certification!;
      // (The coordinator still checks where the other worker is not live for a moment, as under load: not counted.)
      assert.ok(cert.checksByWorkers > 0, JSON.stringify(cert));
    } finally {
      await w.close();
      await checker.close();
    }
    const proofs = [...new Set(run.model.certification.proofs.values())];
    assert.ok(proofs.length > 0);
    const junk = await d.t.connect("junk", d.worker("junk"));
    const js = jetstream(junk);
    // Finding 3: in the Object Store that held proofs before, a delete is a delete marker published on the meta
    // subject a worker needed for its puts. Whatever this does, the certificate below must still export.
    await refused("a delete marker on the old proofs Object Store's meta subject", () => js.publish(`$O.${names.prefix}-proofs.M.${Buffer.from(proofs[0]).toString("base64url")}`, new Uint8Array([0]), { timeout: 3000 }));
    await new Objm(junk).open(`${names.prefix}-proofs`).then(async (old) => {
      for (const name of proofs) await old.delete(name);
    }).catch(() => undefined);
    for (const call of ["STREAM.PURGE", "STREAM.MSG.DELETE", "STREAM.DELETE", "STREAM.UPDATE"]) {
      await refused(`${call} of the proofs stream`, () => api(junk, `$JS.API.${call}.${names.proofsStream}`, { seq: 1 }));
    }
    for (const name of proofs) {
      await refused("a proof under the worker that uploaded it", () => js.publish(names.proofSubject(name, "good"), new Uint8Array([0]), { timeout: 3000 }));
      await refused("a proof under the coordinator's name", () => js.publish(names.proofSubject(name, "_coordinator"), new Uint8Array([0]), { timeout: 3000 }));
      for (const rollup of ["sub", "all"]) {
        const h = headers();
        h.set("Nats-Rollup", rollup);
        await refused(`a rollup (${rollup}) under its own name`, () => js.publish(names.proofSubject(name, "junk"), new Uint8Array([0]), { headers: h, timeout: 3000 }), /rollup/i);
      }
      // What it may do: add a whole junk upload under its own name, which readers pass over.
      const h = headers();
      h.set(PROOF_HEADERS.upload, "0123456789abcdef");
      h.set(PROOF_HEADERS.chunk, "0");
      h.set(PROOF_HEADERS.size, "4");
      await js.publish(names.proofSubject(name, "junk"), new TextEncoder().encode("junk"), { headers: h, timeout: 3000 });
    }
    await writeBundle(join(dir, "bundle"), await certificateFiles(run));
    const check = spawnSync("sh", [join(dir, "bundle", "check.sh")], { encoding: "utf8" });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /cubes: \d+\/\d+ VERIFIED/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await c.close();
    await d.close();
  }
});
