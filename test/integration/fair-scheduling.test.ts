/**
 * Scheduling between runs on one worker (issue 13, item 4): a higher-priority run submitted while every slot is
 * busy with a long cube of a lower one gets the next pull of each slot, not the one after another long cube; and a
 * run's front queue (a manual re-split's children) goes before its other queued cubes (item 5). The order is read
 * from the worker's own log ("cube started" lines), so no assert depends on timing.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { readBrendan } from "../../core/formats/index.js";
import { CubeTask, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { recordedPids, sleepingSolver } from "../helpers/processes.js";
import { createTestRun, cubeTask, eventually, publishTasks, readVerdicts } from "../helpers/runs.js";
import { startTestWorker } from "../helpers/worker.js";

const puzzle = readBrendan(readFileSync(new URL("../fixtures/brendan/pieces_04x04.txt", import.meta.url), "utf8"), "pieces_04x04.txt");

let t: TestNats;
let dir: string;
before(async () => {
  t = await startTestNats();
  dir = mkdtempSync(join(tmpdir(), "cubist-fair-"));
});
after(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The cubes the worker started, in the order it started them. */
function startedCubes(logs: readonly string[]): string[] {
  return logs.flatMap((l) => {
    const m = /cube started .*cube=(\S+)/.exec(l);
    return m ? [m[1]] : [];
  });
}

/**
 * A worker with one slot takes the queued tasks of one run: it starts them in `order`, answers each, and terminates
 * none (a task of one queue on another queue's consumer would be foreign).
 */
async function expectStartOrder(order: string[]): Promise<void> {
  const w = await startTestWorker(t, { concurrency: 1 });
  try {
    assert.equal((await readVerdicts(t, order.length, 30_000)).length, order.length);
    assert.deepEqual(startedCubes(w.logs), order, w.logs.filter((l) => /cube started|run consumer/.test(l)).join("\n"));
    assert.equal(w.logged(/task dropped|terminated/).length, 0, w.logs.join("\n"));
  } finally {
    await w.close();
  }
}

/** The runs of the cubes the worker started, in the order it started them. */
function startedRuns(logs: readonly string[]): string[] {
  return logs.flatMap((l) => {
    const m = /cube started .*run=(\S+)/.exec(l);
    return m ? [m[1]] : [];
  });
}

test("scheduling - a higher-priority run submitted while both slots are busy gets the next pull of each slot", async () => {
  const pidFile = join(dir, "slow.pids");
  const slow = await createTestRun(t, { id: "slow-e2", puzzle, priority: 0 });
  // Every slow cube keeps its slot for 3 s (a fake solver that sleeps, then says UNSAT).
  const w = await startTestWorker(t, { concurrency: 2, solverPath: sleepingSolver(dir, "slow.sh", 3, pidFile) });
  try {
    // Two to fill the slots, and two queued behind them that the high-priority run must go before.
    await publishTasks(t, [0, 1, 2, 3].map((i) => cubeTask(slow, `s${i}`)));
    assert.ok(await eventually(() => recordedPids(pidFile).length === 2, 10_000), "both slots busy with slow cubes");
    const high = await createTestRun(t, { id: "high-8x8", puzzle, priority: 5 });
    // The engine alone answers these at once (4x4, no SAT solver).
    await publishTasks(t, [0, 1].map((i) => cubeTask(high, `h${i}`, { solver: { solver: "none", searchMs: 10_000 } })));
    const verdicts = await readVerdicts(t, 6, 40_000);
    assert.deepEqual(verdicts.filter((v) => v.runId === "high-8x8").map((v) => v.kind), [VerdictKind.VERDICT_KIND_SAT, VerdictKind.VERDICT_KIND_SAT]);
    const order = startedRuns(w.logs);
    assert.deepEqual(order.slice(0, 4), ["slow-e2", "slow-e2", "high-8x8", "high-8x8"], w.logs.filter((l) => /cube started/.test(l)).join("\n"));
  } finally {
    await w.close();
  }
});

test("scheduling - cubes on a run's front queue (a manual re-split's children) go before the cubes queued earlier", async () => {
  // Ranked above the runs of the test before (still running in the bucket), so the first pull is this run's.
  const run = await createTestRun(t, { id: "front-run", puzzle, priority: 9 });
  const engine = { solver: "none", searchMs: 10_000 };
  await publishTasks(t, [0, 1, 2, 3].map((i) => cubeTask(run, `${i}`, { solver: engine })));
  for (const id of ["0.0", "0.1"]) {
    const task = cubeTask(run, id, { solver: engine });
    await t.layout.js.publish(t.names.frontSubject(run.id), CubeTask.encode(task).finish(), { msgID: `${run.id}:${id}` });
  }
  await expectStartOrder(["0.0", "0.1", "0", "1", "2", "3"]);
});

test("scheduling - a portfolio member going on (the run's lead queue) goes before the front queue's cubes and the main queue's", async () => {
  const run = await createTestRun(t, { id: "lead-run", puzzle, priority: 10 });
  const engine = { solver: "none", searchMs: 10_000 };
  await publishTasks(t, [0, 1].map((i) => cubeTask(run, `${i}`, { solver: engine })));
  for (const [id, subject] of [["0.0", t.names.frontSubject(run.id)], ["0.1", t.names.frontSubject(run.id)], ["member-short-m", t.names.leadSubject(run.id)]]) {
    await t.layout.js.publish(subject, CubeTask.encode(cubeTask(run, id, { solver: engine })).finish(), { msgID: `${run.id}:${id}` });
  }
  await expectStartOrder(["member-short-m", "0.0", "0.1", "0", "1"]);
});

test("scheduling - after a portfolio member's attempt the slot waits briefly for the member to go on before it takes a cube", async () => {
  const run = await createTestRun(t, { id: "member-wait", puzzle, priority: 11 });
  const engine = { solver: "none", searchMs: 10_000 };
  await publishTasks(t, ["member-short-m", "0", "1"].map((id) => cubeTask(run, id, { solver: engine })));
  const w = await startTestWorker(t, { concurrency: 1 });
  try {
    const [first] = await readVerdicts(t, 1, 30_000);
    assert.equal(first?.cubeId, "member-short-m");
    // The coordinator's answer to the verdict: the member's next attempt, a moment later, to the lead queue.
    await sleep(300);
    const again = cubeTask(run, "member-short-m", { solver: engine });
    await t.layout.js.publish(t.names.leadSubject(run.id), CubeTask.encode(again).finish(), { msgID: `${run.id}:member-short-m:1` });
    assert.equal((await readVerdicts(t, 3, 30_000)).length, 3);
    assert.deepEqual(startedCubes(w.logs), ["member-short-m", "member-short-m", "0", "1"], w.logs.filter((l) => /cube started|run consumer/.test(l)).join("\n"));
  } finally {
    await w.close();
  }
});
