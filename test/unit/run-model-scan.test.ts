/**
 * Scan runs in the run model (cell order "scan", docs/cubing.md "Scan cubes"): cubes along the engine's scan in
 * order with the whole budget, the portfolio member beside them, re-splits to the front queue, and the exact
 * bookkeeping when the member decides the run. Effects are carried out by a small in-memory shell.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { checkVerdict } from "../../coordinator/model/leases.js";
import { freeCells } from "../../coordinator/model/run-defaults.js";
import { memberId } from "../../coordinator/model/scan-trees.js";
import { buildRunSpec, type RunRequest } from "../../coordinator/run-spec.js";
import { runSteps } from "../../coordinator/model/run-effects.js";
import { SCAN_MEMBER_SEC } from "../../coordinator/model/scan-member.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { readBrendan, readBrendanSolution, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { createNames } from "../../proto/contract.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { modelHarness, openCubes, published, squarePuzzleOf, verdict } from "../helpers/run-model.js";

/** The portfolio member of a scan run on a board without eight trees: the mirror of the cubes' scan. */
const MIRROR = memberId({ order: "short", corner: 0, mirror: true });

const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const GENERATED = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 });

function harness(req: Partial<RunRequest> & { puzzleText: string }) {
  const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", ...req }, { batchSize: 5 });
  return { ...h, puzzle: squarePuzzleOf(h) };
}



test("scan run - the defaults: near-unique boards with the engine alone split along the scan, others as before", () => {
  assert.equal(buildRunSpec({ puzzleText: UNSAT }).spec.cubing!.cellOrder, "scan");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, solver: "kissat" }).spec.cubing!.cellOrder, "most-constrained");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, objective: "score" }).spec.cubing!.cellOrder, "most-constrained");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cellOrder: "spiral" }).spec.cubing!.cellOrder, "spiral");
});

test("scan run - the default counts free cells: a 16x16 with 56 hints splits along the scan, with 55 as before", () => {
  const e2like = readBrendan(readFileSync("test/fixtures/brendan/pieces_16x16.txt", "utf8"), "pieces_16x16.txt");
  const planted = readBrendanSolution(readFileSync("test/fixtures/brendan/solutions_16x16.txt", "utf8"), "solutions_16x16.txt", e2like);
  const withHints = (given: number): string => writeCanonical({
    ...e2like,
    hints: planted.cells.slice(0, given).map((c, cell) => ({ row: Math.floor(cell / 16), col: cell % 16, piece: c!.piece, rot: c!.rot })),
  });
  assert.equal(freeCells({ rows: 16, cols: 16, hints: [{ row: 0, col: 0, piece: 0, rot: 0 }, { row: 0, col: 0, piece: 0, rot: 0 }] }), 255, "a cell hinted twice is one cell");
  assert.equal(buildRunSpec({ puzzleText: withHints(56) }).spec.cubing!.cellOrder, "scan");
  assert.equal(buildRunSpec({ puzzleText: withHints(55) }).spec.cubing!.cellOrder, "most-constrained");
  assert.equal(buildRunSpec({ puzzleText: withHints(0) }).spec.cubing!.cellOrder, "most-constrained");
});

test("scan run - cubes go out in scan order with the whole budget, the mirror member second; all refuted: UNSAT, weights 1, replayable", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 8, timeLimitSec: 30, firstTimeLimitSec: 2 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const expected = scanSplit(h.puzzle, { targetCubes: 8, symmetry: true }); // no hints, one board wanted: the engine's symmetry
  const tasks = published(h.effects);
  assert.equal(tasks.length, expected.cubes.length + 1);
  assert.equal(tasks[1].task.cubeId, MIRROR);
  assert.deepEqual([tasks[1].task.engineOrder, tasks[1].task.engineMirror, tasks[1].task.engineCorner], ["short", true, 0], "the mirror of the cubes' scan");
  assert.deepEqual(tasks[1].task.placements, []);
  assert.equal(tasks[1].task.solver!.timeLimitSec, Math.min(30, SCAN_MEMBER_SEC));
  const cubes = tasks.filter((t) => t.task.cubeId !== MIRROR);
  assert.deepEqual(cubes.map((t) => t.task.cubeId), expected.cubes.map((_, i) => String(i)));
  assert.deepEqual(cubes.map((t) => t.task.placements), expected.cubes.map((c) => c.placements));
  assert.ok(cubes.every((t) => t.task.solver!.timeLimitSec === 30 && t.task.engineOrder === "" && !t.task.engineMirror && t.task.engineCorner === 0 && !t.front));
  assert.equal(h.model.table.size, expected.cubes.length, "the member is no cube");
  // The member's verdict passes the lease check with its lease only.
  const names = createNames();
  const subject = names.verdictsSubject("r1", "w1");
  assert.equal(checkVerdict(names, h.model.table, verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { lease: tasks[1].task.lease }), subject), null);
  assert.equal(checkVerdict(names, h.model.table, verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN, { lease: "other" }), subject), "verdict_lease");
  await h.run(h.model.recordVerdicts(openCubes(h.model).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  const again = h.replay();
  assert.equal(again.state, RunState.RUN_STATE_UNSAT);
  assert.equal(again.table.refutedWeight, h.model.table.refutedWeight);
});

test("scan run - the member's exhausted board refutes every open cube with its weight: UNSAT, weights 1, replayable", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 8 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [first] = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(first, VerdictKind.VERDICT_KIND_UNSAT)]));
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
  const openBefore = openCubes(h.model);
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT)]));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.deepEqual(openCubes(h.model), []);
  assert.equal(h.model.table.snapshotCounts().unsat, h.model.table.size);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  const closed = h.ledger.flatMap((e) => (e.entry?.$case === "closed" ? e.entry.value.cubes : []));
  assert.deepEqual(closed.filter((c) => /refuted by member-short-m: the whole board's short, mirrored scan exhausted/.test(c.reason)).map((c) => c.id).sort(), openBefore.sort());
  // In entries of at most batchSize (5 here) closed cubes: one entry of thousands could exceed NATS's message limit.
  const sizes = h.ledger.flatMap((e) => (e.entry?.$case === "closed" ? [e.entry.value.cubes.length] : []));
  assert.ok(openBefore.length > 5 && sizes.every((n) => n <= 5), `${openBefore.length} open, entries of ${sizes.join(",")}`);
  const again = h.replay();
  assert.equal(again.state, RunState.RUN_STATE_UNSAT);
  assert.equal(again.table.snapshotCounts().unsat, h.model.table.size);
  // Closed: a second answer from the member is dropped by the lease check.
  assert.equal(checkVerdict(createNames(), h.model.table, verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT), createNames().verdictsSubject("r1", "w1")), "verdict_closed_cube");
});

test("scan run - the member's board is verified: a solution ends the run SAT, a wrong one is rejected and the cubes go on; its placements count either way", async () => {
  const text = writeCanonical(GENERATED.puzzle);
  const good = GENERATED.solution.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: c!.rot }));
  const bad = good.map((p, i) => (i === 0 ? { ...p, rot: (p.rot + 1) % 4 } : p));
  const h = harness({ puzzleText: text, targetCubes: 4 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  assert.ok(h.model.table.member(MIRROR));
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_SAT, { board: bad, stats: { searchNodes: 77 } as never })]));
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING);
  assert.equal(h.model.solutions.rejected, 1);
  assert.equal(h.model.cubes.work.placements, 77, "its placements were made all the same");
  const k = harness({ puzzleText: text, targetCubes: 4 });
  await k.run(k.model.start());
  await k.run(k.model.splitInitial());
  await k.run(k.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_SAT, { board: good, stats: { searchNodes: 4_321 } as never })]));
  assert.equal(k.model.state, RunState.RUN_STATE_SAT);
  assert.equal(k.model.solutions.list[0].cubeId, MIRROR);
  assert.equal(k.replay().state, RunState.RUN_STATE_SAT);
  assert.deepEqual([k.model.cubes.work.placements, k.replay().cubes.work.placements], [4_321, 4_321], "the member's placements are the run's");
});

test("scan run - a scan cube over budget is re-split along the scan: children in order to the front queue, exact weights", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 4 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN)]));
  assert.equal(h.model.state, RunState.RUN_STATE_RUNNING, "a member that gave up changes nothing");
  const parent = h.model.table.get("0")!;
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict("0", VerdictKind.VERDICT_KIND_UNKNOWN)]));
  assert.equal(parent.state, "resplit");
  const kids = published(h.effects);
  const expected = scanSplit(h.puzzle, { base: { placements: parent.placements, branching: [...parent.branching], weight: parent.weight }, targetCubes: 16, symmetry: true });
  assert.deepEqual(kids.map((t) => t.task.cubeId), expected.cubes.map((_, i) => `0.${i}`));
  assert.deepEqual(kids.map((t) => t.task.placements), expected.cubes.map((c) => c.placements));
  assert.ok(kids.every((t) => t.front));
  await h.run(h.model.recordVerdicts(openCubes(h.model).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  assert.equal(h.replay().table.refutedWeight, h.model.table.refutedWeight);
});

test("scan run - the member's UNSAT that comes back while the split is still publishing closes the cubes published after it too", async () => {
  const h = harness({ puzzleText: UNSAT, targetCubes: 8 });
  await h.run(h.model.start());
  let seq = 0;
  let memberOut = false;
  let answered = false;
  // The split publishes the first cube, the member, then the rest in batches: the member answers between batches.
  await runSteps(h.model.splitInitial(), async (e) => {
    if (e.type === "append") h.ledger.push(...e.entries);
    if (e.type !== "publish") return;
    e.seqs.push(...e.tasks.map(() => ++seq));
    if (memberOut && !answered) {
      answered = true;
      await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNSAT)]));
      assert.equal(h.model.state, RunState.RUN_STATE_RUNNING, "not over while cubes are still to come");
    }
    if (e.tasks.some((t) => t.task.cubeId === MIRROR)) memberOut = true;
  });
  assert.ok(answered, "the member answered during the split");
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.deepEqual(openCubes(h.model), [], "no cube is left queued (the run would wait for them forever)");
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  assert.equal(h.replay().state, RunState.RUN_STATE_UNSAT);
});
