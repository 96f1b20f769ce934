/**
 * coordinator/model/steady-eta.ts and the run's running time (coordinator/model/run-life.ts): the one ETA holds still
 * on a steady run, a paused run's clock stops.
 *
 * The ETA is shown on a verdict stream recorded from a real cluster (bench/eta-record.ts --size 7 --centre 6 --seed 1:
 * two workers running the placement engine alone on a generated 7x7 made unsatisfiable, 259 cubes, UNSAT in 276 s
 * with the machine's load at about 20 on 2 cores), replayed through
 * the cube table and the tree-size estimate (coordinator/model/work-estimate.ts) as the coordinator does, with a
 * status every 5 s.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CubeTable } from "../../coordinator/model/cube-table.js";
import { WorkEstimate } from "../../coordinator/model/work-estimate.js";
import { SteadyEta, ETA_TAU_MS } from "../../coordinator/model/steady-eta.js";
import { RunLife } from "../../coordinator/model/run-life.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

const STREAM = "test/fixtures/cluster/eta-verdicts-7x7-c6-s1.json";

interface Recorded {
  cubes: Array<{ id: string; branching: number[] }>;
  verdicts: Array<{ ms: number; cube: string; kind: VerdictKind; searchNodes: number; estNodes: number; estStderr: number }>;
  wallMs: number;
  /** The run's end (RunState): UNSAT when it ran to the end, CANCELLED when only its first minutes were recorded. */
  state: RunState;
}

/** The run replayed: at every status (each 5 s), the raw tree-estimate ETA and the smoothed one. */
function replay(): { points: Array<{ ms: number; raw: number; steady: number }>; wallMs: number; complete: boolean } {
  const rec = JSON.parse(readFileSync(STREAM, "utf8")) as Recorded;
  const table = new CubeTable();
  table.addCubes(undefined, rec.cubes.map((c) => ({ id: c.id, placements: [], branching: c.branching })), { count: 0, weight: 0 });
  const work = new WorkEstimate();
  const eta = new SteadyEta();
  const points: Array<{ ms: number; raw: number; steady: number }> = [];
  let next = 0;
  for (let ms = 0; ms < rec.wallMs; ms += 5000) {
    for (; next < rec.verdicts.length && rec.verdicts[next].ms <= ms; next++) {
      const v = rec.verdicts[next];
      if (v.kind === VerdictKind.VERDICT_KIND_UNSAT) table.recordVerdict(v.cube, "unsat");
      work.record(v.cube, v.ms, v.searchNodes, v.estNodes, v.estStderr);
    }
    const raw = work.view(table.entries(), ms, false).workEtaSeconds;
    points.push({ ms, raw, steady: eta.update(ms, raw) });
  }
  return { points, wallMs: rec.wallMs, complete: rec.state === RunState.RUN_STATE_UNSAT };
}

/**
 * The largest swing of an ETA within any window of `windowMs`: the ratio of the most to the least time left it
 * predicted, both counted from the window's start (so an ETA that counts down with the clock does not swing).
 */
function worstSwing(points: ReadonlyArray<{ ms: number; eta: number }>, windowMs: number): number {
  let worst = 1;
  for (const [i, a] of points.entries()) {
    let lo = Infinity, hi = 0;
    for (const b of points.slice(i)) {
      if (b.ms - a.ms > windowMs) break;
      if (b.eta < 0) continue;
      const left = b.eta + (b.ms - a.ms) / 1000;
      lo = Math.min(lo, left);
      hi = Math.max(hi, left);
    }
    if (hi > 0 && lo < Infinity) worst = Math.max(worst, hi / lo);
  }
  return worst;
}

test("steady ETA - on a recorded verdict stream the raw tree-estimate ETA swings 3x within minutes; the one shown does not", () => {
  const { points, wallMs, complete } = replay();
  const window = 2 * 60 * 1000;
  // Only while the run has minutes left: near the end any ETA is a few seconds and ratios mean nothing.
  const early = complete ? points.filter((p) => p.ms <= wallMs - window) : points;
  assert.ok(early.length > 20, `a run of ${(wallMs / 1000).toFixed(0)} s`);
  const raw = worstSwing(early.map((p) => ({ ms: p.ms, eta: p.raw })), window);
  const steady = worstSwing(early.map((p) => ({ ms: p.ms, eta: p.steady })), window);
  assert.ok(raw >= 3, `the raw ETA (what run show printed) swings ${raw.toFixed(2)}x within 2 minutes`);
  assert.ok(steady < 2.5, `the smoothed ETA swings ${steady.toFixed(2)}x within 2 minutes (raw ${raw.toFixed(2)}x)`);
  // Still an ETA of this run: a minute in and at half time, within 25% of the time the run really had left.
  if (!complete) return;
  for (const at of [60_000, wallMs / 2]) {
    const p = points.find((x) => x.ms >= at)!;
    const left = (wallMs - p.ms) / 1000;
    assert.ok(Math.abs(p.steady - left) < 0.25 * left, `at ${p.ms / 1000} s: ETA ${p.steady.toFixed(0)} s, really ${left.toFixed(0)} s left`);
  }
});

test("steady ETA - counts down with the clock between readings; a lasting change arrives within a few time constants; reset forgets", () => {
  const eta = new SteadyEta();
  assert.equal(eta.update(0, -1), -1, "nothing known yet");
  assert.equal(eta.update(1000, 3600), 3600, "the first reading is taken as it is");
  assert.equal(eta.update(61_000, -1), 3540, "no reading: a minute later, a minute less");
  // The run became 3x slower for good: the readings say 3x the time left, counting down; the ETA follows, not at once.
  const truth = (k: number): number => 3 * 3540 - 60 * k;
  let now = 61_000, shown = 0;
  for (let k = 1; k <= 6; k++) shown = eta.update((now += 60_000), truth(k));
  assert.ok(shown > 3540 - 360 && shown < 0.7 * truth(6), `after 6 minutes: ${shown} (the readings: ${truth(6)})`);
  const minutes = 4 * ETA_TAU_MS / 60_000;
  for (let k = 7; k <= minutes; k++) shown = eta.update((now += 60_000), truth(k));
  assert.ok(Math.abs(shown - truth(minutes)) / truth(minutes) < 0.05, `after four time constants: ${shown} vs ${truth(minutes)}`);
  eta.reset();
  assert.equal(eta.update(now + 1000, -1), -1, "after a reset (paused), nothing until the next reading");
  assert.equal(eta.update(now + 2000, 100), 100);
});

test("running time - stops while the run is paused, and an ended run's is fixed at its end", () => {
  const life = new RunLife(0);
  const state = (s: RunState, at: number): void => life.apply({ $case: "state", value: { state: s, message: "" } }, at);
  assert.equal(life.runningMs(5000), 0, "not started");
  life.apply({ $case: "started", value: undefined as never }, 1000);
  state(RunState.RUN_STATE_RUNNING, 1000);
  assert.equal(life.runningMs(11_000), 10_000);
  state(RunState.RUN_STATE_PAUSED, 11_000);
  assert.equal(life.runningMs(11_000), 10_000);
  assert.equal(life.runningMs(611_000), 10_000, "ten minutes paused: the clock stood still");
  state(RunState.RUN_STATE_RUNNING, 611_000);
  assert.equal(life.runningMs(621_000), 20_000);
  state(RunState.RUN_STATE_PAUSED, 621_000);
  state(RunState.RUN_STATE_CANCELLED, 700_000);
  assert.equal(life.runningMs(900_000), 20_000, "cancelled while paused: 20 s of running");
});
