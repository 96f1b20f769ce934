/**
 * Run specs: what the coordinator fills in where a request is silent, and what it refuses.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { InvalidOptionError } from "../../core/errors.js";
import { buildRunSpec, cubeBudgetSec, DEFAULT_SEARCH_MS } from "../../coordinator/run-spec.js";
import { DEFAULT_CUBE_TIME_LIMIT_SEC, SCORE_SLOT_SEC } from "../../coordinator/model/run-defaults.js";

const SMALL = readFileSync("test/fixtures/cluster/unsat-6x6.txt", "utf8");
const E2 = readFileSync("test/fixtures/eternity2/e2_pieces.txt", "utf8");

test("run spec - the engine runs the whole budget; Kissat beside it on many-solution boards up to 200 cells, else the engine alone", () => {
  const heule = readFileSync("test/fixtures/heule2008/em_8_4_5.txt", "utf8");
  const small = buildRunSpec({ puzzleText: heule }).spec.solver!;
  assert.equal(buildRunSpec({ puzzleText: SMALL }).spec.solver!.solver, "none", "a near-unique 6x6");
  const e2 = buildRunSpec({ puzzleText: E2 }).spec.solver!;
  assert.deepEqual([small.searchMs, small.solver, small.firstTimeLimitSec], [DEFAULT_SEARCH_MS, "kissat", 2]);
  assert.deepEqual([e2.searchMs, e2.solver], [DEFAULT_SEARCH_MS, "none"]);
  assert.equal(buildRunSpec({ puzzleText: E2, solver: "kissat" }).spec.solver!.solver, "kissat");
  assert.throws(() => buildRunSpec({ puzzleText: SMALL, solver: "minisat" }), InvalidOptionError);
});

test("run spec - a cube's budget doubles per generation from the first budget up to the cap", () => {
  const s = { timeLimitSec: 60, firstTimeLimitSec: 2 };
  assert.deepEqual([0, 1, 2, 4, 5, 50].map((g) => cubeBudgetSec(s, g)), [2, 4, 8, 32, 60, 60]);
  assert.equal(cubeBudgetSec({ timeLimitSec: 60, firstTimeLimitSec: 0 }, 3), 60);
  assert.equal(cubeBudgetSec({ timeLimitSec: 0, firstTimeLimitSec: 1 }, 3), 8);
  assert.equal(cubeBudgetSec({ timeLimitSec: 0, firstTimeLimitSec: 0 }, 3), 0);
});

test("run spec - an explicit search time wins, 0 included; out of range is refused", () => {
  assert.equal(buildRunSpec({ puzzleText: E2, searchMs: 0 }).spec.solver!.searchMs, 0);
  assert.equal(buildRunSpec({ puzzleText: SMALL, searchMs: 250 }).spec.solver!.searchMs, 250);
  assert.throws(() => buildRunSpec({ puzzleText: SMALL, searchMs: -1 }), InvalidOptionError);
  assert.throws(() => buildRunSpec({ puzzleText: SMALL, searchMs: 3_600_001 }), InvalidOptionError);
});

test("run spec - a score run's slots get their own default budget, not a cube's (a slot is a search that goes on)", () => {
  const score = buildRunSpec({ puzzleText: E2, objective: "score" }).spec.solver!;
  assert.equal(score.timeLimitSec, SCORE_SLOT_SEC);
  assert.ok(SCORE_SLOT_SEC > DEFAULT_CUBE_TIME_LIMIT_SEC);
  assert.equal(buildRunSpec({ puzzleText: E2 }).spec.solver!.timeLimitSec, DEFAULT_CUBE_TIME_LIMIT_SEC);
  assert.equal(buildRunSpec({ puzzleText: E2, objective: "score", timeLimitSec: 30 }).spec.solver!.timeLimitSec, 30, "--cube-time still sets it");
});
