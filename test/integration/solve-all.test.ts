/**
 * `cubist solve PUZZLE --all` on one machine, as a user runs it: the built CLI and the native engine split over
 * processes. Counts are checked against the TypeScript engine (core/cubes/search.ts, the oracle) and every written
 * board against the verifier.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCubist } from "../helpers/processes.js";
import { readBoardJSON, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { searchPlacements } from "../../core/cubes/search.js";
import { verifySolution } from "../../core/verify.js";
import type { Puzzle } from "../../core/puzzle.js";

const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";

function oracleCount(puzzle: Puzzle): number {
  const r = searchPlacements(puzzle, { findAll: true });
  assert.ok(r.kind !== "unknown");
  return r.kind === "sat" ? r.solutions : 0;
}

test("solve --all - the count equals the oracle's on generated boards, on one and on two processes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-all-"));
  try {
    for (const [rows, cols, b, c, seed] of [[3, 3, 1, 2, 1], [4, 4, 2, 2, 3], [3, 5, 2, 3, 7], [4, 4, 1, 3, 9]]) {
      const { puzzle } = generatePuzzle({ rows, cols, borderColors: b, centerColors: c, seed });
      const file = join(dir, `g${rows}x${cols}-${seed}.txt`);
      writeFileSync(file, writeCanonical(puzzle));
      const want = oracleCount(puzzle);
      for (const threads of ["1", "2"]) {
        const r = await runCubist(["solve", file, "--all", "--json", "--threads", threads]);
        assert.equal(r.code, want > 0 ? 0 : 20, r.stderr);
        const out = JSON.parse(r.stdout) as { status: string; count: number; complete: boolean };
        assert.deepEqual([out.count, out.complete, out.status], [want, true, want > 0 ? "sat" : "unsat"], `${file} on ${threads}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("solve --all -o - every board written verifies and no board is written twice; --limit makes a lower bound", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-all-"));
  try {
    const { puzzle } = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
    const file = join(dir, "g.txt"), out = join(dir, "boards.ndjson");
    writeFileSync(file, writeCanonical(puzzle));
    const want = oracleCount(puzzle);
    assert.ok(want > 20, `${want} solutions`);
    const r = await runCubist(["solve", file, "--all", "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    // The count is the answer: on stdout (with -o - the boards take stdout, and the count goes to stderr).
    assert.match(r.stdout, new RegExp(`^${puzzle.name}: exactly ${want} solutions in \\d+\\.\\d\\d s, every board verified and written to `));
    const piped = await runCubist(["solve", file, "--all", "-o", "-"]);
    assert.equal(piped.stdout.trim().split("\n").length, want, "one board per line, nothing else");
    assert.match(piped.stderr, new RegExp(`^${puzzle.name}: exactly ${want} solutions in `));
    const lines = readFileSync(out, "utf8").trim().split("\n");
    assert.equal(lines.length, want);
    assert.equal(new Set(lines).size, want, "distinct boards");
    for (const line of lines) {
      const board = readBoardJSON((JSON.parse(line) as { board: never }).board, puzzle);
      assert.deepEqual(verifySolution(puzzle, board), { ok: true });
    }
    const limited = await runCubist(["solve", file, "--all", "--limit", "5", "--json", "-o", out]);
    assert.equal(limited.code, 0, limited.stderr);
    assert.deepEqual(JSON.parse(limited.stdout), { ...JSON.parse(limited.stdout), count: 5, complete: false, reason: "limit" });
    assert.equal(readFileSync(out, "utf8").trim().split("\n").length, 5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("solve --all - an unsatisfiable puzzle counts 0, complete (exit 20), alone and with --workers", async () => {
  const r = await runCubist(["solve", UNSAT, "--all", "--json"]);
  assert.equal(r.code, 20, r.stderr);
  const out = JSON.parse(r.stdout) as { status: string; count: number; complete: boolean };
  assert.deepEqual([out.status, out.count, out.complete], ["unsat", 0, true]);
  const cluster = await runCubist(["solve", UNSAT, "--all", "--workers", "1", "--json"]);
  assert.equal(cluster.code, 20, cluster.stderr);
  const c = JSON.parse(cluster.stdout) as { status: string; count: number; complete: boolean };
  assert.deepEqual([c.status, c.count, c.complete], ["unsat", 0, true]);
  const stray = await runCubist(["solve", UNSAT, "--limit", "3"]);
  assert.equal(stray.code, 1);
  assert.match(stray.stderr, /limit: goes with --all/);
});
