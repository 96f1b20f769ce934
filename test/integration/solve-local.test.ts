/**
 * `cubist solve PUZZLE` on one machine, as a user runs it: the built CLI, real Kissat, and the placement search
 * beside it (`--search-ms`, default 1000). Every SAT board printed is checked here again by the verifier.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawnCubist } from "../helpers/processes.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { verifySolution } from "../../core/verify.js";

const CLUE = "test/fixtures/cluster/clue1-shuffled-s11.txt";
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const CRASH = "test/fixtures/fake-solvers/crash-exit1.sh";

async function solve(args: string[]): Promise<{ code: number | null; out: Record<string, unknown>; stderr: string }> {
  const p = spawnCubist(["solve", ...args, "--json"]);
  const { code } = await p.exited;
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(p.stdout()) as Record<string, unknown>;
  } catch {
    // an error: nothing on stdout
  }
  return { code, out, stderr: p.stderr() };
}

function assertVerified(file: string, out: Record<string, unknown>): void {
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  assert.deepEqual(verifySolution(puzzle, readBoardJSON(out.board as never, puzzle)), { ok: true });
}

test("solve - Kissat alone (--search-ms 0) solves a shuffled clue puzzle; the board verifies", async () => {
  const r = await solve([CLUE, "--search-ms", "0"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.out.status, "sat");
  const stats = r.out.stats as { engine: string; searchNodes: number; conflicts: number | null };
  assert.equal(stats.engine, "solver");
  assert.equal(stats.searchNodes, 0);
  assert.equal(typeof stats.conflicts, "number");
  assertVerified(CLUE, r.out);
});

test("solve - by default the placement search runs beside Kissat and either engine's board verifies", async () => {
  const r = await solve([CLUE]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.out.status, "sat");
  assert.ok(["solver", "search"].includes((r.out.stats as { engine: string }).engine));
  assertVerified(CLUE, r.out);
});

test("solve - an unsatisfiable puzzle is UNSAT (exit 20) with the search, and with Kissat alone", async () => {
  const withSearch = await solve([UNSAT]);
  assert.equal(withSearch.code, 20, withSearch.stderr);
  assert.equal(withSearch.out.status, "unsat");
  const alone = await solve([UNSAT, "--search-ms", "0"]);
  assert.equal(alone.code, 20, alone.stderr);
  assert.equal(alone.out.status, "unsat");
  assert.equal((alone.out.stats as { engine: string }).engine, "solver");
});

test("solve - a crashing solver is an error (exit 1, no result), not an answer", async () => {
  const r = await solve([CLUE, "--search-ms", "0", "--solver-path", CRASH]);
  assert.equal(r.code, 1, r.stderr);
  assert.deepEqual(r.out, {});
  assert.match(r.stderr, /solver|crash|exit/i);
  assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
});
