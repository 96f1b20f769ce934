/**
 * The size limits shared by the CLI and the coordinator (core/limits.ts): the exact DIMACS size, the checks and
 * their messages, and the run spec's use of them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { checkBoardSize, checkFormulaSize, DEFAULT_SIZE_LIMITS, formulaBytes, LimitExceededError, sizeLimits } from "../../core/limits.js";
import { dimacsChunks, encode } from "../../core/encode/index.js";
import { parsePuzzle, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { buildRunSpec } from "../../coordinator/run-spec.js";
import { COORDINATOR_LIMIT_FLAGS } from "../../coordinator/config.js";
import type { Puzzle } from "../../core/puzzle.js";

test("limits - formulaBytes is exactly the size of the DIMACS text", () => {
  const puzzle = parsePuzzle(readFileSync("test/fixtures/clues/clue1.txt", "utf8"), "clue1.txt", "auto");
  for (const encoding of ["cubist-placement", "heule-compact", "heule-all"] as const) {
    const f = encode(encoding, puzzle);
    let n = 0;
    for (const c of dimacsChunks(f)) n += c.length;
    assert.equal(formulaBytes(f), n, encoding);
  }
});

test("limits - boards and formulas above the limits are LimitExceededError naming the limit and how to raise it", () => {
  assert.equal(DEFAULT_SIZE_LIMITS.maxCells, 256);
  checkBoardSize({ rows: 16, cols: 16 });
  assert.throws(() => checkBoardSize({ rows: 32, cols: 32 }), (e: unknown) =>
    e instanceof LimitExceededError && e.limit === "cells" && e.fault === "task" &&
    /32x32 = 1024 cells, above the limit of 256 cells \(raise it with --max-cells N/.test(e.message));
  checkBoardSize({ rows: 32, cols: 32 }, sizeLimits(1024, undefined));
  checkFormulaSize(128 * 1024 * 1024);
  assert.throws(() => checkFormulaSize(513 * 1024 * 1024), /513 MB of DIMACS, above the limit of 128 MB .*--max-formula-mb MB/);
  // The coordinator's messages name its own flags; the run spec uses them.
  const big = writeCanonical(generatePuzzle({ rows: 20, cols: 20, borderColors: 4, centerColors: 6, seed: 3 }).puzzle);
  const limits = sizeLimits(undefined, undefined, COORDINATOR_LIMIT_FLAGS);
  assert.throws(() => buildRunSpec({ puzzleText: big }, 0, limits), /400 cells, above the limit of 256 cells \(raise it with cubist coordinator --max-cells N \(CUBIST_MAX_CELLS\)/);
  assert.equal((buildRunSpec({ puzzleText: big }, 0, sizeLimits(400, undefined)).puzzle as Puzzle).rows, 20);
});
