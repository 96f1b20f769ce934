/**
 * Checker slots in the run model without NATS (coordinator/model/proof-checks.ts): a certified UNSAT is held while its
 * proof goes to a worker other than its producer, closes certified on that worker's verification (or the
 * coordinator's, without another worker, on a sampled proof, a rejection or a dispute), and a checker whose finding
 * the coordinator's own check contradicts is distrusted; the ledger replays to the same checks.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { DISTRUSTED_NOTE } from "../../coordinator/model/run-trust.js";
import { PROOF_CHECK_ACTOR } from "../../coordinator/model/proof-checks.js";
import { runSteps } from "../../coordinator/model/run-effects.js";
import { modelHarness, openCubes, published, verdict, type ModelHarness } from "../helpers/run-model.js";

const GENERATED = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 });
const UNSAT = VerdictKind.VERDICT_KIND_UNSAT;
const PROOF = "c".repeat(64);

async function certified(spotCheckPercent: number, checkers = true, ownCheckFree = false): Promise<{ h: ModelHarness; cube: string }> {
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, certify: true, spotCheckPercent }, { checkers: () => checkers, ownCheckFree: () => ownCheckFree });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [cube] = openCubes(h.model);
  h.effects.length = 0;
  return { h, cube };
}

/** A checker's answer to the check task of `cube`. */
function finding(cube: string, worker: string, verified: boolean, proof = PROOF): Verdict {
  return verdict(cube, verified ? UNSAT : VerdictKind.VERDICT_KIND_ERROR, {
    workerId: worker, checked: { proofSha256: proof, verified, detail: verified ? "" : "lrat-check did not verify the proof", format: "lrat" },
    stats: { conflicts: 0, decisions: 0, propagations: 0, solverSeconds: 0, wallMs: 30, cpuMs: 25, maxRssBytes: 0, searchNodes: 0, engine: "lrat-check", estNodes: 0, estNodesStderr: 0 },
  });
}

const ownChecks = (h: ModelHarness): string[] => h.effects.flatMap((e) => (e.type === "check-proof" ? [e.cube] : []));

test("proof checks - an UNSAT is held and its check task goes away from the producer, with the ledger's units; another worker's verification closes it certified", async () => {
  const { h, cube } = await certified(0);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  assert.equal(h.model.table.get(cube)!.state, "queued", "held, not closed");
  assert.equal(h.model.certification.pending.get(cube)?.sent.producer, "w1");
  const [task] = published(h.effects);
  assert.equal(task.task.cubeId, cube);
  assert.equal(task.task.notWorker, "w1");
  assert.deepEqual(task.task.check, { proofSha256: PROOF, producer: "w1" });
  assert.deepEqual(task.task.units, h.model.unitsOf(cube));
  // The producer's own answer to its check is not taken: the check goes out again.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([finding(cube, "w1", true)]));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.equal(published(h.effects)[0]?.task.notWorker, "w1");
  assert.equal(h.model.certification.checks.get(cube), undefined);

  await h.run(h.model.recordVerdicts([finding(cube, "w2", true)]));
  const e = h.model.table.get(cube)!;
  assert.equal(e.state, "unsat");
  assert.equal(e.worker, "w1", "the refutation is the producer's");
  assert.equal(h.model.certification.proofs.get(cube), PROOF);
  assert.deepEqual(h.model.certification.checks.get(cube)!.map((c) => [c.checker, c.outcome, c.cpuMs]), [["w2", "verified", 25]]);
  assert.deepEqual(h.model.certification.checkers.worker, { checks: 1, cpuMs: 25, wallMs: 30 });
  assert.deepEqual(ownChecks(h), [], "not in the sample: the coordinator did not check it");
  const again = h.replay();
  assert.equal(again.table.get(cube)!.state, "unsat");
  assert.deepEqual(ownChecks(h), [], "nothing held: a recovery checks nothing");
  assert.deepEqual(again.certification.checks.get(cube), h.model.certification.checks.get(cube));
  assert.equal(again.certification.pending.size, 0);
});

test("proof checks - a held proof survives a restart: the replayed run holds it, and its recovery has the coordinator check it", async () => {
  const { h, cube } = await certified(0);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  const again = h.replay();
  assert.equal(again.certification.pending.get(cube)?.sent.producer, "w1");
  const effects: string[] = [];
  await runSteps(again.recover(), (e) => void (e.type === "check-proof" && effects.push(e.cube)));
  assert.deepEqual(effects, [cube]);
});

test("proof checks - without another worker the coordinator checks the proof itself, and the cube closes on its verification", async () => {
  const { h, cube } = await certified(0, false);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  assert.deepEqual(published(h.effects), []);
  assert.deepEqual(ownChecks(h), [cube]);
  await h.run(h.model.recordOwnCheck(cube, PROOF, { verified: true, detail: "", cpuMs: 5, wallMs: 6 }));
  assert.equal(h.model.table.get(cube)!.state, "unsat");
  assert.deepEqual(h.model.certification.checkers.coordinator, { checks: 1, cpuMs: 5, wallMs: 6 });
});

test("proof checks - while a check slot of the coordinator's own is free it checks the proof itself, though another worker could", async () => {
  const { h, cube } = await certified(0, true, true);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  assert.deepEqual(published(h.effects), [], "no check task");
  assert.deepEqual(ownChecks(h), [cube]);
  await h.run(h.model.recordOwnCheck(cube, PROOF, { verified: true, detail: "", cpuMs: 5, wallMs: 6 }));
  assert.equal(h.model.table.get(cube)!.state, "unsat");
});

test("proof checks - a worker that rejects a valid proof is distrusted, and the cube closes certified by the coordinator", async () => {
  const { h, cube } = await certified(0);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  await h.run(h.model.recordVerdicts([finding(cube, "liar", false)]));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.deepEqual(ownChecks(h), [cube], "a rejection is checked by the coordinator");
  await h.run(h.model.recordOwnCheck(cube, PROOF, { verified: true, detail: "", cpuMs: 5, wallMs: 6 }));
  assert.equal(h.model.table.get(cube)!.state, "unsat");
  assert.ok(h.model.trust.distrusted.has("liar"));
  assert.match(h.model.trust.reasonOf("liar", "r1") ?? "", /said the proof of cube \S+ of run r1 \(from w1\) was rejected; the coordinator's check verified it/);
  const notes = h.ledger.flatMap((e) => (e.entry?.$case === "note" && e.entry.value.kind === DISTRUSTED_NOTE ? [e.entry.value] : []));
  assert.deepEqual(notes.map((n) => [n.worker, n.actor]), [["liar", PROOF_CHECK_ACTOR]]);
  assert.ok(h.replay().trust.distrusted.has("liar"));
  assert.equal(h.model.certification.rejectedProofs, 0);
  // A proof is a proof whoever produced it: the liar's own refutation, verified by another worker, closes its cube.
  const next = openCubes(h.model).find((id) => id !== cube)!;
  await h.run(h.model.recordVerdicts([verdict(next, UNSAT, { workerId: "liar", proofSha256: PROOF })]));
  await h.run(h.model.recordVerdicts([finding(next, "w1", true)]));
  assert.equal(h.model.table.get(next)!.state, "unsat");
  assert.equal(h.model.table.get(next)!.worker, "liar");
});

test("proof checks - a proof both reject is a rejected proof (the cube runs again), and nobody is distrusted", async () => {
  const { h, cube } = await certified(0);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  await h.run(h.model.recordVerdicts([finding(cube, "w2", false)]));
  h.effects.length = 0;
  await h.run(h.model.recordOwnCheck(cube, PROOF, { verified: false, detail: "lrat-check did not verify the proof", cpuMs: 5, wallMs: 6 }));
  assert.equal(h.model.certification.rejectedProofs, 1);
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.equal(h.model.certification.pending.size, 0);
  assert.equal(published(h.effects)[0]?.task.check, undefined, "solved again, not checked");
  assert.equal(h.model.trust.distrusted.size, 0);
});

test("proof checks - a sampled verification is checked by the coordinator too; a checker that verified a bad proof is distrusted", async () => {
  const { h, cube } = await certified(100);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  await h.run(h.model.recordVerdicts([finding(cube, "yes-man", true)]));
  assert.equal(h.model.table.get(cube)!.state, "queued", "in the sample: not closed on the worker's word");
  assert.deepEqual(ownChecks(h), [cube]);
  await h.run(h.model.recordOwnCheck(cube, PROOF, { verified: false, detail: "bad", cpuMs: 5, wallMs: 6 }));
  assert.ok(h.model.trust.distrusted.has("yes-man"));
  assert.equal(h.model.certification.rejectedProofs, 1);
  assert.equal(h.model.table.get(cube)!.state, "queued");
  // A distrusted checker's next finding is not taken: the coordinator checks.
  const next = openCubes(h.model).find((id) => id !== cube)!;
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(next, UNSAT, { workerId: "w1", proofSha256: PROOF })]));
  await h.run(h.model.recordVerdicts([finding(next, "yes-man", true)]));
  assert.deepEqual(ownChecks(h), [next]);
  assert.equal(h.model.certification.checks.get(next), undefined);
});
