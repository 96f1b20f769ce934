/**
 * Triangle runs in the run model without NATS (coordinator/model/run-model.ts through its triangle shape): the cubes'
 * exact counts (each cube counted by the placement search with the cube fixed) sum to the brute-force count, replay
 * rebuilds it, a redelivered verdict adds nothing, forged counts and boards are rejected by the triangle verifier,
 * and a SAT model is decoded by the triangle encoding and verified. Run specs refuse what triangles do not have.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { bitsetValue } from "../../core/accept.js";
import { buildRunSpec } from "../../coordinator/run-spec.js";
import { triangleWithCube } from "../../core/triangle/cubes.js";
import { encodeTriangle } from "../../core/triangle/encode.js";
import { writeTriangle } from "../../core/triangle/format.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import { placementsOfTriangleBoard, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { countTriangle } from "../../core/triangle/search.js";
import type { Placement } from "../../core/puzzle.js";
import { FaultKind, VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { bruteCountTriangle } from "../helpers/brute-force.js";
import { modelHarness, type ModelHarness } from "../helpers/run-model.js";

const GENERATED = generateTriangle({ side: 4, labels: 4, seed: 4 });
const TEXT = writeTriangle(GENERATED.puzzle);

function triangleOf(h: ModelHarness): TrianglePuzzle {
  assert.equal(h.shape.kind, "triangle");
  return h.shape.puzzle as TrianglePuzzle;
}

function verdict(cube: string, kind: VerdictKind, extra: Partial<Verdict> = {}): Verdict {
  return {
    runId: "t1", cubeId: cube, kind, model: Buffer.alloc(0), numVars: 0, stats: undefined, workerId: "w1", host: "h", delivery: 1, reason: "",
    generation: 0, board: [], taskSeq: 0, best: [], lease: "", proofSha256: "", fault: FaultKind.FAULT_KIND_UNSPECIFIED, ...extra,
  };
}

/** What a worker sends for a cube: the search's count of the cube and its first `cap` boards. */
function countedVerdict(puzzle: TrianglePuzzle, cube: string, placements: readonly Placement[], cap: number): Verdict {
  const boards: Placement[][] = [];
  const fixed = triangleWithCube(puzzle, placements);
  const r = fixed ? countTriangle(fixed, { maxBoards: cap, onBoard: (b) => boards.push(placementsOfTriangleBoard(b)) }) : { count: 0 };
  return verdict(cube, r.count > 0 ? VerdictKind.VERDICT_KIND_SAT : VerdictKind.VERDICT_KIND_UNSAT, { counted: { solutions: r.count, boards: boards.map((cells) => ({ cells })) } });
}

function open(h: ModelHarness): string[] {
  return [...h.model.table.entries()].filter((e) => e.state === "queued" || e.state === "unknown").map((e) => e.id);
}

test("triangle run model - cube counts sum to the brute-force count; replay and a redelivered verdict do not double count", async () => {
  const h = modelHarness({ runId: "t1", puzzleText: TEXT, mode: "all", targetCubes: 12 });
  const puzzle = triangleOf(h);
  assert.equal(h.spec.cubing!.cellOrder, "base-up");
  assert.equal(h.spec.encoding, "triangle");
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cap = h.spec.solver!.countBoards!;
  const ids = open(h);
  assert.ok(ids.length >= 6, `${ids.length} cubes`);
  // Every task fixes its placements by one unit literal each, within the formula.
  for (const e of h.effects) {
    if (e.type !== "publish") continue;
    for (const t of e.tasks) {
      assert.equal(t.task.units.length, t.task.placements.length);
      for (const u of t.task.units) assert.ok(u > 0 && u <= h.spec.numVars);
    }
  }
  const verdicts = ids.map((id) => countedVerdict(puzzle, id, h.model.table.get(id)!.placements, cap));
  const half = Math.ceil(verdicts.length / 2);
  await h.run(h.model.recordVerdicts(verdicts.slice(0, half)));
  const partial = verdicts.slice(0, half).reduce((s, v) => s + v.counted!.solutions, 0);
  assert.equal(h.model.count.counted, partial);
  assert.equal(h.replay().count.counted, partial);
  await h.run(h.model.recordVerdicts(verdicts.slice(0, 1)));
  assert.equal(h.model.count.counted, partial);
  await h.run(h.model.recordVerdicts(verdicts.slice(half)));
  const want = bruteCountTriangle(puzzle);
  assert.equal(h.model.state, RunState.RUN_STATE_SAT, h.model.message);
  assert.deepEqual([h.model.count.counted, h.model.countComplete], [want, true]);
  assert.ok(Math.abs(h.model.coveredWeight - 1) < 1e-9);
  assert.equal(h.model.solutions.list.length, Math.min(want, 100));
  assert.equal(h.model.solutions.rejected, 0);
  const end = h.replay();
  assert.deepEqual([end.state, end.count.counted, end.solutions.list.length], [RunState.RUN_STATE_SAT, want, h.model.solutions.list.length]);
});

test("triangle run model - forged counts and boards are rejected by the triangle verifier and the cube sent again", async () => {
  // Each rejection is an error of the cube: enough deliveries for every forgery below.
  const h = modelHarness({ runId: "t1", puzzleText: TEXT, mode: "all", targetCubes: 12 }, { maxDeliver: 10 });
  const puzzle = triangleOf(h);
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cap = h.spec.solver!.countBoards!;
  const ids = open(h);
  const real = ids.map((id) => countedVerdict(puzzle, id, h.model.table.get(id)!.placements, cap));
  const i = real.findIndex((v) => v.counted!.solutions >= 2);
  const j = real.findIndex((v, k) => k !== i && v.counted!.solutions >= 1);
  assert.ok(i >= 0 && j >= 0);
  const boards = real[i].counted!.boards;
  const n = boards.length;
  const swapped = boards[0].cells.map((p, k, all) => (k === 0 ? { ...p, piece: all[1].piece } : k === 1 ? { ...p, piece: all[0].piece } : p));
  const forged: Array<[string, Verdict]> = [
    ["more solutions than boards under the cap", { ...real[i], counted: { solutions: n + 1, boards } }],
    ["a board that is not a solution", { ...real[i], counted: { solutions: n, boards: [{ cells: swapped }, ...boards.slice(1)] } }],
    ["a board repeated", { ...real[i], counted: { solutions: n, boards: [boards[0], ...boards.slice(0, n - 1)] } }],
    ["a board of another cube", { ...real[j], cubeId: ids[i], counted: { solutions: real[j].counted!.solutions, boards: real[j].counted!.boards } }],
    ["a board with a rotation the puzzle does not allow", { ...real[i], counted: { solutions: n, boards: [{ cells: boards[0].cells.map((p, k) => (k === 0 ? { ...p, rot: 1 } : p)) }, ...boards.slice(1)] } }],
    ["a board missing a cell", { ...real[i], counted: { solutions: n, boards: [{ cells: boards[0].cells.slice(1) }, ...boards.slice(1)] } }],
    ["a SAT board that is not a solution", verdict(ids[i], VerdictKind.VERDICT_KIND_SAT, { board: swapped })],
  ];
  let rejected = 0;
  for (const [what, v] of forged) {
    h.effects.length = 0;
    await h.run(h.model.recordVerdicts([v]));
    rejected++;
    assert.equal(h.model.solutions.rejected, rejected, what);
    assert.equal(h.model.count.counted, 0, what);
    assert.ok(h.effects.some((e) => e.type === "publish" && e.tasks[0].task.cubeId === ids[i]), `${what}: the cube goes out again`);
  }
  await h.run(h.model.recordVerdicts([real[i]]));
  assert.equal(h.model.count.counted, real[i].counted!.solutions);
});

test("triangle run model - a SAT model decodes through the triangle encoding and ends a first-solution run; a wrong one is rejected", async () => {
  const h = modelHarness({ runId: "t1", puzzleText: TEXT, targetCubes: 4, solver: "kissat" });
  const puzzle = triangleOf(h);
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const formula = encodeTriangle(puzzle);
  const bitsOf = (cells: readonly Placement[]): Buffer => {
    const bits = Buffer.alloc((h.spec.numVars + 7) >> 3);
    for (const p of cells) {
      const v = formula.placementVar(p.cell, p.piece, p.rot);
      bits[(v - 1) >> 3] |= 1 << ((v - 1) & 7);
    }
    return bits;
  };
  const solution = placementsOfTriangleBoard(GENERATED.solution);
  const cube = open(h)[0];
  const wrong = solution.map((p, k, all) => (k === 0 ? { ...p, piece: all[1].piece } : k === 1 ? { ...p, piece: all[0].piece } : p));
  assert.equal(formula.decode(bitsetValue(bitsOf(solution))).cells.length, 16);
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_SAT, { model: bitsOf(wrong), numVars: h.spec.numVars })]));
  assert.deepEqual([h.model.solutions.rejected, h.model.state], [1, RunState.RUN_STATE_RUNNING]);
  await h.run(h.model.recordVerdicts([verdict(cube, VerdictKind.VERDICT_KIND_SAT, { model: bitsOf(solution), numVars: h.spec.numVars })]));
  assert.equal(h.model.state, RunState.RUN_STATE_SAT, h.model.message);
  assert.deepEqual([h.model.solutions.list.length, h.model.solutions.list[0].rows, h.model.solutions.list[0].cols], [1, 4, 7]);
});

test("triangle run spec - square-only options are refused, naming the option", () => {
  const refused: Array<[Parameters<typeof buildRunSpec>[0], RegExp]> = [
    [{ puzzleText: TEXT, certify: true }, /certify: certified UNSAT is for square boards/],
    [{ puzzleText: TEXT, objective: "score" }, /objective: score is for square boards/],
    [{ puzzleText: TEXT, cellOrder: "spiral" }, /cell order: a triangle splits along its search's order, base-up/],
    [{ puzzleText: TEXT, encoding: "heule-all" }, /encoding: "heule-all" is for square boards/],
    [{ puzzleText: TEXT, order: "cell-major" }, /order: variable orders are for square boards/],
  ];
  for (const [req, re] of refused) assert.throws(() => buildRunSpec(req), re);
  const { spec } = buildRunSpec({ puzzleText: TEXT, mode: "all", everyBoard: true });
  assert.deepEqual([spec.solver!.solver, spec.solver!.objective, spec.cubing!.cellOrder], ["none", "count", "base-up"]);
  assert.ok(spec.solver!.countBoards! > 32, "every board: as many as fit in a verdict");
  assert.throws(() => buildRunSpec({ puzzleText: "triangle 2\n1 1 2 3\n", puzzleLabel: "t.txt" }), /t\.txt: a triangle of side 2 needs 4 pieces, found 1/);
});
