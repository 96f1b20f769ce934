/** The worker's quarantine as a state machine, on a clock the test moves. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../cluster/log.js";
import type { Fault } from "../../core/errors.js";
import { Quarantine } from "../../worker/quarantine.js";

const error = (reason = "SolverCrashedError: exit 1", fault: Fault = "worker") => ({ error: true as const, fault, reason });

test("quarantine - errors in a row quarantine the worker with a reason; time ends it, one more error doubles it", () => {
  let now = 0;
  const q = new Quarantine(3, 1000, silentLogger, () => now);
  q.record(error());
  q.record(error());
  q.record({ error: false });
  q.record(error());
  q.record(error());
  assert.equal(q.state, "healthy", "a success in between resets the count");
  q.record(error("SolverCrashedError: exit 3"));
  assert.equal(q.state, "quarantined");
  assert.match(q.reason, /^3 solver errors in a row; last: SolverCrashedError: exit 3$/);
  assert.equal(q.remainingMs(), 1000);
  now = 1000;
  assert.equal(q.state, "probation");
  assert.equal(q.reason, "");
  q.record(error());
  assert.equal(q.state, "quarantined");
  assert.equal(q.remainingMs(), 2000, "twice as long");
  assert.match(q.reason, /^4 solver errors in a row/);
  now = 3000;
  q.record({ error: false });
  assert.equal(q.state, "healthy");
  q.record(error());
  assert.equal(q.state, "healthy", "the count started over");
});

test("quarantine - 0 never quarantines; wait() returns at once when healthy and when the signal aborts", async () => {
  const never = new Quarantine(0, 1000, silentLogger);
  for (let i = 0; i < 10; i++) never.record(error());
  assert.equal(never.state, "healthy");
  await never.wait(new AbortController().signal);
  const q = new Quarantine(1, 3_600_000, silentLogger);
  q.record(error());
  assert.equal(q.state, "quarantined");
  const abort = new AbortController();
  const waiting = q.wait(abort.signal);
  abort.abort();
  await waiting;
  assert.equal(q.state, "quarantined");
});

test("quarantine - only the worker's own faults count: the task's and passing ones neither count nor end a run of errors", () => {
  const q = new Quarantine(3, 1000, silentLogger, () => 0);
  for (let i = 0; i < 10; i++) q.record(error("formula unavailable: formula 1234: downloaded bytes hash to 5678; refusing it", "task"));
  for (let i = 0; i < 10; i++) q.record(error("formula unavailable: download stalled", "transient"));
  assert.equal(q.state, "healthy", "a bad run or a NATS hiccup quarantines nobody");
  q.record(error());
  q.record(error("formula unavailable: not in the object store", "task"));
  q.record(error("TypeError: x is undefined", "internal"));
  assert.equal(q.state, "healthy");
  q.record(error());
  assert.equal(q.state, "quarantined", "the task's error in between neither counted nor reset the run of three");
  assert.match(q.reason, /^3 solver errors in a row; last: SolverCrashedError/);
});
