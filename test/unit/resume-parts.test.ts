/**
 * Resuming scan cubes (docs/cubing.md "Resuming"): a search stopped by its budget says how far it got (the
 * engine's `c part-next`, Verdict.part_next), and what replaces the cube starts there: its parts after a re-split,
 * or its next attempt. The weights do not change; the ledger keeps where each part starts, so a restarted
 * coordinator sends the same tasks. Reports that do not fit the task are dropped.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { resplitPart, resumeFrom } from "../../core/cubes/parts.js";
import { equalRational, exactWeight, sumWeights } from "../../core/cubes/weight.js";
import { checkVerdict } from "../../coordinator/model/leases.js";
import { CUBE_PART_DEPTH } from "../../coordinator/model/run-defaults.js";
import { memberId } from "../../coordinator/model/scan-trees.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { createNames } from "../../proto/contract.js";
import { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { RunRequest } from "../../coordinator/run-spec.js";
import { modelHarness, openCubes, published, verdict } from "../helpers/run-model.js";

/** The portfolio member of a scan run on a board without eight trees: the mirror of the cubes' scan. */
const MIRROR = memberId({ order: "short", corner: 0, mirror: true });

const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const D = CUBE_PART_DEPTH;
const unknown = (cube: string, next: number, depth = D) => verdict(cube, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next, depth } });

/** A scan run split, and the portfolio member's first task. */
async function split(req: Partial<RunRequest> = {}) {
  const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", puzzleText: UNSAT, targetCubes: 4, ...req }, { batchSize: 5 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  return { h, first: published(h.effects).find((t) => t.task.cubeId === MIRROR)! };
}

/** A scan run split, its member given up (no report): the cubes alone. */
async function started(req: Partial<RunRequest> = {}) {
  const { h } = await split(req);
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN)]));
  return h;
}

async function closeAll(h: Awaited<ReturnType<typeof started>>) {
  await h.run(h.model.recordVerdicts(openCubes(h.model).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
}

test("resuming - a whole scan cube goes out as part 0 of 1 (numbered, with its tree estimate); stopped, its re-split parts start where it stopped", async () => {
  const h = await started();
  const cubes = published(h.effects).filter((t) => t.task.cubeId !== MIRROR);
  assert.ok(cubes.length >= 2);
  assert.ok(cubes.every((t) => JSON.stringify(t.task.part) === JSON.stringify({ k: 0, n: 1, depth: D })));
  const parent = h.model.table.get("0")!;
  assert.equal(parent.part, undefined, "the table keeps the cube whole");
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([unknown("0", 1234)]));
  assert.equal(parent.state, "resplit");
  const kids = published(h.effects);
  assert.equal(kids.length, 16);
  assert.ok(kids.every((t) => t.front));
  assert.deepEqual(kids.map((t) => t.task.part), Array.from({ length: 16 }, (_, k) => ({ k, n: 16, depth: D, from: 1234 })));
  assert.deepEqual([cubes[0].task.solver!.timeLimitSec, kids[0].task.solver!.timeLimitSec], [60, 120], "the budget doubles per generation");
  assert.ok(kids.every((t) => JSON.stringify(t.task.placements) === JSON.stringify(parent.placements)));
  // Exact: the 16 parts weigh what the cube weighed.
  const kidEntries = kids.map((t) => h.model.table.get(t.task.cubeId)!);
  assert.ok(equalRational(sumWeights(kidEntries.map((e) => [...e.branching])), exactWeight([...parent.branching])));
  // A restarted coordinator has the same parts, and sends a requeued one from where it starts.
  const replayed = h.replay();
  assert.deepEqual(replayed.table.get("0.5")!.part, { k: 5, n: 16, depth: D, from: 1234 });
  assert.deepEqual(replayed.table.get("0")!.progress, { next: 1234, depth: D });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([{ ...verdict("0.5", VerdictKind.VERDICT_KIND_ERROR), reason: "crashed" }]));
  assert.deepEqual(published(h.effects)[0].task.part, { k: 5, n: 16, depth: D, from: 1234 });
  await closeAll(h);
  assert.equal(h.replay().table.refutedWeight, h.model.table.refutedWeight);
});

test("resuming - a part's children start at the furthest of its own start and its report; a report at another depth, behind the start, or not a count is dropped", async () => {
  const h = await started({ cubeParts: 2 });
  assert.deepEqual(published(h.effects).find((t) => t.task.cubeId === "1")!.task.part, { k: 1, n: 2, depth: D });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([unknown("1", 501)]));
  const kids = published(h.effects);
  assert.deepEqual(kids.map((t) => t.task.part), Array.from({ length: 16 }, (_, j) => ({ k: 1 + 2 * j, n: 32, depth: D, from: 501 })));
  // A child that gets further: its own children start there.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([unknown("1.3", 9001)]));
  assert.ok(published(h.effects).every((t) => t.task.part!.from === 9001 && t.task.part!.n === 512));
  // Reports that do not fit the task the cube was sent as: its children start where the cube does.
  for (const [cube, report] of [["1.4", { next: 8000, depth: D + 1 }], ["1.5", { next: 400, depth: D }], ["1.6", { next: 2 ** 60, depth: D }]] as const) {
    h.effects.length = 0;
    await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: report })]));
    assert.equal(h.model.table.get(cube)!.state, "resplit");
    assert.equal(h.model.table.get(cube)!.progress, undefined, `${cube}: ${JSON.stringify(report)}`);
    assert.ok(published(h.effects).every((t) => t.task.part!.from === 501), cube);
  }
  await closeAll(h);
});

test("resuming - with several budgets before a re-split, the cube's next attempt starts where the last one stopped", async () => {
  const h = await started({ resplitAfter: 3 });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([unknown("2", 77)]));
  let again = published(h.effects);
  assert.equal(again.length, 1);
  assert.deepEqual(again[0].task.part, { k: 0, n: 1, depth: D, from: 77 });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([{ ...unknown("2", 300), lease: again[0].task.lease }]));
  again = published(h.effects);
  assert.deepEqual(again[0].task.part, { k: 0, n: 1, depth: D, from: 300 });
  // A later attempt that reports less (another worker's older message) does not move the start back.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([{ ...unknown("2", 100), lease: again[0].task.lease }]));
  assert.equal(h.model.table.get("2")!.state, "resplit");
  assert.ok(published(h.effects).every((t) => t.task.part!.from === 300));
  await closeAll(h);
});

test("resuming - runs whose cubes are not scan cubes, or certified, send no part and drop a report", async () => {
  for (const req of [{ cellOrder: "most-constrained" }, { cellOrder: "scan", certify: true, solver: "kissat" }, { cellOrder: "scan", solver: "kissat" }]) {
    const h = modelHarness({ runId: "r1", solver: "none", puzzleText: UNSAT, targetCubes: 4, ...req } as RunRequest, { batchSize: 5 });
    await h.run(h.model.start());
    await h.run(h.model.splitInitial());
    const tasks = published(h.effects);
    const scanKissat = req.cellOrder === "scan" && !req.certify;
    assert.ok(tasks.every((t) => (scanKissat ? t.task.part?.n === 1 : t.task.part === undefined)), JSON.stringify(req));
    if (scanKissat) continue; // the engine searches beside Kissat: its report counts (below, as for any scan cube)
    const id = openCubes(h.model)[0];
    await h.run(h.model.recordVerdicts([unknown(id, 50)]));
    assert.equal(h.model.table.get(id)!.progress, undefined, JSON.stringify(req));
  }
});

test("resuming - parts arithmetic: children keep their start, a report at the part's depth moves it on, never back", () => {
  const cube = { placements: [], branching: [4], weight: 0.25, part: { k: 1, n: 2, depth: 10, from: 40 } };
  assert.equal(resumeFrom(cube.part), 40);
  assert.equal(resumeFrom(cube.part, { next: 90, depth: 10 }), 90);
  assert.equal(resumeFrom(cube.part, { next: 10, depth: 10 }), 40);
  assert.equal(resumeFrom(cube.part, { next: 90, depth: 9 }), 40);
  assert.ok(resplitPart(cube, 4).every((c) => c.part!.from === 40));
  assert.ok(resplitPart(cube, 4, { next: 70, depth: 10 }).every((c) => c.part!.from === 70));
  assert.ok(resplitPart({ ...cube, part: { k: 1, n: 2, depth: 10 } }, 4).every((c) => c.part!.from === undefined));
});

test("resuming - the portfolio member goes on from where it stopped, with twice the budget, once the cubes have had as much worker time", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0.5 });
  assert.deepEqual(first.task.part, { k: 0, n: 1, depth: D }, "the whole board, numbered");
  assert.deepEqual([first.task.engineOrder, first.task.engineMirror], ["short", true]);
  assert.equal(first.task.solver!.timeLimitSec, 10);
  const member = (next: number, wallMs: number, lease: string) =>
    verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next, depth: D }, lease, stats: { wallMs } as never });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([member(40, 30_000, first.task.lease)]));
  assert.equal(published(h.effects).length, 0, "the cubes have had no time yet (and it is over by more than its next attempt)");
  // The cubes catch up (a cube back after 16 s, another after 15 s): the member goes on, to the lead queue (workers
  // ask it before the front queue, where a re-split's children wait).
  const withMs = (id: string, kind: VerdictKind, wallMs: number) => verdict(id, kind, { stats: { wallMs } as never });
  await h.run(h.model.recordVerdicts([withMs("1", VerdictKind.VERDICT_KIND_UNSAT, 16_000)]));
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0);
  await h.run(h.model.recordVerdicts([withMs("2", VerdictKind.VERDICT_KIND_UNSAT, 15_000)]));
  const again = published(h.effects).filter((t) => t.task.cubeId === MIRROR);
  assert.equal(again.length, 1);
  assert.ok(again[0].lead && !again[0].front);
  assert.deepEqual(again[0].task.part, { k: 0, n: 1, depth: D, from: 40 });
  assert.equal(again[0].task.solver!.timeLimitSec, 20);
  assert.notEqual(again[0].task.lease, first.task.lease);
  assert.notEqual(again[0].msgId, first.msgId, "its own message id: JetStream would drop a duplicate");
  // Its budget doubles again (past the run's cube budget: a resume repeats the subtree it stopped in); a report
  // behind its start ends it.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([member(90, 20_000, again[0].task.lease), withMs("3", VerdictKind.VERDICT_KIND_UNKNOWN, 30_000)]));
  const third = published(h.effects).filter((t) => t.task.cubeId === MIRROR);
  assert.deepEqual(third.map((t) => [t.task.part!.from, t.task.solver!.timeLimitSec]), [[90, 40]]);
  assert.equal(new Set([first, again[0], third[0]].map((t) => t.msgId)).size, 3);
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([member(50, 1_000, third[0].task.lease), withMs("0", VerdictKind.VERDICT_KIND_UNSAT, 90_000)]));
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0, "a report behind its start: the member ends");
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
});

test("resuming - a member that says exactly where it stopped goes on there with the same budget, also after a restart; a bad path ends it", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0.5 });
  const path = { ranks: [3, 0, 7, 2] };
  const member = (next: number, ranks: number[], lease: string) =>
    verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next, depth: D, path: { ranks } }, lease, stats: { wallMs: 10_000 } as never });
  await h.run(h.model.recordVerdicts([member(40, path.ranks, first.task.lease), verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 20_000 } as never })]));
  const again = published(h.effects).filter((t) => t.task.cubeId === MIRROR && t.task.lease !== first.task.lease);
  assert.equal(again.length, 1);
  assert.deepEqual(again[0].task.part, { k: 0, n: 1, depth: D, from: 40, resume: path });
  assert.equal(again[0].task.solver!.timeLimitSec, 10, "nothing is searched twice: the budget need not grow");
  // Stopped again, and the coordinator restarts: the next one goes on from the new path, where the ledger says.
  await h.run(h.model.recordVerdicts([member(41, [3, 0, 9], again[0].task.lease), verdict("2", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 20_000 } as never })]));
  const third = published(h.effects).filter((t) => t.task.cubeId === MIRROR).at(-1)!;
  assert.deepEqual([third.task.part!.resume, third.task.solver!.timeLimitSec], [{ ranks: [3, 0, 9] }, 10]);
  const replayed = h.replay();
  assert.deepEqual(replayed.table.member(MIRROR), { id: MIRROR, lease: third.task.lease, open: true });
  // A path the engine could not have printed (a rank past 2^31) is no report: the member ends.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([member(42, [3, 2 ** 31], third.task.lease), verdict("3", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 90_000 } as never })]));
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0);
});

test("resuming - with --member-share 0 the member does not go on", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0 });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([
    verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 40, depth: D }, lease: first.task.lease, stats: { wallMs: 10 } as never }),
    verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 60_000 } as never }),
  ]));
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0);
  await h.run(h.replay().recover());
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0, "nor after a restart");
});

test("resuming - the member's attempts are in the ledger: a restarted coordinator takes the verdict in flight, and sends a stopped member on at once", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0.5 });
  // A coordinator that replays the ledger knows the attempt in flight by its lease, and takes its report.
  const second = h.replay();
  assert.deepEqual(second.table.member(MIRROR), { id: MIRROR, lease: first.task.lease, open: true });
  h.effects.length = 0;
  await h.run(second.recover());
  assert.equal(published(h.effects).length, 0, "nothing is sent again while the attempt is in flight");
  await h.run(second.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 40, depth: D }, lease: first.task.lease, stats: { wallMs: 30_000 } as never })]));
  assert.equal(published(h.effects).length, 0, "the cubes have had no time yet (and it is over by more than its next attempt)");
  assert.equal(second.table.member(MIRROR)!.open, false);
  // The next coordinator finds the member stopped: it goes on at once, where it stopped, with twice the budget.
  const third = h.replay();
  assert.equal(third.table.member(MIRROR)!.open, false);
  await h.run(third.recover());
  const again = published(h.effects).filter((t) => t.task.cubeId === MIRROR);
  assert.equal(again.length, 1);
  assert.ok(again[0].lead && !again[0].front);
  assert.deepEqual(again[0].task.part, { k: 0, n: 1, depth: D, from: 40 });
  assert.equal(again[0].task.solver!.timeLimitSec, 20);
  assert.deepEqual(third.table.member(MIRROR), { id: MIRROR, lease: again[0].task.lease, open: true });
  assert.deepEqual(h.replay().table.member(MIRROR), third.table.member(MIRROR));
  const members = h.ledger.filter((e) => e.entry?.$case === "member");
  assert.equal(members.length, 3, "sent, stopped, sent again");
  for (const e of members) assert.deepEqual(LedgerEntry.decode(LedgerEntry.encode(e).finish()), e, "as stored in the ledger stream");
  // Its exhausted board still refutes every open cube.
  await h.run(third.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT, { lease: again[0].task.lease })]));
  assert.equal(third.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(third.table.refutedWeight - 1) < 1e-12);
});

test("resuming - the member's exhausted board after it went on refutes every open cube: UNSAT, weights 1", async () => {
  const { h, first } = await split({ memberShare: 0.5 });
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([
    verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 7, depth: D }, lease: first.task.lease, stats: { wallMs: 10 } as never }),
    verdict("0", VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 3, depth: D }, stats: { wallMs: 100 } as never }),
  ]));
  const again = published(h.effects).find((t) => t.task.cubeId === MIRROR)!;
  assert.equal(again.task.part!.from, 7);
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT, { lease: again.task.lease })]));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  assert.equal(h.replay().table.refutedWeight, h.model.table.refutedWeight);
});

test("resuming - every member attempt's placements count in the run's, once, also on replay: stopped, gone on, given up", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0.5 });
  const nodes = (searchNodes: number, wallMs = 10_000) => ({ stats: { wallMs, searchNodes } as never });
  await h.run(h.model.recordVerdicts([verdict("1", VerdictKind.VERDICT_KIND_UNSAT, nodes(500, 60_000))]));
  assert.equal(h.model.cubes.work.placements, 500);
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 40, depth: D }, lease: first.task.lease, ...nodes(7_000) })]));
  assert.equal(h.model.cubes.work.placements, 7_500, "stopped by its budget");
  const again = published(h.effects).find((t) => t.task.cubeId === MIRROR)!;
  assert.ok(again, "it went on");
  // The same verdict again (a redelivery) is refused by its old lease before it reaches the run; the next attempt,
  // given up, adds its own.
  const redelivered = verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 40, depth: D }, lease: first.task.lease, ...nodes(7_000) });
  assert.equal(checkVerdict(createNames(), h.model.table, redelivered, createNames().verdictsSubject("r1", "w1")), "verdict_lease");
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_ERROR, { lease: again.task.lease, ...nodes(30_000) })]));
  assert.equal(h.model.cubes.work.placements, 37_500, "given up");
  assert.equal(h.replay().cubes.work.placements, 37_500);
  // Ended, it does not go on, also after a restart.
  h.effects.length = 0;
  await h.run(h.replay().recover());
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 0);
});

test("resuming - the placements of the member's exhausted board go with the first cube it refutes, once", async () => {
  const { h, first } = await split();
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT, { lease: first.task.lease, stats: { wallMs: 5, searchNodes: 123_456 } as never })]));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.equal(h.model.cubes.work.placements, 123_456);
  assert.equal(h.replay().cubes.work.placements, 123_456);
});

test("resuming - a member going on is sent once: a status round while its next attempt is published and not yet recorded sends nothing", async () => {
  const { h, first } = await split({ timeLimitSec: 30, memberShare: 0.5 });
  await h.run(h.model.recordVerdicts([verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 60_000 } as never })]));
  h.effects.length = 0;
  // The member's verdict: within its share, it goes on; stop its steps at that publish, before it is recorded.
  const back = verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next: 40, depth: D }, lease: first.task.lease, stats: { wallMs: 10_000 } as never });
  const steps = h.model.recordVerdicts([back]);
  let next = steps.next();
  for (; !next.done; next = steps.next()) {
    await h.run((function* () { yield next.value!; })());
    if (next.value.type === "publish" && next.value.tasks.some((t) => t.task.cubeId === MIRROR)) break;
  }
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 1, "the member goes on");
  await h.run(h.model.continueMembers());
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 1, "not again while in flight");
  await h.run(steps);
  await h.run(h.model.continueMembers());
  assert.equal(published(h.effects).filter((t) => t.task.cubeId === MIRROR).length, 1, "nor once recorded: it is in flight");
});
