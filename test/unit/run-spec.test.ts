/**
 * Run specs: what the coordinator fills in where a request is silent, and what it refuses.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { InvalidOptionError } from "../../core/errors.js";
import { buildRunSpec, defaultSearchMs } from "../../coordinator/run-spec.js";

const SMALL = readFileSync("test/fixtures/cluster/unsat-6x6.txt", "utf8");
const E2 = readFileSync("test/fixtures/eternity2/e2_pieces.txt", "utf8");

test("run spec - the placement search defaults by board size: 1 s up to 200 cells, 60 s above", () => {
  assert.equal(defaultSearchMs({ rows: 6, cols: 6 }), 1000);
  assert.equal(defaultSearchMs({ rows: 14, cols: 14 }), 1000);
  assert.equal(defaultSearchMs({ rows: 15, cols: 15 }), 60_000);
  assert.equal(buildRunSpec({ puzzleText: SMALL }).spec.solver!.searchMs, 1000);
  assert.equal(buildRunSpec({ puzzleText: E2 }).spec.solver!.searchMs, 60_000);
});

test("run spec - an explicit search time wins, 0 included; out of range is refused", () => {
  assert.equal(buildRunSpec({ puzzleText: E2, searchMs: 0 }).spec.solver!.searchMs, 0);
  assert.equal(buildRunSpec({ puzzleText: SMALL, searchMs: 250 }).spec.solver!.searchMs, 250);
  assert.throws(() => buildRunSpec({ puzzleText: SMALL, searchMs: -1 }), InvalidOptionError);
  assert.throws(() => buildRunSpec({ puzzleText: SMALL, searchMs: 3_600_001 }), InvalidOptionError);
});
