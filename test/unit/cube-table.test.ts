import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CubeTable } from "../../coordinator/model/cube-table.js";
import { resplitDepth, subtreeOf } from "../../coordinator/model/cube-entry.js";
import { readBrendan } from "../../core/formats/index.js";
import { resplitCube, splitCubes } from "../../core/cubes/split.js";
import { addRational, equalRational, exactWeight, sumWeights, type Rational } from "../../core/cubes/weight.js";

const puzzle = readBrendan(readFileSync("test/fixtures/brendan/pieces_05x05.txt", "utf8"), "pieces_05x05.txt");

function splitTable(target: number) {
  const split = splitCubes(puzzle, { targetCubes: target, recordRefuted: true });
  const table = new CubeTable();
  table.addCubes(undefined, split.cubes.map((c, i) => ({ id: String(i), placements: c.placements, branching: c.branching })), split.refuted);
  table.initialSplitDone = true;
  return { split, table };
}

test("cube table - each cube closes once: a second verdict is ignored", () => {
  const { table } = splitTable(8);
  assert.deepEqual(table.recordVerdict("0", "unsat"), { kind: "closed", state: "unsat" });
  assert.deepEqual(table.recordVerdict("0", "unsat"), { kind: "ignored", why: "already-closed" });
  assert.deepEqual(table.recordVerdict("0", "sat"), { kind: "ignored", why: "already-closed" });
  assert.deepEqual(table.recordVerdict("nope", "unsat"), { kind: "ignored", why: "unknown-cube" });
  assert.equal(table.snapshotCounts().unsat, 1);
});

test("cube table - refuting every cube closes weight 1 and completes the table", () => {
  const { split, table } = splitTable(20);
  assert.ok(split.cubes.length >= 20);
  for (let i = 0; i < split.cubes.length; i++) {
    assert.equal(table.complete, false);
    table.recordVerdict(String(i), "unsat");
  }
  assert.equal(table.complete, true);
  assert.ok(Math.abs(table.refutedWeight - 1) < 1e-12, `closed weight ${table.refutedWeight}`);
});

test("cube table - re-split children carry the parent's weight; unknowns and errors do not close", () => {
  const { split, table } = splitTable(6);
  assert.equal(table.recordVerdict("0", "unknown").kind, "unknown");
  assert.equal(table.recordVerdict("1", "error").kind, "error");
  assert.equal(table.snapshotCounts().unknown, 1);
  const parent = table.get("0")!;
  const children = resplitCube(puzzle, { placements: [...parent.placements], branching: [...parent.branching], weight: parent.weight }, { depth: 2, recordRefuted: true });
  table.addCubes("0", children.cubes.map((c, k) => ({ id: `0.${k}`, placements: c.placements, branching: c.branching })), children.refuted);
  assert.equal(table.get("0")!.state, "resplit");
  for (const e of [...table.entries()]) if (e.state === "queued" || e.state === "unknown") table.recordVerdict(e.id, "unsat");
  assert.equal(table.complete, true);
  assert.ok(Math.abs(table.refutedWeight - 1) < 1e-12);
  // Exactly, with rationals: leaves that were refuted + every refuted branch = 1.
  const lists: number[][] = [];
  for (const e of table.entries()) if (e.state === "unsat") lists.push([...e.branching]);
  let total: Rational = sumWeights(lists);
  for (const b of [...(split.refuted.branches ?? []), ...(children.refuted.branches ?? [])]) total = addRational(total, exactWeight(b.branching));
  assert.ok(equalRational(total, { num: 1n, den: 1n }), `exact total ${total.num}/${total.den}`);
});

test("cube table - failed cubes finish the table but are not refuted weight", () => {
  const { split, table } = splitTable(4);
  table.markFailed("0", "gave up");
  for (let i = 1; i < split.cubes.length; i++) table.recordVerdict(String(i), "unsat");
  assert.equal(table.complete, true);
  assert.equal(table.snapshotCounts().failed, 1);
  assert.ok(table.refutedWeight < 1);
  assert.ok(Math.abs(table.refutedWeight + table.failedWeight - 1) < 1e-12);
  assert.equal(table.markFailed("0", "again"), false);
  assert.equal(table.requeue("0", 42), true);
  assert.equal(table.get("0")!.seq, 42);
  assert.equal(table.complete, false);
  assert.ok(Math.abs(table.failedWeight) < 1e-12);
});

test("cube table - adding a batch twice (a replayed ledger entry) changes nothing", () => {
  const { split, table } = splitTable(10);
  const before = table.snapshotCounts();
  table.addCubes(undefined, split.cubes.map((c, i) => ({ id: String(i), placements: c.placements, branching: c.branching })));
  assert.deepEqual(table.snapshotCounts(), before);
  assert.equal(table.size, split.cubes.length);
});

test("cube table - a subtree keeps its solver time and re-splits across generations; the initial split's size is counted", () => {
  const { split, table } = splitTable(6);
  assert.equal(table.initialCubes, split.cubes.length);
  assert.equal(subtreeOf("17.3.0"), "17");
  assert.deepEqual([resplitDepth("17"), resplitDepth("17.3"), resplitDepth("17.3.0")], [0, 1, 2]);
  table.recordVerdict("0", "unknown", { wallMs: 60_000 });
  const parent = table.get("0")!;
  const children = resplitCube(puzzle, { placements: [...parent.placements], branching: [...parent.branching], weight: parent.weight }, { depth: 1 });
  assert.ok(children.cubes.length > 0);
  table.addCubes("0", children.cubes.map((c, k) => ({ id: `0.${k}`, placements: c.placements, branching: c.branching })));
  // A child starts with a fresh clock of its own, but its subtree remembers the parent's minute.
  table.recordVerdict("0.0", "unknown", { wallMs: 30_000 });
  const child = table.get("0.0")!;
  const grand = resplitCube(puzzle, { placements: [...child.placements], branching: [...child.branching], weight: child.weight }, { depth: 1 });
  table.addCubes("0.0", grand.cubes.map((c, k) => ({ id: `0.0.${k}`, placements: c.placements, branching: c.branching })));
  assert.deepEqual(table.subtree("0.0.0"), { spentMs: 90_000, resplits: 2 });
  assert.deepEqual(table.subtree("0"), table.subtree("0.0.0"));
  assert.deepEqual(table.subtree("1"), { spentMs: 0, resplits: 0 });
  // Re-split cubes are not initial cubes; a verdict without a time adds nothing.
  assert.equal(table.initialCubes, split.cubes.length);
  table.recordVerdict("1", "unsat");
  assert.deepEqual(table.subtree("1"), { spentMs: 0, resplits: 0 });
});
