/**
 * The worker against a real nats-server and the real kissat, in-process: tasks in, verdicts out (sat with a model
 * that decodes to a verified solution, unsat, unknown at a budget), the placement search, untrusted messages
 * terminated without killing the worker, a missing formula, priorities between runs, and status heartbeats.
 * The coordinator's part is played by test/helpers/runs.ts.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { bitsetValue } from "../../core/accept.js";
import { readBrendan, readBrendanSolution } from "../../core/formats/index.js";
import type { Placement } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { boardFromPlacements } from "../../core/puzzle.js";
import { CubeTask, FaultKind, VerdictKind, WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { createTestRun, cubeTask, eventually, publishRaw, publishTasks, readVerdicts, runConsumerInfo, type TestRun } from "../helpers/runs.js";
import { startTestWorker } from "../helpers/worker.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/brendan/${name}`, import.meta.url), "utf8");
const puzzle4 = readBrendan(fixture("pieces_04x04.txt"), "pieces_04x04.txt");
const solution4 = readBrendanSolution(fixture("solutions_04x04.txt"), "solutions_04x04.txt", puzzle4);
const puzzle6 = readBrendan(fixture("pieces_06x06.txt"), "pieces_06x06.txt");
/** The known solution's placement on `cell`. */
const solved = (cell: number): Placement => ({ cell, piece: solution4.cells[cell]!.piece, rot: solution4.cells[cell]!.rot });
/** An unsat cube: the top-left corner piece also on the top-right corner (each placement fits on its own). */
const twice: Placement[] = [solved(0), { cell: 3, piece: solved(0).piece, rot: solved(3).rot }];

let t: TestNats;
let run4: TestRun;
before(async () => {
  t = await startTestNats();
  run4 = await createTestRun(t, { id: "r4", puzzle: puzzle4 });
});
after(() => t.close());

test("worker - a sat cube gives a sat verdict whose model decodes to a verified solution", async () => {
  const w = await startTestWorker(t);
  try {
    const [seq] = await publishTasks(t, [cubeTask(run4, "0", { placements: [solved(0), solved(5)] })]);
    const [v] = await readVerdicts(t, 1);
    assert.equal(v.kind, VerdictKind.VERDICT_KIND_SAT);
    assert.deepEqual([v.runId, v.cubeId, v.workerId, v.delivery, v.taskSeq, v.numVars], ["r4", "0", w.worker.id, 1, seq, run4.numVars]);
    assert.equal(v.model.length, (run4.numVars + 7) >> 3);
    const board = run4.formula.varMap.decode(bitsetValue(v.model));
    assert.ok(verifySolution(puzzle4, board).ok, "the model decodes to a solution");
    assert.deepEqual(board.cells[5], solution4.cells[5], "the cube's placement holds");
    assert.equal(v.stats!.engine, "kissat");
    assert.ok(v.stats!.wallMs > 0 && v.host !== "", JSON.stringify(v.stats));
    assert.ok(await eventually(async () => (await runConsumerInfo(t, "r4")).num_ack_pending === 0), "the task was acked");
    assert.equal(w.worker.stats().sat, 1);
  } finally {
    await w.close();
  }
});

test("worker - an unsat cube gives unsat, a conflict budget gives unknown", async () => {
  const run6 = await createTestRun(t, { id: "r6", puzzle: puzzle6 });
  const w = await startTestWorker(t);
  try {
    await publishTasks(t, [
      cubeTask(run4, "1", { placements: twice }),
      cubeTask(run6, "0", { solver: { conflictLimit: 1 } }),
    ]);
    const verdicts = await readVerdicts(t, 2);
    const byCube = new Map(verdicts.map((v) => [`${v.runId}/${v.cubeId}`, v]));
    assert.equal(byCube.get("r4/1")?.kind, VerdictKind.VERDICT_KIND_UNSAT);
    const unknown = byCube.get("r6/0");
    assert.equal(unknown?.kind, VerdictKind.VERDICT_KIND_UNKNOWN);
    assert.equal(unknown?.reason, "conflict-limit");
    assert.equal(unknown?.model.length, 0);
    assert.ok(unknown!.stats!.conflicts >= 1, JSON.stringify(unknown!.stats));
  } finally {
    await w.close();
  }
});

test("worker - the placement engine alone (solver none) answers cubes with a verified board or a refutation", async () => {
  const w = await startTestWorker(t);
  try {
    await publishTasks(t, [
      cubeTask(run4, "s1", { placements: [solved(0)], solver: { solver: "none", searchMs: 2000 } }),
      cubeTask(run4, "s2", { placements: twice, solver: { solver: "none", searchMs: 2000 } }),
      cubeTask(run4, "s3", { placements: [solved(0)], solver: { searchMs: 2000 } }),
    ]);
    const verdicts = await readVerdicts(t, 3);
    // Beside Kissat, either may win; whichever did, the answer is a verified board.
    const raced = verdicts.find((v) => v.cubeId === "s3")!;
    assert.equal(raced.kind, VerdictKind.VERDICT_KIND_SAT);
    assert.ok(["search", "kissat"].includes(raced.stats!.engine), raced.stats!.engine);
    const sat = verdicts.find((v) => v.cubeId === "s1")!;
    assert.equal(sat.kind, VerdictKind.VERDICT_KIND_SAT);
    assert.equal(sat.stats!.engine, "search");
    assert.ok(sat.stats!.searchNodes > 0);
    assert.equal(sat.board.length, 16);
    assert.ok(verifySolution(puzzle4, boardFromPlacements(puzzle4, sat.board)).ok);
    const unsat = verdicts.find((v) => v.cubeId === "s2")!;
    assert.equal(unsat.kind, VerdictKind.VERDICT_KIND_UNSAT);
    assert.equal(unsat.stats!.engine, "search");
  } finally {
    await w.close();
  }
});

test("worker - malformed and foreign messages are terminated and logged, and the next good task is answered", async () => {
  const w = await startTestWorker(t);
  try {
    const good = cubeTask(run4, "g1", { placements: [solved(0)] });
    const otherRun = { ...good, cubeId: "x1", runId: "someone-else" };
    const outOfRange = { ...good, cubeId: "x2", units: [...good.units, run4.numVars + 1] };
    const zeroUnit = { ...good, cubeId: "x3", units: [0] };
    const wrongSha = { ...good, cubeId: "x4", formulaSha256: "0".repeat(64) };
    const badPlacement = { ...good, cubeId: "x5", placements: [{ cell: 16, piece: 0, rot: 0 }] };
    const badCubeId = { ...good, cubeId: "../etc" };
    const badLimits = { ...good, cubeId: "x6", solver: { ...good.solver!, timeLimitSec: -1 } };
    const subject = t.names.cubesSubject("r4");
    await publishRaw(t, subject, new Uint8Array([0xff, 0xff, 0xff, 0x0f, 0x42]));
    for (const bad of [otherRun, outOfRange, zeroUnit, wrongSha, badPlacement, badCubeId, badLimits]) {
      await publishRaw(t, subject, CubeTask.encode(bad).finish());
    }
    await publishTasks(t, [good]);
    const verdicts = await readVerdicts(t, 1);
    assert.deepEqual(verdicts.map((v) => [v.cubeId, v.kind]), [["g1", VerdictKind.VERDICT_KIND_SAT]]);
    assert.equal(w.worker.stats().terminated, 8);
    const lines = w.logged(/task terminated/);
    assert.equal(lines.length, 8, lines.join("\n"));
    for (const re of [/does not decode/, /differs from the subject/, /not a literal within/, /formula_sha256/, /out of range for a 4x4/, /bad cube id/, /time_limit_sec -1/]) {
      assert.ok(lines.some((l) => re.test(l)), `a line matching ${re}`);
    }
    assert.ok(await eventually(async () => {
      const info = await runConsumerInfo(t, "r4");
      return info.num_pending === 0 && info.num_ack_pending === 0;
    }), "nothing left to redeliver");
    assert.equal(w.worker.state, "running");
  } finally {
    await w.close();
  }
});

test("worker - a missing formula gives an error verdict of the task's fault (the task acked, not redelivered), and the worker goes on", async () => {
  // Another encoding than r4's, so its formula is not in the store.
  const lost = await createTestRun(t, { id: "lost", puzzle: puzzle4, encoding: "heule-compact", uploadFormula: false, maxDeliver: 2 });
  const w = await startTestWorker(t);
  try {
    await publishTasks(t, [cubeTask(lost, "0")]);
    const verdicts = await readVerdicts(t, 1);
    assert.deepEqual(verdicts.map((v) => [v.kind, v.delivery]), [[VerdictKind.VERDICT_KIND_ERROR, 1]]);
    assert.match(verdicts[0].reason, /formula unavailable: .*not in the object store/);
    // The task's fault, on the wire: it does not count toward this worker's quarantine.
    assert.equal(verdicts[0].fault, FaultKind.FAULT_KIND_TASK);
    assert.equal(w.worker.stats().quarantined, "");
    await publishTasks(t, [cubeTask(run4, "after-lost", { placements: [solved(0)] })]);
    const [next] = await readVerdicts(t, 1);
    assert.equal(next.cubeId, "after-lost");
    assert.equal(next.kind, VerdictKind.VERDICT_KIND_SAT);
  } finally {
    await w.close();
  }
});

test("worker - the highest-priority running run goes first, and status heartbeats show the worker", async () => {
  const low = await createTestRun(t, { id: "low", puzzle: puzzle4, priority: 0 });
  const high = await createTestRun(t, { id: "high", puzzle: puzzle4, priority: 5 });
  await publishTasks(t, [0, 1, 2].map((i) => cubeTask(low, `l${i}`, { placements: [solved(0)] })));
  await publishTasks(t, [0, 1, 2].map((i) => cubeTask(high, `h${i}`, { placements: [solved(0)] })));
  const statuses: WorkerStatus[] = [];
  const sub = t.nc.subscribe(t.names.workerWildcard(), { callback: (_e, m) => void statuses.push(WorkerStatus.decode(m.data)) });
  const w = await startTestWorker(t);
  try {
    const verdicts = await readVerdicts(t, 6);
    assert.deepEqual(verdicts.map((v) => v.runId), ["high", "high", "high", "low", "low", "low"]);
    assert.ok(await eventually(() => statuses.some((s) => s.workerId === w.worker.id && s.cubesDone === 6)), "a heartbeat with 6 cubes done");
    const s = statuses.find((x) => x.workerId === w.worker.id)!;
    assert.equal(s.slots, 1);
    assert.equal(s.solver, "kissat");
  } finally {
    sub.unsubscribe();
    await w.close();
  }
});

test("worker - a bad run record and an undecodable cancel are logged and ignored; work goes on", async () => {
  const w = await startTestWorker(t);
  try {
    await t.layout.runs.put("junk", new Uint8Array([0xff, 0xff, 0xff, 0xff]));
    t.nc.publish(t.names.cancelSubject("r4"), new Uint8Array([0xff, 0xff]));
    await publishTasks(t, [cubeTask(run4, "after-junk", { placements: [solved(0)] })]);
    const [v] = await readVerdicts(t, 1);
    assert.deepEqual([v?.cubeId, v?.kind], ["after-junk", VerdictKind.VERDICT_KIND_SAT]);
    assert.ok(await eventually(() => w.logged(/run record ignored .*run=junk/).length === 1 && w.logged(/cancel ignored/).length === 1), w.logs.join("\n"));
    assert.equal(w.worker.state, "running");
  } finally {
    await w.close();
    await t.layout.runs.delete("junk");
  }
});
