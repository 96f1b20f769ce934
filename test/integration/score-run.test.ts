/**
 * Score runs on the cluster (coordinator/model/score-slots.ts, worker/score-search.ts), with a real nats-server, the
 * coordinator and real workers running the engine: a score run has no cubes, one score slot per live solver slot,
 * improvements that stream while a slot's attempt goes on (its budget here far longer than the test), each re-scored
 * by the coordinator; no formula is encoded or uploaded for it; the slots survive a coordinator that takes the run
 * over; and a board with a perfect board ends as a verified solution.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withNats } from "../helpers/nats.js";
import { requestFor, startTestCoordinator } from "../helpers/coordinator.js";
import { startTestWorker } from "../helpers/worker.js";
import { RunRecord, RunState } from "../../proto/gen/cubist/v1/run.js";
import { acceptScored } from "../../core/score.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { spawnCubist } from "../helpers/processes.js";
import { until } from "../helpers/poll.js";

const BOARD = "test/fixtures/brendan/pieces_08x08.txt";

test("score run - slots instead of cubes, one per live solver slot; improvements stream in while the slots go on, re-scored", async () => {
  await withNats(async (t) => {
    const workers = [await startTestWorker(t, { concurrency: 1 }), await startTestWorker(t, { concurrency: 1 })];
    const c = await startTestCoordinator(t);
    try {
      await until("both workers heard from", 10_000, () => c.coordinator.liveWorkers().length === 2);
      const run = await c.coordinator.submitRun(requestFor(BOARD, { searchMs: undefined, objective: "score", timeLimitSec: 3600 }));
      await until("two slots, and improvements of the best board", 30_000, () => run.model.slots.count === 2 && run.model.best.history.length >= 2);
      assert.equal(run.table.size, 0, "a score run has no cubes");
      assert.equal(run.state, RunState.RUN_STATE_RUNNING);
      // The slots' attempts (an hour each) are all still going: the improvements came while they ran.
      assert.ok([...run.model.slots.all()].every((s) => s.lease !== "" && s.attempt === 0));
      const puzzle = parsePuzzle(readFileSync(BOARD, "utf8"), BOARD);
      const best = run.model.best.board!;
      const scored = acceptScored(puzzle, best.cells);
      assert.ok(scored.ok && scored.scored.score === best.score && scored.scored.placed === 64, "the best board is complete and scores what the run says");
      const history = run.model.best.history.map((h) => h.score);
      assert.ok(history.every((s, i) => i === 0 || s > history[i - 1]), `scores rise: ${history.join(", ")}`);
      await run.cancel("test over");
    } finally {
      await c.close();
      for (const w of workers) await w.close();
    }
  });
});

test("score run - a slot joining later searches only for boards better than the run's best (the shared bound)", async () => {
  await withNats(async (t) => {
    const early = await startTestWorker(t, { concurrency: 1 });
    const c = await startTestCoordinator(t);
    let late: Awaited<ReturnType<typeof startTestWorker>> | null = null;
    try {
      await until("the first worker heard from", 10_000, () => c.coordinator.liveWorkers().length === 1);
      const run = await c.coordinator.submitRun(requestFor(BOARD, { searchMs: undefined, objective: "score", timeLimitSec: 3600, scoreSlots: 2 }));
      // Slot 2 waits in the queue until a second worker comes; by then the run's best is good.
      await until("a good best board", 30_000, () => (run.model.best.board?.score ?? 0) >= 100);
      // The bar: the best as the run record in JetStream says now (what a worker starting now reads, or newer).
      let bar = 0;
      const end = Date.now() + 5000;
      while (bar < 100 && Date.now() < end) {
        const e = await t.layout.runs.get(run.id);
        bar = e ? RunRecord.decode(e.value).status?.best?.score ?? 0 : 0;
        if (bar < 100) await new Promise((r) => setTimeout(r, 100));
      }
      late = await startTestWorker(t, { concurrency: 1 });
      // The late slot's engine starts bound to boards with fewer mismatched edges than the run's best has.
      const started = await until("the late slot's search", 20_000, () => late!.logged(/score search started/).length > 0).then(() => late!.logged(/score search started/)[0]);
      const breaks = Number(/breaks=(\d+)/.exec(started)?.[1]);
      assert.ok(Number.isInteger(breaks) && breaks <= 112 - bar - 1, `bound to ${breaks} mismatched edges with the run's best at ${bar}: ${started}`);
      await run.cancel("test over");
    } finally {
      await c.close();
      await late?.close();
      await early.close();
    }
  });
});

test("score run - a slot's next attempt goes on exactly where its last one stopped (as one engine of solve)", async () => {
  await withNats(async (t) => {
    const worker = await startTestWorker(t, { concurrency: 1 });
    const c = await startTestCoordinator(t);
    try {
      await until("the worker heard from", 10_000, () => c.coordinator.liveWorkers().length === 1);
      const run = await c.coordinator.submitRun(requestFor(BOARD, { searchMs: undefined, objective: "score", timeLimitSec: 2, scoreSlots: 1 }));
      // Attempts of 2 s: the third starts after two that searched.
      const starts = await until("three attempts", 30_000, () => worker.logged(/score search started/).length >= 3).then(() => worker.logged(/score search started/));
      const skips = starts.map((line) => Number(/restartSkip=(\d+)/.exec(line)?.[1]));
      assert.equal(skips[0], 0, `the first attempt starts the schedule: ${starts[0]}`);
      assert.ok(skips[1] > 0 && skips[2] > skips[1], `each next attempt skips what the slot searched before: ${skips.join(", ")}`);
      const seeds = starts.map((line) => /seed=(\d+)/.exec(line)?.[1]);
      assert.ok(seeds[0] !== undefined && seeds.every((s) => s === seeds[0]), `with the seed it started with: ${seeds.join(", ")}`);
      assert.ok(starts.slice(1).every((line) => /exactly=yes/.test(line)), `and the path where it stopped: ${starts.join(" | ")}`);
      await run.cancel("test over");
    } finally {
      await c.close();
      await worker.close();
    }
  });
});

/** The objects in the formulas Object Store (not deleted). */
async function formulaObjects(t: Parameters<Parameters<typeof withNats>[0]>[0]): Promise<string[]> {
  return (await t.layout.formulas.list()).filter((o) => !o.deleted).map((o) => o.name);
}

test("score run - no formula is encoded or uploaded; a coordinator that takes the run over keeps its slots going and takes their improvements", async () => {
  await withNats(async (t) => {
    const worker = await startTestWorker(t, { concurrency: 1 });
    const first = await startTestCoordinator(t);
    let second: Awaited<ReturnType<typeof startTestCoordinator>> | null = null;
    try {
      await until("the worker heard from", 10_000, () => first.coordinator.liveWorkers().length === 1);
      const run = await first.coordinator.submitRun(requestFor(BOARD, { searchMs: undefined, objective: "score", timeLimitSec: 3, scoreSlots: 1 }));
      // A score run's slots run the placement engine alone: no formula in the store, none in the spec.
      assert.deepEqual(await formulaObjects(t), [], "the formulas store holds nothing");
      assert.deepEqual([run.spec.formulaSha256, run.spec.numVars, run.spec.numClauses], ["", 0, 0]);
      await until("a best board", 20_000, () => run.model.best.board !== null);
      await first.close();
      second = await startTestCoordinator(t);
      const resumed = second.coordinator.getRun(run.id)!;
      assert.ok(resumed, "the run was taken over");
      // Attempts of 3 s: the slot comes back and goes out again under the new leader.
      await until("the slot's next attempt", 20_000, () => (resumed.model.slots.get("score-0")?.attempt ?? 0) >= 1);
      assert.equal(resumed.table.size, 0);
      assert.equal(resumed.model.slots.count, 1);
      assert.deepEqual(await formulaObjects(t), [], "the takeover encoded and uploaded nothing either");
      await resumed.cancel("test over");
    } finally {
      await second?.close();
      await first.close();
      await worker.close();
    }
  });
});

test("score run - solve --workers 2 --objective score on a board with a perfect board ends with a verified solution (exit 0)", async () => {
  const p = spawnCubist(["solve", "test/fixtures/brendan/pieces_05x05.txt", "--workers", "2", "--objective", "score", "--time", "60", "--json"]);
  const { code } = await p.exited;
  assert.equal(code, 0, p.stderr());
  const out = JSON.parse(p.stdout()) as { status: string; board: unknown };
  assert.equal(out.status, "sat");
  assert.ok(out.board);
});

test("score run - solve --objective score --json at its time limit: exit 0, and render and verify read its output as it is (alone and with --workers)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-score-json-"));
  try {
    for (const extra of [["--threads", "1", "--time", "2"], ["--workers", "1", "--time", "15"]]) {
      const p = spawnCubist(["solve", BOARD, "--objective", "score", "--json", ...extra]);
      const { code } = await p.exited;
      assert.equal(code, 0, `${extra.join(" ")}: ${p.stderr()}`);
      const out = JSON.parse(p.stdout()) as { status: string; board: unknown; best: { score: number; board: unknown } };
      assert.equal(out.status, "unknown", "no perfect board on this 8x8 in seconds");
      assert.equal(out.board, null);
      const file = join(dir, "out.json");
      writeFileSync(file, p.stdout());
      const rendered = spawnCubist(["render", BOARD, file]);
      assert.equal((await rendered.exited).code, 0, rendered.stderr());
      assert.match(rendered.stdout(), new RegExp(`^score ${out.best.score} of 112: 64 of 64 cells placed`), extra.join(" "));
      const verified = spawnCubist(["verify", BOARD, file, "--json"]);
      assert.equal((await verified.exited).code, 1, "read, and not a solution");
      assert.equal((JSON.parse(verified.stdout()) as { score: number }).score, out.best.score);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
