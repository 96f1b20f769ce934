import { test } from "node:test";
import assert from "node:assert/strict";
import { StallWatch } from "../../coordinator/model/stall.js";
import { InFlightTasks } from "../../coordinator/model/in-flight.js";
import type { TaskMessage } from "../../coordinator/model/run-effects.js";
import { CubeTask } from "../../proto/gen/cubist/v1/cube.js";

const quiet = { queued: 3, inConsumers: 0, inFlight: 0, verdictsWaiting: 0, recorded: 7 };

test("stall watch - a run whose queued cubes no consumer holds is published again once seen twice, confirmMs apart", () => {
  const w = new StallWatch(2000);
  assert.equal(w.suspect("r", quiet), false, "the first look only notes what the run recorded");
  assert.equal(w.suspect("r", quiet), true);
  assert.equal(w.observe("r", quiet, 1000), false, "first seen");
  assert.equal(w.observe("r", quiet, 2500), false, "not yet confirmMs");
  assert.equal(w.observe("r", quiet, 3000), true);
  assert.equal(w.observe("r", quiet, 3100), false, "seen anew after a republish");
});

test("stall watch - anything in flight, in a consumer, waiting as a verdict or newly recorded is no stall", () => {
  const w = new StallWatch(2000);
  for (const busy of [{ inConsumers: 1 }, { inFlight: 1 }, { verdictsWaiting: 1 }, { queued: 0 }]) {
    w.observe("r", quiet, 0);
    assert.equal(w.observe("r", { ...quiet, ...busy }, 5000), false, JSON.stringify(busy));
    assert.equal(w.observe("r", quiet, 6000), false, `${JSON.stringify(busy)} starts the wait again`);
  }
  w.observe("r", quiet, 10_000);
  assert.equal(w.observe("r", { ...quiet, recorded: 8 }, 20_000), false, "the run recorded something in between");
  w.suspect("r", quiet);
  assert.equal(w.suspect("r", { ...quiet, recorded: 9 }), false, "a run that records is making progress");
  assert.equal(w.suspect("r", { ...quiet, recorded: 9, inFlight: 1 }), false);
});

const task = (cubeId: string, lease: string): TaskMessage => ({ task: CubeTask.fromPartial({ cubeId, lease }), msgId: cubeId });

test("in-flight tasks - a cube's lease is in flight from add to remove, read from the task as it is then", () => {
  const f = new InFlightTasks();
  const a = task("0", "L0");
  const b = task("0", "L1");
  f.add([a, b]);
  assert.equal(f.size, 2);
  assert.ok(f.has("0", "L0") && f.has("0", "L1"));
  assert.ok(!f.has("0", "") && !f.has("1", "L0"));
  // A duplicate publish swaps in the stored message's lease.
  a.task.lease = "stored";
  assert.ok(f.has("0", "stored") && !f.has("0", "L0"));
  f.remove([a]);
  f.remove([a]);
  assert.equal(f.size, 1);
  f.remove([b]);
  assert.equal(f.size, 0);
  assert.ok(!f.has("0", "L1"));
});

test("worker table - a heartbeat whose start is later than the previous one's is a new process: the old one's cubes are orphans", async () => {
  const { orphansOf } = await import("../../coordinator/shell/worker-table.js");
  const { WorkerStatus } = await import("../../proto/gen/cubist/v1/cube.js");
  const prev = { seenMs: 100_000, falseClaims: 0, status: WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 50, running: [{ runId: "r", cubeId: "7", startedUnixMs: 90_000 }] }) };
  // The same process 2 s later: its start (now - uptime) is the same.
  assert.equal(orphansOf(prev, WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 52 }), 102_000), null);
  // A new process: up for 1 s at 105 s, so it started at 104 s, not 50 s.
  assert.deepEqual(orphansOf(prev, WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 1 }), 105_000), { workerId: "w", cubes: [{ runId: "r", cubeId: "7" }] });
  assert.equal(orphansOf(undefined, WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 1 }), 105_000), null);
  // The same process, its heartbeat read 8 s late (the coordinator was busy encoding a big puzzle): not a new one.
  assert.equal(orphansOf(prev, WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 50.5 }), 108_500), null);
  // A new process up longer than the old one was, first heard from well after the old one's last heartbeat.
  assert.ok(orphansOf({ ...prev, status: { ...prev.status, uptimeSec: 0.4 } }, WorkerStatus.fromPartial({ workerId: "w", uptimeSec: 3 }), 110_000));
});
