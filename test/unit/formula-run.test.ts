/**
 * Formula runs without NATS (docs/cluster.md "Formula runs"): the spec of a DIMACS or Sudoku request and what it
 * refuses, the formula shape's split and re-split (exact weights, leaves that cover what was split), its model
 * checks (a DIMACS formula clause by clause, a Sudoku by its verifier), a shape rebuilt from the spec alone as a
 * restarted coordinator does, and the worker's validation of a formula run's tasks.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidOptionError } from "../../core/errors.js";
import { checkCoverage } from "../../core/cnf/coverage.js";
import { pigeonhole, randomKSat } from "../../core/cnf/generate.js";
import { literalPlacement, placementLiteral } from "../../core/cnf/run-formula.js";
import { dimacsString } from "../../core/encode/dimacs.js";
import { cellVar } from "../../core/sudoku/encode.js";
import { createNames } from "../../proto/contract.js";
import { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import { RunRecord, RunState, RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { buildAnyRunSpec } from "../../coordinator/formula-run-spec.js";
import { DEFAULT_CUBE_TIME_LIMIT_SEC, FORMULA_CUBE_TIME_LIMIT_SEC } from "../../coordinator/model/run-defaults.js";
import { runShapeOf } from "../../coordinator/model/run-shape.js";
import type { Cube } from "../../core/cubes/types.js";
import { workerRunFromRecord, type WorkerRun } from "../../worker/run-table.js";
import { validateTask } from "../../worker/validate-task.js";
import type { DeliveryInfo } from "../../worker/pull.js";

/** A solved 4x4 Sudoku and its puzzle (two givens blanked). */
const SOLVED = [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1];
const SUDOKU = "12.4\n3412\n2143\n43.1\n";

function cubeLits(c: Cube): number[] {
  return c.placements.map(placementLiteral);
}

test("formula spec - DIMACS and Sudoku requests: encoding, lookahead cubes, the SAT solver alone; what a formula run refuses is named", () => {
  const { spec } = buildAnyRunSpec({ puzzleText: dimacsString(pigeonhole(4)), puzzleLabel: "php4.cnf", format: "dimacs", name: "php4" });
  assert.deepEqual([spec.encoding, spec.cubing!.cellOrder, spec.solver!.solver, spec.solver!.searchMs, spec.solver!.firstTimeLimitSec, spec.solver!.timeLimitSec, spec.certify, spec.name], ["dimacs", "lookahead", "kissat", 0, 0, FORMULA_CUBE_TIME_LIMIT_SEC, false, "php4"]);
  // A formula run's cube budget is its own (Kissat restarts a re-split child from scratch); a puzzle's stays.
  assert.equal(buildAnyRunSpec({ puzzleText: "2 2\n1 2 0 0\n0 0 3 1\n3 4 0 0\n0 0 2 4\n", puzzleLabel: "p.txt" }).spec.solver!.timeLimitSec, DEFAULT_CUBE_TIME_LIMIT_SEC);
  const s = buildAnyRunSpec({ puzzleText: SUDOKU, format: "sudoku", encoding: "sudoku-redundant" }).spec;
  assert.deepEqual([s.encoding, s.puzzleText], ["sudoku-redundant", `# name: ${s.runId}\n12.4\n3412\n2143\n43.1\n`]);
  const refused = (extra: object, re: RegExp): void => {
    assert.throws(() => buildAnyRunSpec({ puzzleText: dimacsString(pigeonhole(3)), format: "dimacs", ...extra }), (e: unknown) => e instanceof InvalidOptionError && re.test(e.message), JSON.stringify(extra));
  };
  // Certified formula runs: the flag is kept.
  assert.equal(buildAnyRunSpec({ puzzleText: dimacsString(pigeonhole(3)), format: "dimacs", certify: true }).spec.certify, true);
  refused({ mode: "all" }, /counting/);
  refused({ objective: "score" }, /score/);
  refused({ encoding: "heule-all" }, /is for puzzles/);
  refused({ solver: "none" }, /nothing to solve/);
  refused({ searchMs: 1000 }, /no board/);
  refused({ cellOrder: "scan" }, /lookahead/);
  assert.throws(() => buildAnyRunSpec({ puzzleText: "p cnf 2 1\n1 x 0\n", puzzleLabel: "bad.cnf", format: "dimacs" }), /bad\.cnf:2:/);
});

test("formula shape - split and re-split: exact weights, leaves that cover what was split, literals as placements", () => {
  const { spec, puzzle } = buildAnyRunSpec({ puzzleText: dimacsString(randomKSat(80, 280, 3, 4)), format: "dimacs", targetCubes: 16 });
  const shape = runShapeOf(spec, puzzle);
  const events = [...shape.split(spec.cubing!)];
  const cubes = events.flatMap((e) => (e.kind === "cube" ? [e.cube] : []));
  const done = events.at(-1)!;
  assert.equal(done.kind, "done");
  const refutedWeight = done.kind === "done" ? done.refuted.weight : 0;
  assert.ok(cubes.length >= 2 && cubes.every((c) => c.placements.length <= 4 && c.weight === 2 ** -c.placements.length));
  assert.equal(cubes.reduce((w, c) => w + c.weight, 0) + refutedWeight, 1);
  for (const c of cubes) assert.deepEqual(shape.placementLiterals(c.placements[0]), [cubeLits(c)[0]]);
  const base = cubes[0];
  const r = shape.resplit(base, { depth: 2, cellOrder: "lookahead" });
  assert.ok(r.cubes.length >= 1);
  assert.equal(r.cubes.reduce((w, c) => w + c.weight, 0) + r.refuted.weight, base.weight);
  for (const c of r.cubes) assert.deepEqual(cubeLits(c).slice(0, base.placements.length), cubeLits(base));
  // The children (below the base's literals) and the refuted ones cover the base: the children alone never have to.
  const below = r.cubes.map((c) => cubeLits(c).slice(base.placements.length));
  assert.ok(r.refuted.count > 0 || checkCoverage(below));
  // Cubes that contradict the formula at once are refuted whole.
  const php = runShapeOf(buildAnyRunSpec({ puzzleText: dimacsString(pigeonhole(2)), format: "dimacs" }).spec);
  const contradiction: Cube = { placements: [literalPlacement(1), literalPlacement(3)], branching: [2, 2], weight: 0.25 };
  assert.deepEqual(php.resplit(contradiction, { depth: 1, cellOrder: "lookahead" }), { cubes: [], solutions: [], refuted: { count: 1, weight: 0.25 } });
});

test("formula shape - models: a DIMACS model is checked clause by clause, a Sudoku's grid by the verifier; rebuilt from the spec alone", () => {
  const cnf = "p cnf 3 3\n1 2 0\n-1 3 0\n-2 -3 0\n";
  const { spec } = buildAnyRunSpec({ puzzleText: cnf, format: "dimacs" });
  const shape = runShapeOf(spec);
  const ok = shape.checkModel((v) => v === 2);
  assert.ok(ok.ok && ok.cells.length === 1 && ok.cells[0].cell === 1);
  const bad = shape.checkModel((v) => v === 1);
  assert.ok(!bad.ok && /clause 2/.test(bad.reason));
  assert.equal(shape.checkBoard([literalPlacement(2)]).ok, true);
  assert.equal(shape.checkBoard([{ cell: 7, piece: 1, rot: 0 }]).ok, false);
  const sudoku = runShapeOf(buildAnyRunSpec({ puzzleText: SUDOKU, format: "sudoku" }).spec);
  const truth = new Set(SOLVED.map((d, cell) => cellVar(4, Math.floor(cell / 4), cell % 4, d)));
  assert.equal(sudoku.checkModel((v) => truth.has(v)).ok, true);
  const swapped = new Set(truth);
  swapped.delete(cellVar(4, 0, 0, 1));
  swapped.add(cellVar(4, 0, 0, 2));
  const wrong = sudoku.checkModel((v) => swapped.has(v));
  assert.ok(!wrong.ok && /not a solution/.test(wrong.reason));
});

test("formula validate - a formula run's task: literal placements that are its units, the SAT solver alone (certified or not); anything else is terminated", () => {
  const text = dimacsString(pigeonhole(3));
  const { spec } = buildAnyRunSpec({ puzzleText: text, format: "dimacs", runId: "f1" });
  const full = { ...spec, formulaSha256: "a".repeat(64), numVars: 12 };
  const got = workerRunFromRecord("f1", RunRecord.encode({ spec: full, status: RunStatus.fromPartial({ runId: "f1", state: RunState.RUN_STATE_RUNNING }) }).finish(), 1);
  assert.ok(got.ok, got.ok ? "" : got.reason);
  const run = (got as { run: WorkerRun }).run;
  const ctx = { names: createNames(), run: (id: string) => (id === "f1" ? run : undefined), cancelled: () => false, workerId: "w1" };
  const delivery: DeliveryInfo = { stream: "CUBIST_CUBES", consumer: "run-f1", deliveryCount: 1, streamSequence: 1, consumerSequence: 1, pending: 0 };
  const task: CubeTask = {
    runId: "f1", cubeId: "1", formulaSha256: "a".repeat(64), numVars: 12, units: [3, -5], placements: [literalPlacement(3), literalPlacement(-5)],
    solver: { solver: "kissat", timeLimitSec: 10, conflictLimit: 0, seed: 1, searchMs: 0, firstTimeLimitSec: 0, objective: "" }, generation: 0,
    puzzleSha256: spec.puzzleSha256, lease: "l1", certify: false, engineOrder: "", engineMirror: false, engineCorner: 0, notWorker: "",
  };
  const check = (t: CubeTask) => validateTask(ctx, "cubist.cubes.f1", CubeTask.encode(t).finish(), delivery);
  assert.equal(check(task).action, "run");
  assert.equal(check({ ...task, certify: true }).action, "run", "a certified cube (Kissat writes its proof)");
  for (const [what, t] of [
    ["a unit that is not its placement", { ...task, units: [3, 5] }],
    ["a variable beyond the formula", { ...task, units: [3, -13], placements: [literalPlacement(3), literalPlacement(-13)] }],
    ["the placement engine", { ...task, solver: { ...task.solver!, searchMs: 1000 } }],
    ["a part", { ...task, part: { k: 0, n: 2, depth: 10 } }],
  ] as const) {
    assert.equal(check(t as CubeTask).action, "term", what);
  }
});
