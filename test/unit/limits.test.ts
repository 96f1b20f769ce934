/**
 * The size limits shared by the CLI and the coordinator (core/limits.ts): the exact DIMACS size, the checks and
 * their messages, and the run spec's use of them; the bound on key and token files (cluster/read-bounded.ts) and on
 * the input an error message quotes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkBoardSize, checkFormulaSize, DEFAULT_SIZE_LIMITS, formulaBytes, LimitExceededError, sizeLimits } from "../../core/limits.js";
import { dimacsChunks, encode } from "../../core/encode/index.js";
import { parsePuzzle, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { buildRunSpec } from "../../coordinator/run-spec.js";
import { COORDINATOR_LIMIT_FLAGS, loadCoordinatorConfig } from "../../coordinator/config.js";
import { excerpt, InvalidOptionError, InvalidPuzzleError } from "../../core/errors.js";
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
  checkBoardSize({ rows: 32, cols: 32 }, sizeLimits({ maxCells: 1024 }));
  checkFormulaSize(128 * 1024 * 1024);
  assert.throws(() => checkFormulaSize(513 * 1024 * 1024), /513 MB of DIMACS, above the limit of 128 MB .*--max-formula-mb MB/);
  // The coordinator's messages name its own flags; the run spec uses them.
  const big = writeCanonical(generatePuzzle({ rows: 20, cols: 20, borderColors: 4, centerColors: 6, seed: 3 }).puzzle);
  const limits = sizeLimits({}, COORDINATOR_LIMIT_FLAGS);
  assert.throws(() => buildRunSpec({ puzzleText: big }, 0, limits), /400 cells, above the limit of 256 cells \(raise it with cubist coordinator --max-cells N \(CUBIST_MAX_CELLS\)/);
  assert.equal((buildRunSpec({ puzzleText: big }, 0, sizeLimits({ maxCells: 400 })).puzzle as Puzzle).rows, 20);
});

test("limits - a run's puzzle text above 1 MiB is refused by the coordinator naming its flag; --max-puzzle-mb raises it up to 16", () => {
  const text = readFileSync("test/fixtures/clues/clue1.txt", "utf8");
  const padded = text + "\n".repeat(1024 * 1024);
  const limits = sizeLimits({}, COORDINATOR_LIMIT_FLAGS);
  assert.equal(limits.maxPuzzleBytes, 1024 * 1024);
  assert.throws(() => buildRunSpec({ puzzleText: padded }, 0, limits), (e: unknown) =>
    e instanceof LimitExceededError && e.limit === "puzzle" && e.fault === "task" &&
    /^the puzzle text is 1\.0 MB, above the input limit of 1\.0 MB \(raise it with cubist coordinator --max-puzzle-mb MB \(CUBIST_MAX_PUZZLE_MB\); docs\/operations\.md "Limits"\)$/.test(e.message));
  assert.equal((buildRunSpec({ puzzleText: padded }, 0, sizeLimits({ maxPuzzleMb: 2 }, COORDINATOR_LIMIT_FLAGS)).puzzle as Puzzle).rows, 6);
  assert.throws(() => sizeLimits({ maxPuzzleMb: 17 }), (e: unknown) => e instanceof InvalidOptionError && e.option === "--max-puzzle-mb");
  assert.throws(() => sizeLimits({ maxPuzzleMb: 0 }), /must be a number in \(0, 16\]/);
});

test("limits - a key or token file above 1 MiB is refused naming its flag, before it is read", () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-limits-"));
  try {
    const big = join(dir, "token");
    writeFileSync(big, "");
    truncateSync(big, 64 * 1024 * 1024);
    assert.throws(() => loadCoordinatorConfig({ nats: { servers: "nats://127.0.0.1:4222" }, authTokenFile: big }), (e: unknown) =>
      e instanceof InvalidOptionError && e.option === "--auth-token-file" && /64\.0 MiB, above the 1 MiB a key, certificate, token or password file may have/.test(e.message));
    writeFileSync(join(dir, "ok"), "a-token-of-some-length\n");
    assert.equal(loadCoordinatorConfig({ nats: { servers: "nats://127.0.0.1:4222" }, authTokenFile: join(dir, "ok") }).authToken, "a-token-of-some-length");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("limits - input quoted in an error is an excerpt; any reason is cut at 1000 characters", () => {
  assert.equal(excerpt("short"), "short");
  assert.equal(excerpt("x".repeat(100)), `${"x".repeat(40)}...`);
  assert.throws(() => parsePuzzle(`2 2\n1 0 0 ${"9".repeat(5000)} 1\n`, "p.txt", "canonical"), (e: unknown) =>
    e instanceof InvalidPuzzleError && e.message === `p.txt:2: piece 1 has colour '${"9".repeat(40)}...', which is too large`);
  const huge = new InvalidOptionError("encoding", `unknown encoding "${"e".repeat(1_000_000)}"`);
  assert.ok(huge.message.length < 1100 && huge.message.endsWith("..."), `${huge.message.length} characters`);
});
