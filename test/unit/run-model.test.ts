/**
 * The run model without NATS: verdicts and re-splits in, effects out, and the ledger the live paths write replays
 * to the same run. The effects are carried out by a small in-memory shell (ledger array, task sequences).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type RunRequest } from "../../coordinator/run-spec.js";
import { RunModel } from "../../coordinator/model/run-model.js";
import { runSteps } from "../../coordinator/model/run-effects.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Board } from "../../core/puzzle.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { modelHarness, verdict, type ModelHarness } from "../helpers/run-model.js";

const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const GENERATED = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 });

type Harness = ModelHarness;

function harness(req: Partial<RunRequest> & { puzzleText: string }, maxDeliver = 3): Harness {
  return modelHarness({ runId: "r1", searchMs: 0, ...req }, { maxDeliver });
}

/** Everything a run's state consists of, comparable with deepEqual. */
function snapshot(m: RunModel) {
  return {
    state: m.state,
    message: m.message,
    rejected: m.solutions.rejected,
    startedAt: m.startedAt,
    finishedAt: m.finishedAt,
    solutions: m.solutions.list,
    counts: m.table.snapshotCounts(),
    refuted: m.table.refutedWeight,
    splitDone: m.table.initialSplitDone,
    cubes: [...m.table.entries()].map((e) => ({ id: e.id, state: e.state, seq: e.seq, unknowns: e.unknowns, errors: e.errors, worker: e.worker, reason: e.reason })),
  };
}


function boardPlacements(board: Board) {
  return board.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: c!.rot }));
}

function openCubes(m: RunModel): string[] {
  return [...m.table.entries()].filter((e) => e.state === "queued" || e.state === "unknown").map((e) => e.id);
}

async function started(h: Harness): Promise<void> {
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  assert.ok(h.model.table.size >= 2, `the split made ${h.model.table.size} cube(s)`);
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
}

test("run model - every cube refuted: UNSAT, the queue purged, solvers stopped, and the ledger replays to the same run", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 8 });
  await started(h);
  const tasks = h.effects.flatMap((e) => (e.type === "publish" ? e.tasks : []));
  assert.deepEqual(tasks.map((t) => t.task.cubeId).sort(), openCubes(h.model).sort());
  assert.ok(tasks.every((t) => t.msgId === `r1:${t.task.cubeId}` && t.task.units.length > 0));
  // Batches of 3: every recorded cube carries the stream sequence its publish returned.
  assert.deepEqual([...h.model.table.entries()].map((e) => e.seq), tasks.map((_, i) => i + 1));
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts(openCubes(h.model).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-9);
  assert.deepEqual(h.effects.map((e) => e.type), ["append", "append", "write-record", "purge-tasks", "cancel", "delete-consumer"]);
  assert.deepEqual(h.effects[4], { type: "cancel", cube: "", reason: "unsat" });
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - a verified board ends the run SAT; verdicts after the end change nothing", async () => {
  const h = harness({ puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 4 });
  await started(h);
  const [first, second] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(first, VerdictKind.VERDICT_KIND_SAT, { board: boardPlacements(GENERATED.solution) })]));
  assert.equal(h.model.state, RunState.RUN_STATE_SAT);
  assert.equal(h.model.solutions.list.length, 1);
  assert.equal(h.model.solutions.list[0].cubeId, first);
  assert.ok(h.effects.some((e) => e.type === "solution"));
  const before = h.ledger.length;
  await h.run(h.model.recordVerdicts([verdict(second, VerdictKind.VERDICT_KIND_UNSAT)]));
  assert.equal(h.ledger.length, before);
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - a board that is not a solution is rejected, the cube sent again, and given up after max_deliver", async () => {
  const h = harness({ puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 4 }, 2);
  await started(h);
  const [cube] = openCubes(h.model);
  const wrong = boardPlacements(GENERATED.solution);
  [wrong[0], wrong[1]] = [{ ...wrong[0], piece: wrong[1].piece }, { ...wrong[1], piece: wrong[0].piece }];
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_SAT, { board: wrong })]));
  assert.equal(h.model.solutions.rejected, 1);
  assert.equal(h.model.solutions.list.length, 0);
  const retry = h.effects.find((e) => e.type === "publish");
  assert.ok(retry && retry.type === "publish" && retry.tasks[0].task.cubeId === cube && retry.tasks[0].msgId.startsWith(`r1:${cube}:a1:`));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.equal(h.model.table.get(cube)!.seq, retry.seqs[0]);
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_SAT, { board: wrong })]));
  assert.equal(h.model.solutions.rejected, 2);
  assert.equal(h.model.table.get(cube)!.state, "failed");
  assert.deepEqual(h.effects.find((e) => e.type === "delete-task"), { type: "delete-task", seq: retry.seqs[0] });
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - error verdicts up to max_deliver fail the cube, and the run ends FAILED once the rest is refuted", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 }, 2);
  await started(h);
  const [bad, ...rest] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(bad, VerdictKind.VERDICT_KIND_ERROR)]));
  assert.equal(h.model.table.get(bad)!.state, "queued");
  await h.run(h.model.recordVerdicts([verdict(bad, VerdictKind.VERDICT_KIND_ERROR)]));
  assert.equal(h.model.table.get(bad)!.state, "failed");
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
  await h.run(h.model.recordVerdicts(rest.map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_FAILED);
  assert.match(h.model.message, /1 cube\(s\) failed/);
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - unknown verdicts: another attempt first, a re-split after after_budgets, children carry the weight", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4, resplitAfter: 2 });
  await started(h);
  const [cube] = openCubes(h.model);
  const weight = h.model.table.get(cube)!.weight;
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_UNKNOWN)]));
  assert.equal(h.model.table.get(cube)!.state, "queued");
  assert.equal(h.effects.filter((e) => e.type === "publish").length, 1);
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_UNKNOWN)]));
  assert.equal(h.model.table.get(cube)!.state, "resplit");
  const children = [...h.model.table.entries()].filter((e) => e.id.startsWith(`${cube}.`));
  const refutedBySplit = h.ledger.flatMap((e) => (e.entry?.$case === "added" && e.entry.value.parent === cube ? [e.entry.value.refutedWeight] : []));
  assert.ok(Math.abs(children.reduce((s, c) => s + c.weight, 0) + refutedBySplit[0] - weight) < 1e-12);
  // The parent was unknown, not queued: nothing to cancel or delete.
  assert.ok(!h.effects.some((e) => e.type === "cancel" || e.type === "delete-task"));
  // A re-split by the policy queues its children as usual, behind what is queued already.
  assert.ok(h.effects.every((e) => e.type !== "publish" || !e.front));
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - re-splitting a queued cube by hand stops its solver, deletes its task, and queues the children in front", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 });
  await started(h);
  const e = h.model.table.get(openCubes(h.model)[0])!;
  const seq = e.seq;
  h.effects.length = 0;
  const n = await h.run(h.model.resplit(e, { depth: 1 }, "manual"));
  assert.equal(h.model.table.get(e.id)!.state, "resplit");
  assert.equal([...h.model.table.entries()].filter((c) => c.id.startsWith(`${e.id}.`)).length, n);
  const tail = h.effects.slice(-2);
  assert.deepEqual(tail, [{ type: "cancel", cube: e.id, reason: "resplit" }, { type: "delete-task", seq }]);
  // Asked for by hand: the children go to the front queue, before the cubes queued earlier.
  const published = h.effects.filter((x) => x.type === "publish");
  assert.ok(published.length >= 1 && published.every((x) => x.type === "publish" && x.front === true));
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - a cube answered twice in one batch closes once", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 });
  await started(h);
  const [cube] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_UNSAT), verdict(cube, VerdictKind.VERDICT_KIND_UNSAT), verdict("nope", VerdictKind.VERDICT_KIND_UNSAT)]));
  assert.equal(h.model.table.snapshotCounts().unsat, 1);
  const closed = h.ledger.flatMap((e) => (e.entry?.$case === "closed" ? e.entry.value.cubes : []));
  assert.deepEqual(closed.map((c) => c.id), [cube]);
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - pause, resume and cancel are recorded; pause --now and cancel stop the solvers", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 });
  await started(h);
  h.effects.length = 0;
  await h.run(h.model.pause(true));
  assert.equal(h.model.state, RunState.RUN_STATE_PAUSED);
  assert.deepEqual(h.effects.slice(-1), [{ type: "cancel", cube: "", reason: "pause-now" }]);
  await h.run(h.model.resume());
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
  h.effects.length = 0;
  await h.run(h.model.cancel("enough"));
  assert.equal(h.model.state, RunState.RUN_STATE_CANCELLED);
  assert.equal(h.model.message, "enough");
  assert.deepEqual(h.effects.map((e) => e.type), ["append", "write-record", "purge-tasks", "cancel", "delete-consumer"]);
  assert.ok(h.model.finishedAt > h.model.startedAt);
  await h.run(h.model.cancel("again"));
  assert.equal(h.model.message, "enough");
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - a cube JetStream gave up on fails; only a queued one", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 });
  await started(h);
  const [a, b] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(b, VerdictKind.VERDICT_KIND_UNSAT)]));
  await h.run(h.model.giveUpCube(a));
  await h.run(h.model.giveUpCube(b));
  assert.equal(h.model.table.get(a)!.state, "failed");
  assert.equal(h.model.table.get(a)!.reason, "not answered after 3 deliveries");
  assert.equal(h.model.table.get(b)!.state, "unsat");
  assert.deepEqual(snapshot(h.replay()), snapshot(h.model));
});

test("run model - certified: a rejected proof sends the cube again and fails it after max_deliver; the run ends FAILED without a coverage check", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4, certify: true }, 2);
  await started(h);
  const [bad, ...rest] = openCubes(h.model);
  // The cube's units come from the model's own table: those of its task.
  const task = h.effects.flatMap((e) => (e.type === "publish" ? e.tasks : [])).find((t) => t.task.cubeId === bad)!.task;
  assert.equal(task.certify, true);
  assert.deepEqual(h.model.unitsOf(bad), task.units);
  assert.equal(h.model.unitsOf("no-such-cube"), null);

  h.effects.length = 0;
  await h.run(h.model.rejectProof(verdict(bad, VerdictKind.VERDICT_KIND_UNSAT), "drat-trim did not verify the proof"));
  assert.equal(h.model.certification.rejectedProofs, 1);
  assert.equal(h.model.table.get(bad)!.state, "queued");
  assert.ok(h.effects.some((e) => e.type === "publish" && e.tasks[0].task.cubeId === bad), "sent out again");
  await h.run(h.model.rejectProof(verdict(bad, VerdictKind.VERDICT_KIND_UNSAT), "UNSAT without a proof"));
  assert.equal(h.model.table.get(bad)!.state, "failed");
  assert.match(h.model.table.get(bad)!.reason ?? "", /no checked proof after 2 answers: UNSAT without a proof/);

  // The rest refuted with proofs: still RUNNING until the coverage is checked, and it is asked for once.
  const proofs = new Map(rest.map((id, i) => [id, String(i).repeat(64)]));
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts(rest.map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT, { proofSha256: proofs.get(id)! }))));
  // Held until checked: no other worker here, so the coordinator checks each proof itself.
  assert.deepEqual(h.effects.flatMap((e) => (e.type === "check-proof" ? [e.cube] : [])).sort(), [...rest].sort());
  for (const id of rest) await h.run(h.model.recordOwnCheck(id, proofs.get(id)!, { verified: true, detail: "", cpuMs: 1, wallMs: 2 }));
  assert.deepEqual([...h.model.certification.proofs], [...proofs]);
  // One cube failed: the run is FAILED without a coverage check.
  assert.equal(h.model.state, RunState.RUN_STATE_FAILED);
  assert.ok(!h.effects.some((e) => e.type === "check-coverage"));
  assert.equal(h.model.certification.rejectedProofs, 2);
  const again = h.replay();
  assert.deepEqual({ ...snapshot(again), rejectedProofs: again.certification.rejectedProofs, proofs: [...again.certification.proofs] }, { ...snapshot(h.model), rejectedProofs: 2, proofs: [...proofs] });
});

test("run model - certified: every cube refuted with a proof, then UNSAT only once the coverage checked (FAILED if it did not)", async () => {
  for (const ok of [true, false]) {
    const h = harness({ puzzleText: UNSAT, targetCubes: 4, certify: true });
    await started(h);
    const cubes = openCubes(h.model);
    h.effects.length = 0;
    await h.run(h.model.recordVerdicts(cubes.map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT, { proofSha256: "a".repeat(64) }))));
    assert.equal(h.model.certification.coverage, "", "no coverage before the proofs are checked");
    for (const id of cubes) await h.run(h.model.recordOwnCheck(id, "a".repeat(64), { verified: true, detail: "", cpuMs: 1, wallMs: 2 }));
    assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
    assert.equal(h.model.certification.coverage, "checking");
    assert.equal(h.effects.filter((e) => e.type === "check-coverage").length, 1);
    assert.deepEqual(h.model.refutedCubes().map((c) => c.id).sort(), [...cubes].sort());
    // A replayed run (a restarted coordinator) asks for the coverage again: the check in flight is not in the ledger.
    assert.equal(h.replay().certification.coverage, "");
    await h.run(h.model.recordCoverage({ ok, proofSha256: ok ? "b".repeat(64) : "", message: ok ? "" : "coverage proof not verified: x" }));
    if (ok) {
      assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
      assert.equal(h.model.message, `certified: ${cubes.length}/${cubes.length} cube proofs checked, coverage checked; closed weights sum to 1`);
      assert.equal(h.model.certification.coverageProof, "b".repeat(64));
    } else {
      assert.equal(h.model.state, RunState.RUN_STATE_FAILED);
      assert.match(h.model.message, /every cube refuted with a checked proof, but coverage proof not verified: x/);
    }
    const again = h.replay();
    assert.deepEqual(snapshot(again), snapshot(h.model));
    assert.equal(again.certification.coverage, ok ? "checked" : "failed");
  }
});

test("run model - best boards: a worker's deepest board is checked and scored, only improvements are kept, and replay keeps them", async () => {
  const h = harness({ puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 4 });
  await started(h);
  const [a, b, c, d] = openCubes(h.model);
  const full = boardPlacements(GENERATED.solution);
  const unknown = (cube: string, best: ReturnType<typeof boardPlacements>) => verdict(cube, VerdictKind.VERDICT_KIND_UNKNOWN, { best });
  await h.run(h.model.recordVerdicts([unknown(a, full.slice(0, 10))]));
  assert.equal(h.model.best.board?.placed, 10);
  assert.equal(h.model.best.board?.score, 13, "two full rows: 4 + 4 joins along them, 5 between them");
  assert.equal(h.model.best.board?.maxScore, 40);
  assert.equal(h.model.best.board?.cubeId, a);
  // A forged board (a piece twice) is refused; a shallower one does not replace the best.
  const twice = full.slice(0, 12).map((p, i) => (i === 11 ? { ...p, piece: full[0].piece } : p));
  await h.run(h.model.recordVerdicts([unknown(b, twice), unknown(c, full.slice(0, 6))]));
  assert.equal(h.model.best.board?.placed, 10);
  await h.run(h.model.recordVerdicts([unknown(d, full.slice(0, 15))]));
  assert.equal(h.model.best.board?.placed, 15);
  assert.deepEqual(h.model.best.history.map((x) => x.placed), [10, 15]);
  const again = h.replay();
  assert.deepEqual(again.best.board, h.model.best.board);
  assert.deepEqual(again.best.history, h.model.best.history);
});

test("run model - a priority change is recorded, written to the run record, and replayed; the same priority again is a no-op", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4, priority: 2 });
  await started(h);
  assert.equal(h.model.priority, 2);
  h.effects.length = 0;
  await h.run(h.model.setPriority(7));
  assert.equal(h.model.priority, 7);
  assert.deepEqual(h.effects.map((e) => e.type), ["append", "write-record"]);
  assert.equal(h.replay().priority, 7);
  assert.equal(h.model.spec.priority, 2, "the spec keeps the priority the run was submitted with");
  h.effects.length = 0;
  await h.run(h.model.setPriority(7));
  assert.deepEqual(h.effects, []);
});

test("run model - a stall republish that waits on NATS leaves cubes closed meanwhile closed (no refutation undone)", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 8 });
  await started(h);
  const open = openCubes(h.model);
  assert.ok(open.length >= 3);
  let closedMeanwhile = false;
  // The first publish of the republish waits (NATS down); the verdicts of every other cube arrive meanwhile.
  await runSteps(h.model.republishQueued(), async (e) => {
    if (e.type === "publish") e.seqs.push(...e.tasks.map((_, i) => 10_000 + i));
    if (e.type === "publish" && !closedMeanwhile) {
      closedMeanwhile = true;
      const first = e.tasks[0].task.cubeId;
      await h.run(h.model.recordVerdicts(open.filter((id) => id !== first).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
    }
  });
  assert.ok(closedMeanwhile);
  const states = open.map((id) => h.model.table.get(id)!.state);
  assert.equal(states.filter((s) => s === "unsat").length, open.length - 1, `refuted cubes stay refuted: ${states.join(",")}`);
  assert.equal(h.model.table.snapshotCounts().queued, 1);
});
