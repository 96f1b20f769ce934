/**
 * Identities and leases against a real nats-server configured with the users `cubist nats users` generates
 * (cluster/nats-users.ts): the coordinator has the whole account, each worker its own user. A worker cannot publish
 * a verdict as another worker, nor read tasks it was not given; a junk publisher's forged verdicts are dropped
 * and counted, and the satisfiable run they tried to close as UNSAT is solved.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { cubistUsers, usersConfig, workerInboxPrefix } from "../../cluster/nats-users.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { createNames } from "../../proto/contract.js";
import { Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { startTestNats } from "../helpers/nats.js";
import { startTestWorker } from "../helpers/worker.js";

const names = createNames();
const PASS = { coordinator: "coordinator-secret", good: "good-secret", junk: "junk-secret" };
const SERVER_CONFIG = `accounts {
  CUBIST {
    jetstream: enabled
${usersConfig(cubistUsers(names, { user: "cubist", password: PASS.coordinator }, [{ id: "good", password: PASS.good }, { id: "junk", password: PASS.junk }]), "    ")}
  }
}
`;
const SAT = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 3 });

function startNats() {
  return startTestNats({ server: { config: SERVER_CONFIG }, auth: { user: "cubist", pass: PASS.coordinator } });
}

/** Resolves with the error `fn` rejects with, or fails the test when it resolves. */
async function rejection(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    return err as Error;
  }
  assert.fail("expected a rejection");
}

test("identities - a worker may publish verdicts only as itself, and cannot read the cube stream or other inboxes", async () => {
  const t = await startNats();
  try {
    const junk = await t.connect("junk", { user: "junk", pass: PASS.junk, inboxPrefix: workerInboxPrefix("junk") });
    const js = jetstream(junk);
    const verdict = (worker: string): Uint8Array => Verdict.encode(Verdict.fromPartial({ runId: "r1", cubeId: "0", kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: worker })).finish();
    // Its own subject: stored.
    const ack = await js.publish(names.verdictsSubject("r1", "junk"), verdict("junk"), { timeout: 3000 });
    assert.ok(ack.seq > 0);
    // Another worker's subject: a permissions violation.
    const asGood = await rejection(() => js.publish(names.verdictsSubject("r1", "good"), verdict("good"), { timeout: 3000 }));
    assert.match(asGood.message, /permissions violation/i, asGood.message);
    const asCoordinator = await rejection(() => js.publish(names.cubesSubject("r1"), new Uint8Array([1]), { timeout: 3000 }));
    assert.match(asCoordinator.message, /permissions violation/i, `publishing a task: ${asCoordinator.message}`);
    // Reading tasks (and their leases) other than by pulling: refused.
    const jsm = await jetstreamManager(junk, { timeout: 3000 });
    const read = await rejection(() => jsm.streams.getMessage(names.cubesStream, { seq: 1 }));
    assert.match(read.message, /permissions violation|timeout/i, read.message);
    // Another worker's inbox (where its pulled tasks arrive): a subscription the server refuses.
    const errors: Error[] = [];
    const sub = junk.subscribe(`${workerInboxPrefix("good")}.>`, { callback: (err) => void (err && errors.push(err)) });
    for (let i = 0; i < 50 && errors.length === 0 && !sub.isClosed(); i++) await sleep(100);
    assert.ok(errors.some((e) => /permissions violation/i.test(e.message)) || sub.isClosed(), "the subscription was refused");
  } finally {
    await t.close();
  }
});

test("identities - forged verdicts from a junk publisher do not close cubes; the satisfiable run is solved", async () => {
  const t = await startNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  try {
    const run = await c.coordinator.submitRun({ puzzleText: writeCanonical(SAT.puzzle), puzzleLabel: "gen-5x5", searchMs: 0, targetCubes: 8 });
    await run.splitDone();
    const cubes = [...run.table.entries()].map((e) => e.id);
    assert.ok(cubes.length >= 4, `${cubes.length} cubes`);
    // The junk publisher is a worker identity that pulled nothing: it knows the cube ids, not their leases.
    const junk = await t.connect("junk", { user: "junk", pass: PASS.junk, inboxPrefix: workerInboxPrefix("junk") });
    const js = jetstream(junk);
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

    const w = await startTestWorker(t, { workerId: "good" }, { user: "good", pass: PASS.good });
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
    await t.close();
  }
});
