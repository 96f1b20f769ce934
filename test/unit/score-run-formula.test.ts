/**
 * A score run has no base formula (coordinator/model/run-shape.ts needsFormula): its slots run the placement engine's
 * score search alone, so nothing is encoded for it, its slots' tasks name no formula, and a worker takes its record
 * without one. Every other run still has its formula.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { needsFormula, runShapeOf } from "../../coordinator/model/run-shape.js";
import { buildRunSpec, type RunRequest } from "../../coordinator/run-spec.js";
import { RunRecord, RunState, RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { workerRunFromRecord } from "../../worker/run-table.js";
import { modelHarness, published } from "../helpers/run-model.js";

const BOARD = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");

const specOf = (req: Partial<RunRequest>) => buildRunSpec({ puzzleText: BOARD, runId: "r1", ...req });

test("score run formula - only a score run goes without one: sat, counting and certified runs keep theirs", () => {
  const needs = (req: Partial<RunRequest>): boolean => needsFormula(specOf(req).spec);
  assert.equal(needs({ objective: "score" }), false);
  assert.equal(needs({}), true);
  assert.equal(needs({ objective: "sat", solver: "kissat" }), true);
  assert.equal(needs({ mode: "all" }), true);
  assert.equal(needs({ certify: true }), true);
});

test("score run formula - the shape encodes nothing; boards are still checked, literals and models are refused", () => {
  const { spec, puzzle } = specOf({ objective: "score" });
  const shape = runShapeOf(spec, puzzle);
  assert.equal(shape.formula, null);
  assert.throws(() => shape.placementLiterals({ cell: 0, piece: 0, rot: 0 }), /no literals/);
  assert.equal(shape.checkModel(() => true).ok, false);
  assert.equal(shape.checkBoard([]).ok, false, "the verifier still answers");
  const sat = specOf({});
  assert.ok((runShapeOf(sat.spec, sat.puzzle).formula?.numVars ?? 0) > 0);
});

test("score run formula - the slots' tasks name no formula and fix no literals", async () => {
  const h = modelHarness({ puzzleText: BOARD, runId: "r1", objective: "score", scoreSlots: 2 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial(1));
  const tasks = published(h.effects).map((t) => t.task);
  assert.deepEqual(tasks.map((t) => [t.cubeId, t.formulaSha256, t.numVars, t.units.length]), [["score-0", "", 0, 0], ["score-1", "", 0, 0]]);
});

test("score run formula - a worker takes a score run's record without a formula, not another run's", () => {
  const record = (req: Partial<RunRequest>): Uint8Array => {
    const { spec } = specOf(req);
    return RunRecord.encode({ spec, status: RunStatus.fromPartial({ runId: "r1", state: RunState.RUN_STATE_RUNNING }) }).finish();
  };
  const score = workerRunFromRecord("r1", record({ objective: "score" }), 1);
  assert.ok(score.ok && score.run.formulaSha256 === "" && score.run.numVars === 0);
  const sat = workerRunFromRecord("r1", record({}), 1);
  assert.deepEqual(sat.ok ? "ok" : sat.reason, "formula_sha256 is not a SHA-256");
});
