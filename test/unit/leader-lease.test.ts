import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_LEASE_TIMINGS, leaseHeld, leaseTimings, parseLeaderRecord, standbyStep, type LeaderRecord } from "../../coordinator/model/leader-lease.js";

const t = DEFAULT_LEASE_TIMINGS;
const record: LeaderRecord = { id: "a", host: "h1", pid: 10, term: 3, grpc: "h1:50051", http: "", sinceUnixMs: 0 };
const alive = (): boolean => false;

test("leader lease - a standby takes a missing lease at once, and a held one only after its revision stood still for leaseMs", () => {
  assert.deepEqual(standbyStep(null, null, 0, t, alive), { action: "create" });
  const first = standbyStep(null, { revision: 5, record }, 1000, t, alive);
  assert.deepEqual(first, { action: "wait", seen: { revision: 5, sinceMs: 1000 } });
  const seen = first.action === "wait" ? first.seen : null;
  assert.equal(standbyStep(seen, { revision: 5, record }, 1000 + t.leaseMs - 1, t, alive).action, "wait");
  assert.deepEqual(standbyStep(seen, { revision: 5, record }, 1000 + t.leaseMs, t, alive), { action: "take-over", revision: 5 });
  // A renewal restarts the wait, whatever the clocks say.
  assert.deepEqual(standbyStep(seen, { revision: 6, record }, 1000 + 10 * t.leaseMs, t, alive), { action: "wait", seen: { revision: 6, sinceMs: 1000 + 10 * t.leaseMs } });
});

test("leader lease - a dead holder on this host is taken over at once; an unreadable record is a held lease", () => {
  assert.deepEqual(standbyStep(null, { revision: 2, record }, 0, t, () => true), { action: "take-over", revision: 2 });
  assert.equal(standbyStep(null, { revision: 2, record: null }, 0, t, () => true).action, "wait");
  assert.equal(parseLeaderRecord(new TextEncoder().encode("{not json")), null);
  assert.equal(parseLeaderRecord(new TextEncoder().encode(JSON.stringify({ id: "x", term: -1 }))), null);
  assert.deepEqual(parseLeaderRecord(new TextEncoder().encode(JSON.stringify(record))), record);
});

test("leader lease - a leader acts only within fenceMs of sending its last renewal, which ends before a standby may take over", () => {
  assert.ok(leaseHeld(100, 100 + t.fenceMs - 1, t));
  assert.ok(!leaseHeld(100, 100 + t.fenceMs, t));
  assert.ok(t.fenceMs < t.leaseMs && t.renewMs < t.fenceMs);
  const short = leaseTimings(3000);
  assert.deepEqual({ ...short }, { renewMs: 500, leaseMs: 3000, fenceMs: 2000 });
  assert.throws(() => leaseTimings(100), /at least/);
});
