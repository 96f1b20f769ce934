/**
 * coordinator/model/work-estimate.ts: placements, their rate, and the work left by the cubes' tree estimates.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CubeTable } from "../../coordinator/model/cube-table.js";
import { WorkEstimate } from "../../coordinator/model/work-estimate.js";

function table(): CubeTable {
  const t = new CubeTable();
  // Four cubes of weight 1/4 each.
  t.addCubes(undefined, ["a", "b", "c", "d"].map((id) => ({ id, placements: [], branching: [4] })), { count: 0, weight: 0 });
  return t;
}

test("work left: estimated open cubes count whole, unestimated open weight at the estimated cubes' density", () => {
  const t = table();
  const w = new WorkEstimate();
  t.recordVerdict("a", "unsat");
  w.record("a", 0, 1000, 1000, 100);      // closed: only its density counts
  t.recordVerdict("b", "unknown");
  w.record("b", 10_000, 5000, 3000, 300);  // open again: its whole tree is left
  const v = w.view(t.entries(), 10_000, false);
  assert.equal(v.placements, 6000);
  // density = (1000 + 3000) / (1/2) = 8000 per unit weight; c and d: 1/2 weight unestimated -> 4000
  assert.equal(v.remainingNodes, 3000 + 4000);
  assert.ok(v.remainingNodesStderr > 300 && v.remainingNodesStderr < 3000);
  assert.ok(Math.abs(v.placementsPerSecond - 500) < 1e-9, "5000 placements over 10 s");
  assert.ok(Math.abs(v.workEtaSeconds - 14) < 1e-9);
});

test("work left: nothing known before a verdict with an estimate; nothing left once the run ended", () => {
  const t = table();
  const w = new WorkEstimate();
  assert.equal(w.view(t.entries(), 0, false).remainingNodes, -1);
  assert.equal(w.view(t.entries(), 0, false).workEtaSeconds, -1);
  t.recordVerdict("a", "unknown");
  w.record("a", 0, 500, 0, 0);
  assert.equal(w.view(t.entries(), 0, false).remainingNodes, -1, "a verdict without an estimate (Kissat alone)");
  assert.deepEqual({ ...w.view(t.entries(), 0, true), placementsPerSecond: 0 }, { placements: 500, placementsPerSecond: 0, remainingNodes: 0, remainingNodesStderr: 0, workEtaSeconds: 0 });
});
