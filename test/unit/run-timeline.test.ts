/**
 * The run's timeline and cube counts over time (coordinator/model/run-timeline.ts, run-history.ts): pure parts read
 * from ledger entries, so the same entries give the same timeline and chart, live or replayed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RunHistory, MAX_SAMPLES } from "../../coordinator/model/run-history.js";
import { NOISY_LIMIT, RunTimeline } from "../../coordinator/model/run-timeline.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunSpec, RunState } from "../../proto/gen/cubist/v1/run.js";

type Body = NonNullable<LedgerEntry["entry"]>;
let clock = 1_000_000;
const at = (entry: Body, term = 1): LedgerEntry => ({ atUnixMs: (clock += 1000), term, entry });
const state = (s: RunState, message = ""): Body => ({ $case: "state", value: { state: s, message } });
const note = (kind: string, message: string, actor: string): Body => ({ $case: "note", value: { kind, message, actor, worker: "", cubeId: "" } });

function timelineOf(entries: readonly LedgerEntry[]): RunTimeline {
  const t = new RunTimeline();
  for (const e of entries) t.apply(e);
  return t;
}

test("timeline - a run's life in order, each manual action completed by the note that names who asked", () => {
  const spec = RunSpec.fromPartial({ runId: "r1", name: "e2", priority: 0, cubing: { targetCubes: 16 } });
  const entries = [
    at({ $case: "started", value: spec }),
    at(state(RunState.RUN_STATE_RUNNING)),
    at(state(RunState.RUN_STATE_PAUSED, "paused")),
    at(note("pause", "paused", "alice@laptop (grpc 10.0.0.7)")),
    at(state(RunState.RUN_STATE_RUNNING)),
    at(note("resume", "resumed", "bob@desk (grpc 10.0.0.8)")),
    at({ $case: "priority", value: 5 }),
    at(note("priority", "priority set to 5", "dashboard 10.0.0.9")),
    at({ $case: "added", value: { parent: "3", cubes: [{ id: "3.0", placements: [], branching: [], seq: 1, lease: "a" }], last: false, refutedCount: 0, refutedWeight: 0, reason: "manual", depth: 1, targetChildren: 0 } }),
    at({ $case: "added", value: { parent: "3", cubes: [{ id: "3.1", placements: [], branching: [], seq: 2, lease: "b" }], last: true, refutedCount: 1, refutedWeight: 0.01, reason: "manual", depth: 1, targetChildren: 0 } }),
    at(note("resplit", "cube 3 re-split by hand into 2 children", "alice@laptop (grpc 10.0.0.7)")),
    // An automatic re-split is no event.
    at({ $case: "added", value: { parent: "4", cubes: [], last: true, refutedCount: 0, refutedWeight: 0, reason: "unknown", depth: 1, targetChildren: 0 } }),
    at(note("takeover", "coordinator c2 took the run over (term 2)", "c2"), 2),
    at(state(RunState.RUN_STATE_UNSAT, "every cube refuted"), 2),
  ];
  const events = timelineOf(entries).events;
  assert.deepEqual(events.map((e) => [e.kind, e.message, e.actor, e.term]), [
    ["submitted", "submitted: e2, first solution, 16 cubes asked, priority 0", "", 1],
    ["paused", "paused", "alice@laptop (grpc 10.0.0.7)", 1],
    ["resumed", "resumed", "bob@desk (grpc 10.0.0.8)", 1],
    ["priority", "priority 0 -> 5", "dashboard 10.0.0.9", 1],
    ["resplit", "cube 3 re-split by hand into 2 children, 1 refuted by the split", "alice@laptop (grpc 10.0.0.7)", 1],
    ["takeover", "coordinator c2 took the run over (term 2)", "c2", 2],
    ["ended", "ended unsat: every cube refuted", "", 2],
  ]);
  // Replayed: the same timeline.
  assert.deepEqual(timelineOf(entries).events, events);
});

test("timeline - quarantine notes say which worker, each way; noisy kinds are bounded and counted", () => {
  const t = timelineOf([
    at(note("quarantine", "worker w2 quarantined: solver crashed 3 times", "w2")),
    ...Array.from({ length: (NOISY_LIMIT.solution ?? 0) + 5 }, (_, i) => at({ $case: "solution", value: { runId: "r1", index: i, rows: 2, cols: 2, cells: [], cubeId: `${i}`, workerId: "w1", foundUnixMs: 0 } })),
  ]);
  assert.equal(t.isQuarantined("w2"), true);
  t.apply(at(note("quarantine-lifted", "worker w2 takes cubes again", "w2")));
  assert.equal(t.isQuarantined("w2"), false);
  assert.deepEqual(t.events.filter((e) => e.kind.startsWith("quarantine")).map((e) => e.actor), ["w2", "w2"]);
  assert.equal(t.events.filter((e) => e.kind === "solution").length, NOISY_LIMIT.solution);
  assert.equal(t.omitted.get("solution"), 5);
});

test("history - the cube counts over time keep their whole span in at most MAX_SAMPLES points, the newest counts last", () => {
  const h = new RunHistory();
  const counts = (unsat: number) => ({ queued: 1000 - unsat, unknown: 0, unsat, sat: 0, failed: 0, resplit: 0, refutedBySplit: 0 });
  for (let i = 0; i <= 1000; i++) h.sample(10_000 + i * 1500, counts(i), i / 1000);
  assert.ok(h.points.length <= MAX_SAMPLES, `${h.points.length} points`);
  assert.equal(h.points[0].t, 10_000, "the first point stays");
  assert.deepEqual(h.points.at(-1), { t: 10_000 + 1000 * 1500, progress: 1, open: 0, unsat: 1000, sat: 0, unknown: 0, failed: 0, resplit: 0 });
  for (let i = 1; i < h.points.length; i++) assert.ok(h.points[i].t > h.points[i - 1].t, "in time order");
  // Counts that do not change add no point.
  const n = h.points.length;
  h.sample(10_000 + 2000 * 1500, counts(1000), 1);
  assert.equal(h.points.length, n);
});
