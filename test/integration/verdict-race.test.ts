/**
 * Verdicts that arrive before their task is recorded (coordinator/model/in-flight.ts). The coordinator records a split's
 * cubes once JetStream has stored their tasks, so a fast worker can pull a task and answer it before that record
 * lands; such a verdict used to be dropped as one for an unknown cube, and its cube waited for the stall check (a
 * minute or more on a hand-started cluster). Here the split is one ledger batch of 1,500 cubes and the answers come
 * from a subscriber that sees each task as JetStream takes it and answers at once, so the first answers arrive while
 * the coordinator is still publishing the batch; the stall check is off, so the run ends only if each early verdict
 * is held and then taken. And the stall check: queued cubes whose tasks were lost are published again in seconds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { withNats } from "../helpers/nats.js";
import { requestFor, startTestCoordinator, waitForRunEnd } from "../helpers/coordinator.js";
import { CubeTask, Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { verdict } from "../helpers/run-model.js";
import { purgeRunTasks } from "../../cluster/layout.js";
import type { TestNats } from "../helpers/nats.js";

/** Answers every task UNSAT the moment JetStream takes it (a core subscription sees the stream's subjects too). */
async function fastAnswerer(t: TestNats): Promise<{ stop(): Promise<void> }> {
  const nc = await t.connect("answerer");
  const js = (await import("@nats-io/jetstream")).jetstream(nc);
  const sent: Array<Promise<unknown>> = [];
  const sub = nc.subscribe(`${t.names.prefix}.cubes.>`, {
    callback: (err, m) => {
      if (err) return;
      const task = CubeTask.decode(m.data);
      const v: Verdict = { ...verdict(task.cubeId, VerdictKind.VERDICT_KIND_UNSAT), runId: task.runId, workerId: "fast", lease: task.lease };
      sent.push(js.publish(t.names.verdictsSubject(task.runId, "fast"), Verdict.encode(v).finish()));
    },
  });
  return {
    async stop() {
      sub.unsubscribe();
      await Promise.all(sent);
    },
  };
}

test("verdict race - verdicts that beat their split's record are held, not dropped, and the run ends without the stall check", async () => {
  await withNats(async (t) => {
    const c = await startTestCoordinator(t, { batchSize: 100_000 }, { stallCheckMs: 3_600_000 });
    const answerer = await fastAnswerer(t);
    try {
      const run = await c.coordinator.submitRun(requestFor("test/fixtures/cluster/unsat-6x6.txt", {
        searchMs: undefined, solver: "none", targetCubes: 1500, cellOrder: "most-constrained",
      }));
      assert.equal(await waitForRunEnd(run, 60_000), RunState.RUN_STATE_UNSAT, run.message);
      await answerer.stop();
      assert.ok(run.table.size > 1000, `${run.table.size} cubes`);
      assert.equal(c.coordinator.rejections.count("verdict_unknown_cube"), 0, c.logged(/dropped/).join("\n"));
      assert.equal(c.coordinator.rejections.count("verdict_lease"), 0, c.logged(/dropped/).join("\n"));
      assert.ok(c.coordinator.counters.heldVerdicts > 0, "answers arrived before the split was recorded (the race this test is about)");
      assert.equal(c.logged(/publishing them again/).length, 0);
    } finally {
      await answerer.stop();
      await c.close();
    }
  });
});

test("stall check - queued cubes whose tasks were lost are published again within seconds", async () => {
  await withNats(async (t) => {
    const c = await startTestCoordinator(t);
    try {
      const run = await c.coordinator.submitRun(requestFor("test/fixtures/cluster/unsat-6x6.txt", {
        searchMs: undefined, solver: "none", targetCubes: 20, cellOrder: "most-constrained",
      }));
      await run.splitDone();
      await purgeRunTasks(t.jsm, t.names, run.id);
      const lostAt = Date.now();
      const answerer = await fastAnswerer(t);
      try {
        assert.equal(await waitForRunEnd(run, 30_000), RunState.RUN_STATE_UNSAT, run.message);
      } finally {
        await answerer.stop();
      }
      assert.equal(c.logged(/publishing them again/).length, 1);
      assert.ok(Date.now() - lostAt < 15_000, `ended ${Date.now() - lostAt} ms after the tasks were lost`);
    } finally {
      await c.close();
    }
  });
});
