/**
 * Spot checks in the run model without NATS (coordinator/model/run-trust.ts): which refuted cubes are checked, a
 * check sent away from its refuter, the refuter's own answer never taken, agreement, and a verified solution that
 * distrusts the refuter and queues its refutations again; the ledger replays to the same trust.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { sampled } from "../../coordinator/model/run-trust.js";
import { memberId } from "../../coordinator/model/scan-trees.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { modelHarness, openCubes, published, verdict } from "../helpers/run-model.js";

/** The portfolio member of a scan run on a board without eight trees: the mirror of the cubes' scan. */
const MIRROR = memberId({ order: "short", corner: 0, mirror: true });

const GENERATED = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 });
const BOARD = GENERATED.solution.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: c!.rot }));
const UNSAT = VerdictKind.VERDICT_KIND_UNSAT;

test("spot checks - the sample is a hash of run and cube: the same on every call, about the share asked, none at 0, all at 100", () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => String(i));
  for (const percent of [1, 5, 20]) {
    const share = ids.filter((id) => sampled("run-a", id, percent)).length / ids.length;
    assert.ok(Math.abs(share - percent / 100) < 0.01, `${percent}%: ${share}`);
  }
  assert.deepEqual(ids.map((id) => sampled("run-a", id, 5)), ids.map((id) => sampled("run-a", id, 5)));
  assert.notDeepEqual(ids.map((id) => sampled("run-a", id, 5)), ids.map((id) => sampled("run-b", id, 5)));
  assert.ok(ids.every((id) => !sampled("r", id, 0) && sampled("r", id, 100)));
});

test("spot checks - a sampled refutation goes to another worker; the refuter's own answer is not taken; another's UNSAT closes it", async () => {
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: 100 }, { checkers: () => true });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [cube] = openCubes(h.model);
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1" })]));
  assert.equal(h.model.table.get(cube)!.state, "queued", "not closed before its check");
  assert.equal(h.model.trust.refuterOf(cube), "w1");
  const [check] = published(h.effects);
  assert.equal(check.task.cubeId, cube);
  assert.equal(check.task.notWorker, "w1");
  assert.equal(h.model.table.get(cube)!.lease, check.task.lease, "the check has a lease of its own");
  // The refuter answers its own check (it ignored not_worker): sent again, still open.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1" })]));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.equal(published(h.effects)[0].task.notWorker, "w1");
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w2" })]));
  assert.equal(h.model.table.get(cube)!.state, "unsat");
  assert.deepEqual(h.model.trust.counts, { sent: 1, agreed: 1, disproved: 0 });
  assert.deepEqual(h.replay().trust.counts, h.model.trust.counts);
});

test("spot checks - a verified solution of a checked cube distrusts its refuter: every refutation of it is queued again, away from it", async () => {
  // A share that checks some cubes and not others (cube ids 0..N of run r1).
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 32, spotCheckPercent: 30 }, { checkers: () => true });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cubes = openCubes(h.model);
  const checked = cubes.filter((id) => sampled("r1", id, 30));
  const unchecked = cubes.filter((id) => !sampled("r1", id, 30));
  assert.ok(checked.length >= 2 && unchecked.length >= 2, `${checked.length} checked, ${unchecked.length} not`);
  // The liar refutes every cube but one: the unchecked ones close on its word, the checked ones wait.
  const [keep, ...lies] = unchecked;
  await h.run(h.model.recordVerdicts([...checked, ...lies].map((id) => verdict(id, UNSAT, { workerId: "liar" }))));
  assert.ok(lies.every((id) => h.model.table.get(id)!.state === "unsat"));
  assert.ok(checked.every((id) => h.model.table.get(id)!.state === "queued"));
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(checked[0], VerdictKind.VERDICT_KIND_SAT, { workerId: "honest", board: BOARD })]));
  assert.equal(h.model.state, RunState.RUN_STATE_SAT);
  assert.equal(h.model.trust.distrusted.get("liar"), checked[0]);
  const again = published(h.effects).filter((t) => t.task.notWorker === "liar").map((t) => t.task.cubeId).sort();
  assert.deepEqual(again, [...lies].sort(), "every refutation of the liar is queued again, away from it");
  assert.ok(lies.every((id) => h.model.table.get(id)!.state === "queued"));
  const notes = h.ledger.flatMap((e) => (e.entry?.$case === "note" ? [e.entry.value] : []));
  assert.deepEqual(notes.filter((n) => n.kind === "distrusted").map((n) => [n.worker, n.cubeId]), [["liar", checked[0]]]);
  const replayed = h.replay();
  assert.deepEqual([...replayed.trust.distrusted], [...h.model.trust.distrusted]);
  assert.ok(Math.abs(replayed.table.refutedWeight - h.model.table.refutedWeight) < 1e-12);
  assert.equal(h.model.table.get(keep)!.state, "queued", "a cube nobody answered stays as it was");
});

test("spot checks - a distrusted worker's UNSAT is not taken: the cube goes out again, away from it", async () => {
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: 100 }, { checkers: () => true });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [a, b] = openCubes(h.model);
  // The ledger says the liar was distrusted (as a coordinator that resumes the run reads it).
  h.model.apply({ atUnixMs: 1, term: 0, entry: { $case: "note", value: { kind: "distrusted", message: "", actor: "spot-check", worker: "liar", cubeId: a } } });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(b, UNSAT, { workerId: "liar" })]));
  assert.equal(h.model.table.get(b)!.state, "queued");
  assert.equal(h.model.trust.refuterOf(b), undefined, "no check: the verdict was not taken at all");
  assert.deepEqual(published(h.effects).map((t) => [t.task.cubeId, t.task.notWorker]), [[b, "liar"]]);
});

test("spot checks - a worker another run distrusts is distrusted here: its refutations are queued again at once or at its next verdict", async () => {
  const why = "refuted cube 3 of run r0, which another worker solved";
  for (const when of ["at once", "next verdict"] as const) {
    let distrustedThere = false;
    const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: 0 },
      { checkers: () => true, distrustedElsewhere: (w) => (w === "liar" && distrustedThere ? why : undefined) });
    await h.run(h.model.start());
    await h.run(h.model.splitInitial());
    const [a, b, c] = openCubes(h.model);
    // Before it was caught elsewhere, its refutations closed cubes here.
    await h.run(h.model.recordVerdicts([verdict(a, UNSAT, { workerId: "liar" }), verdict(b, UNSAT, { workerId: "liar" })]));
    assert.equal(h.model.table.get(a)!.state, "unsat");
    distrustedThere = true;
    h.effects.length = 0;
    if (when === "at once") await h.run(h.model.distrustFromElsewhere("liar", why));
    else await h.run(h.model.recordVerdicts([verdict(c, UNSAT, { workerId: "liar" })]));
    assert.equal(h.model.trust.reasonOf("liar", "r1"), why, when);
    assert.equal(h.model.trust.counts.disproved, 0, "no check of this run disproved it");
    assert.ok([a, b, c].every((id) => h.model.table.get(id)!.state === "queued"), `${when}: its refutations are undone`);
    const away = published(h.effects).filter((t) => t.task.notWorker === "liar").map((t) => t.task.cubeId).sort();
    assert.deepEqual(away, (when === "at once" ? [a, b] : [a, b, c]).sort());
    assert.equal(h.replay().trust.reasonOf("liar", "r1"), why, "the ledger keeps it");
    // Told again (another run's note), nothing more happens.
    h.effects.length = 0;
    await h.run(h.model.distrustFromElsewhere("liar", why));
    assert.equal(h.effects.length, 0);
  }
});

test("spot checks - without another live worker, or at 0%, a refutation closes unchecked", async () => {
  for (const [percent, checkers] of [[100, () => false], [0, () => true]] as const) {
    const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: percent }, { checkers });
    await h.run(h.model.start());
    await h.run(h.model.splitInitial());
    const [cube] = openCubes(h.model);
    await h.run(h.model.recordVerdicts([verdict(cube, UNSAT)]));
    assert.equal(h.model.table.get(cube)!.state, "unsat", `${percent}%`);
    assert.equal(h.model.trust.counts.sent, 0);
  }
});

test("spot checks - a check JetStream gave up on (its refuter handed it back each time) goes out again; with no other worker it closes unchecked", async () => {
  let others = true;
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: 100 }, { checkers: () => others });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [cube] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(cube, UNSAT, { workerId: "w1" })]));
  h.effects.length = 0;
  await h.run(h.model.giveUpCube(cube));
  assert.equal(h.model.table.get(cube)!.state, "queued", "not failed");
  assert.deepEqual(published(h.effects).map((t) => [t.task.cubeId, t.task.notWorker]), [[cube, "w1"]]);
  others = false;
  await h.run(h.model.giveUpCube(cube));
  assert.equal(h.model.table.get(cube)!.state, "unsat");
  assert.equal(h.model.table.get(cube)!.worker, "w1");
});

test("spot checks - a scan run's whole-board exhaustion, when sampled, counts as the member giving up: the cubes decide", async () => {
  for (const percent of [100, 0]) {
    const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8, spotCheckPercent: percent }, { batchSize: 5, checkers: () => true });
    await h.run(h.model.start());
    await h.run(h.model.splitInitial());
    const open = openCubes(h.model);
    await h.run(h.model.recordVerdicts([verdict(MIRROR, UNSAT, { workerId: "liar" })]));
    if (percent === 0) {
      // The control: unchecked, the member's word refutes every cube.
      assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
      continue;
    }
    assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
    assert.deepEqual(openCubes(h.model), open, "no cube refuted on the member's word");
  }
});
