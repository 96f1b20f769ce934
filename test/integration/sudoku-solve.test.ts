/**
 * Sudoku through the built CLI with real Kissat: `solve` (9x9, 16x16), `solve --all` (unique, a count held against
 * a plain backtracking count of the test's own, a limit), an unsatisfiable puzzle, `verify` and `render`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCubist, withTempDir } from "../helpers/processes.js";
import { parseSudoku } from "../../core/sudoku/format.js";
import type { Sudoku } from "../../core/sudoku/sudoku.js";

const PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/** The solutions of a 4x4 by backtracking, counted here (apart from the encoding and the verifier). */
function count4(cells: number[]): number {
  const at = (r: number, c: number): number => cells[r * 4 + c];
  const fits = (i: number, d: number): boolean => {
    const r = Math.floor(i / 4), c = i % 4, br = r - (r % 2), bc = c - (c % 2);
    for (let k = 0; k < 4; k++) if (at(r, k) === d || at(k, c) === d || at(br + (k >> 1), bc + (k & 1)) === d) return false;
    return true;
  };
  const go = (i: number): number => {
    if (i === 16) return 1;
    if (cells[i] !== 0) return go(i + 1);
    let n = 0;
    for (let d = 1; d <= 4; d++) {
      if (!fits(i, d)) continue;
      cells[i] = d;
      n += go(i + 1);
      cells[i] = 0;
    }
    return n;
  };
  return go(0);
}

test("sudoku solve - a 9x9 one-liner: the known solution, verified; --all says unique; --redundant with cubes agrees", withTempDir("sudoku", async (dir) => {
  const file = join(dir, "classic.sudoku");
  writeFileSync(file, `${PUZZLE}\n`);
  for (const extra of [[], ["--redundant", "--max-depth", "3"]]) {
    const r = await runCubist(["solve", file, "--threads", "2", "--json", ...extra]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { line: string }).line, SOLUTION);
  }
  const all = await runCubist(["solve", file, "--all"]);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /^classic: unique \(exactly 1 solution\)/);
}));

test("sudoku solve --all - 4x4 counts equal a backtracking count; --limit stops at a lower bound; -o writes each", withTempDir("sudoku", async (dir) => {
  const boards = [".2..\n....\n....\n..1.\n", "1...\n..3.\n....\n...4\n", "12..\n34..\n....\n....\n"];
  for (const [i, text] of boards.entries()) {
    const file = join(dir, `s${i}.sudoku`), out = join(dir, `s${i}.txt`);
    writeFileSync(file, text);
    const want = count4([...parseSudoku(text, "t").cells]);
    const r = await runCubist(["solve", file, "--all", "--json", "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { status: "sat", count: want, complete: true, unique: want === 1 });
    const lines = readFileSync(out, "utf8").trim().split("\n");
    assert.equal(new Set(lines).size, want);
  }
  const limited = await runCubist(["solve", join(dir, "s0.sudoku"), "--all", "--limit", "3"]);
  assert.match(limited.stdout, /at least 3 solutions \(limit\)/);
}));

test("sudoku solve - 16x16 with few givens, an unsatisfiable puzzle (exit 20)", withTempDir("sudoku", async (dir) => {
  const file = join(dir, "h.sudoku");
  writeFileSync(file, ["1...............", ".....2..........", ...Array(14).fill("................")].join("\n"));
  const r = await runCubist(["solve", file, "--threads", "2", "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const grid = (JSON.parse(r.stdout) as { grid: number[][] }).grid;
  const solved: Sudoku = { box: 4, size: 16, cells: grid.flat() };
  for (let i = 0; i < 16; i++) {
    assert.equal(new Set(grid[i]).size, 16);
    assert.equal(new Set(grid.map((row) => row[i])).size, 16);
  }
  assert.equal(solved.cells[0], 1);
  const bad = join(dir, "bad.sudoku");
  writeFileSync(bad, "11..\n....\n....\n....\n");
  const u = await runCubist(["solve", bad]);
  assert.equal(u.code, 20, u.stderr);
  assert.match(u.stdout, /^unsat: bad has no solution/);
}));

test("sudoku verify and render - a solution passes, a wrong one is named; render marks nothing without --color", withTempDir("sudoku", async (dir) => {
  const puzzle = join(dir, "p.sudoku"), good = join(dir, "good.sudoku"), wrong = join(dir, "wrong.sudoku");
  writeFileSync(puzzle, PUZZLE);
  writeFileSync(good, SOLUTION);
  writeFileSync(wrong, `4${SOLUTION.slice(1)}`);
  const ok = await runCubist(["verify", puzzle, good]);
  assert.equal(ok.code, 0, ok.stderr);
  const no = await runCubist(["verify", puzzle, wrong, "--json"]);
  assert.equal(no.code, 1);
  assert.ok((JSON.parse(no.stdout) as { violations: string[] }).violations.includes("row 1, column 1 holds 4, the puzzle gives 5"));
  const shown = await runCubist(["render", puzzle, good]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout.split("\n")[0], "5 3 4 | 6 7 8 | 9 1 2");
  const bad = join(dir, "bad.sudoku");
  writeFileSync(bad, "123456789\n12x\n");
  const e = await runCubist(["verify", bad, good]);
  assert.equal(e.code, 1);
  assert.match(e.stderr, /bad\.sudoku:2: /);
}));
