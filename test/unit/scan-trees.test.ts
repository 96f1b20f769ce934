/**
 * A scan run's portfolio members (coordinator/model/scan-trees.ts, scan-member.ts): the trees `cubist solve` searches
 * beside the one the cubes split, each member in its own tree with its own attempts and budgets, its answers taken
 * by its id, its states replayed from the ledger.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseAnyPuzzle } from "../../core/formats/index.js";
import type { Puzzle } from "../../core/puzzle.js";
import { CUBE_PART_DEPTH } from "../../coordinator/model/run-defaults.js";
import { defaultMemberShare, hasEightTrees, LEGACY_MEMBER_ID, memberId, memberTrees, treeOfMember } from "../../coordinator/model/scan-trees.js";
import { isMemberId } from "../../proto/contract.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { RunRequest } from "../../coordinator/run-spec.js";
import { modelHarness, openCubes, published, verdict } from "../helpers/run-model.js";

const EIGHT = readFileSync("test/fixtures/cluster/unsat-7x7-hard.txt", "utf8");
const TWO = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const D = CUBE_PART_DEPTH;
const puzzleOf = (text: string): Puzzle => parseAnyPuzzle(text, "t", "auto") as Puzzle;
const SEVEN = ["member-short-m", "member-short-c1", "member-short-c1-m", "member-short-c2", "member-short-c2-m", "member-short-c3", "member-short-c3-m"];

async function split(text: string, req: Partial<RunRequest> = {}) {
  const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", puzzleText: text, targetCubes: 4, timeLimitSec: 30, ...req }, { batchSize: 5 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  return h;
}

const stopped = (id: string, next: number, lease: string, wallMs: number) =>
  verdict(id, VerdictKind.VERDICT_KIND_UNKNOWN, { partNext: { next, depth: D }, lease, stats: { wallMs, searchNodes: 1000 } as never });

test("scan trees - ids name the trees and read back; eight trees on a square without hints whose corner pieces all differ, else the mirror", () => {
  for (const t of memberTrees(puzzleOf(EIGHT), true)) assert.deepEqual(treeOfMember(memberId(t)), t);
  assert.deepEqual(treeOfMember(LEGACY_MEMBER_ID), { order: "long", corner: 0, mirror: false }, "the member of older ledgers");
  for (const id of ["member-short-c4", "member-diagonal", "member-short-c0-m", "0", "member-short-m.1"]) assert.equal(isMemberId(id), false, id);
  assert.ok(hasEightTrees(puzzleOf(EIGHT)));
  assert.deepEqual(memberTrees(puzzleOf(EIGHT), true).map(memberId), SEVEN);
  assert.deepEqual(memberTrees(puzzleOf(EIGHT), false).map(memberId), ["member-short-m"], "symmetry not broken: no corner piece to pin");
  assert.deepEqual(memberTrees(puzzleOf(TWO), true).map(memberId), ["member-short-m"]);
  const hinted = { ...puzzleOf(EIGHT), hints: [{ row: 0, col: 0, piece: 0, rot: 0 }] };
  assert.equal(hasEightTrees(hinted), false);
  assert.deepEqual([defaultMemberShare(puzzleOf(EIGHT)), defaultMemberShare(puzzleOf(TWO)), defaultMemberShare(hinted)], [0.875, 0.5, 0.5]);
});

test("scan trees - eight trees: the first cube, then the seven members, each its own tree (mirror, pinned corner piece) as the whole board numbered, then the other cubes", async () => {
  const h = await split(EIGHT);
  const tasks = published(h.effects);
  assert.equal(tasks[0].task.cubeId, "0");
  const members = tasks.slice(1, 8);
  assert.deepEqual(members.map((t) => t.task.cubeId), SEVEN);
  assert.deepEqual(members.map((t) => [t.task.engineOrder, t.task.engineCorner, t.task.engineMirror]),
    [["short", 0, true], ["short", 1, false], ["short", 1, true], ["short", 2, false], ["short", 2, true], ["short", 3, false], ["short", 3, true]]);
  assert.ok(members.every((t) => t.task.placements.length === 0 && t.task.solver!.timeLimitSec === 10 && JSON.stringify(t.task.part) === JSON.stringify({ k: 0, n: 1, depth: D })));
  assert.ok(tasks.slice(8).every((t) => !isMemberId(t.task.cubeId) && t.task.engineOrder === "" && !t.task.engineMirror && t.task.engineCorner === 0));
  assert.equal(h.model.table.size, tasks.length - 7, "the members are no cubes");
  for (const id of SEVEN) assert.equal(h.replay().table.member(id)?.open, true, `${id} replays in flight`);
});

test("scan trees - each stopped member goes on in its own tree from where it stopped with its own doubled budget, within the members' share; replayed after a restart", async () => {
  const h = await split(EIGHT, { memberShare: 0.875 });
  const first = new Map(published(h.effects).filter((t) => isMemberId(t.task.cubeId)).map((t) => [t.task.cubeId, t]));
  h.effects.length = 0;
  // Two members back stopped (60 s of worker time), the cubes with 1 s: over 7/8 by more than their next attempts
  // (20 s), nobody goes on.
  await h.run(h.model.recordVerdicts([stopped("member-short-c2", 40, first.get("member-short-c2")!.task.lease, 30_000), stopped("member-short-m", 9, first.get("member-short-m")!.task.lease, 30_000)]));
  await h.run(h.model.recordVerdicts([verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 1_000 } as never })]));
  assert.equal(published(h.effects).filter((t) => isMemberId(t.task.cubeId)).length, 0, "the cubes have had too little time");
  // The cubes catch up (9 s in all: the members' 60 s is within 7/8, 60 <= 7 x 9): both go on, to the lead queue.
  await h.run(h.model.recordVerdicts([verdict("2", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 8_000 } as never })]));
  const again = published(h.effects).filter((t) => isMemberId(t.task.cubeId));
  assert.deepEqual(again.map((t) => [t.task.cubeId, t.task.engineCorner, t.task.engineMirror, t.task.part!.from, t.task.solver!.timeLimitSec, t.lead]).sort(),
    [["member-short-c2", 2, false, 40, 20, true], ["member-short-m", 0, true, 9, 20, true]]);
  // The ledger says which member each entry is: a restarted coordinator has the same members, in flight or not.
  const members = h.ledger.filter((e) => e.entry?.$case === "member");
  assert.equal(members.length, 7 + 2 + 2, "seven sent, two stopped, two sent again");
  for (const e of members) assert.deepEqual(LedgerEntry.decode(LedgerEntry.encode(e).finish()), e, "as stored in the ledger stream");
  const replayed = h.replay();
  for (const id of SEVEN) assert.deepEqual(replayed.table.member(id), h.model.table.member(id), id);
  assert.deepEqual(replayed.member.state("member-short-c2"), h.model.member.state("member-short-c2"));
  // Stopped members of the replayed run go on at once, each in its own tree.
  const c3m = first.get("member-short-c3-m")!;
  await h.run(replayed.recordVerdicts([stopped("member-short-c3-m", 5, c3m.task.lease, 30_000)]));
  h.effects.length = 0;
  await h.run(h.replay().recover());
  assert.deepEqual(published(h.effects).map((t) => [t.task.cubeId, t.task.engineCorner, t.task.engineMirror, t.task.part!.from, t.task.solver!.timeLimitSec]),
    [["member-short-c3-m", 3, true, 5, 20]]);
});

test("scan trees - the members' share counts the tasks running now (the workers' heartbeats), checked between verdicts too, and a member just back may go beyond it by one attempt", async () => {
  let running: Array<{ cube: string; sinceMs: number }> = [];
  const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", puzzleText: TWO, targetCubes: 4, timeLimitSec: 30 }, { batchSize: 5, running: () => running });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const first = published(h.effects).find((t) => t.task.cubeId === "member-short-m")!;
  h.effects.length = 0;
  const sentOn = () => published(h.effects).map((t) => [t.task.cubeId, t.task.part!.from, t.task.solver!.timeLimitSec]);
  // Back after 10 s while cube 0 has been running 4 s (the member itself still shows in the last heartbeat, but is
  // back: not counted twice): 10 > 4, over the share, but by less than its next attempt (20 s): its slot is free and
  // waits for it, so it goes on at once.
  const now = 1_000_000;
  running = [{ cube: "0", sinceMs: now - 4_000 }, { cube: "member-short-m", sinceMs: now - 10_000 }, { cube: "nothing", sinceMs: now - 60_000 }];
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 40, first.task.lease, 10_000)]));
  assert.deepEqual(sentOn(), [["member-short-m", 40, 20]], "beyond the share by one attempt at most");
  h.effects.length = 0;
  // Back again after 20 s more (30 s in all) with the cubes still at 4 s: 30 - 40 (its next attempt) <= 4 goes on
  // too; after 80 s more (110 s in all) it is over by more than an attempt (110 - 80 > 4): it waits.
  const lease = () => h.model.table.member("member-short-m")!.lease;
  running = [{ cube: "0", sinceMs: now - 4_000 }];
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 50, lease(), 20_000)]));
  assert.deepEqual(sentOn(), [["member-short-m", 50, 40]]);
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 60, lease(), 80_000)]));
  assert.deepEqual(sentOn(), [], "over the share by more than an attempt");
  await h.run(h.model.continueMembers());
  assert.deepEqual(sentOn(), [], "a status round allows no slack");
  // A heartbeat later (the shell asks with each status round, no verdict needed): cubes 0 and 1 have been running
  // 60 s and 50 s, none of them back: 110 <= 110, it goes on.
  running = [{ cube: "0", sinceMs: now - 60_000 }, { cube: "1", sinceMs: now - 50_000 }];
  await h.run(h.model.continueMembers());
  assert.deepEqual(sentOn(), [["member-short-m", 60, 80]]);
});

test("scan trees - members go on in rounds: none starts its next attempt before every member still going has had as many", async () => {
  const h = await split(EIGHT, { memberShare: 0.875 });
  const lease = (id: string) => h.model.table.member(id)!.lease;
  // The cubes have had plenty of time: only the rounds hold a member back.
  await h.run(h.model.recordVerdicts([verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 1_000_000 } as never })]));
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 9, lease("member-short-m"), 10_000)]));
  const sentOn = () => published(h.effects).filter((t) => isMemberId(t.task.cubeId)).map((t) => `${t.task.cubeId}:${t.task.solver!.timeLimitSec}`);
  assert.deepEqual(sentOn(), ["member-short-m:20"], "round 0 is under way: its second attempt may start");
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 20, lease("member-short-m"), 20_000)]));
  assert.deepEqual(sentOn(), [], "its third waits until the six others have had their second");
  for (const id of SEVEN.slice(1, 6)) await h.run(h.model.recordVerdicts([stopped(id, 5, lease(id), 10_000)]));
  assert.deepEqual(sentOn(), SEVEN.slice(1, 6).map((id) => `${id}:20`), "each of the others goes on at once");
  // The last one's first attempt back: now every member has started its second, and the mirror its third may.
  await h.run(h.model.recordVerdicts([stopped("member-short-c3-m", 5, lease("member-short-c3-m"), 10_000)]));
  assert.deepEqual(sentOn().slice(5), ["member-short-c3-m:20", "member-short-m:40"]);
});

test("scan trees - any member's exhausted tree refutes every open cube (UNSAT, weights 1); a second one in the same batch closes nothing, its placements count", async () => {
  const h = await split(EIGHT);
  const lease = (id: string) => published(h.effects).find((t) => t.task.cubeId === id)!.task.lease;
  const open = openCubes(h.model);
  const nodes = (searchNodes: number) => ({ stats: { wallMs: 5, searchNodes } as never });
  await h.run(h.model.recordVerdicts([
    verdict("member-short-c1-m", VerdictKind.VERDICT_KIND_UNSAT, { lease: lease("member-short-c1-m"), ...nodes(1_000) }),
    verdict("member-short-c2", VerdictKind.VERDICT_KIND_UNSAT, { lease: lease("member-short-c2"), ...nodes(20) }),
  ]));
  assert.equal(h.model.cubes.work.placements, 1_020);
  assert.equal(h.replay().cubes.work.placements, 1_020);
  assert.equal(h.effects.filter((e) => e.type === "cancel" && e.reason === "refuted").length, 1, "one refutation stops the workers");
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  const closed = h.ledger.flatMap((e) => (e.entry?.$case === "closed" ? e.entry.value.cubes : []));
  assert.deepEqual(closed.filter((c) => /refuted by member-short-c1-m: the whole board's short, corner piece 1, mirrored scan exhausted/.test(c.reason)).map((c) => c.id).sort(), open.sort());
  assert.equal(h.replay().state, RunState.RUN_STATE_UNSAT);
});

test("scan trees - a ledger written before several members (no id) replays as the long member, and goes on in the long order", async () => {
  const h = await split(TWO, { memberShare: 0.5 });
  const first = published(h.effects).find((t) => t.task.cubeId === "member-short-m")!;
  await h.run(h.model.recordVerdicts([stopped("member-short-m", 40, first.task.lease, 10), verdict("1", VerdictKind.VERDICT_KIND_UNSAT, { stats: { wallMs: 60_000 } as never })]));
  // Rewrite the ledger as an older coordinator wrote it: the one member without an id was the long scan.
  const legacy = h.ledger.filter((e) => e.entry?.$case === "member");
  assert.ok(legacy.length >= 2);
  for (const e of legacy) if (e.entry?.$case === "member") e.entry.value.id = "";
  // The stopped member went on at once: drop that last attempt, so the replay finds it stopped.
  h.ledger.splice(h.ledger.indexOf(legacy[legacy.length - 1]), 1);
  const replayed = h.replay();
  assert.equal(replayed.table.member(LEGACY_MEMBER_ID)?.open, false);
  assert.equal(replayed.table.member("member-short-m"), undefined);
  h.effects.length = 0;
  await h.run(replayed.recover());
  assert.deepEqual(published(h.effects).map((t) => [t.task.cubeId, t.task.engineOrder, t.task.engineMirror, t.task.part!.from]), [[LEGACY_MEMBER_ID, "long", false, 40]]);
});
