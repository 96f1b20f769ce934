/**
 * `cubist solve F.cnf --workers N` and `solve P.sudoku --workers N`: the formula as a formula run on the embedded
 * cluster (a private nats-server, the coordinator's lookahead cubes, real Kissat per cube in the workers), printed
 * as `solve` prints it on one machine. Tiny formulas, run side by side: a satisfiable random 3-SAT whose `v` lines
 * satisfy every clause (evaluated here), a pigeonhole formula UNSAT (exit 20, --json with every open cube solved), a
 * hard 9x9 Sudoku whose grid the Sudoku verifier accepts; answers held against Kissat alone. What a formula run
 * refuses is refused before any cluster starts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCubist, withTempDir } from "../helpers/processes.js";
import { clauseList } from "../../core/cnf/cnf.js";
import { pigeonhole, randomKSat } from "../../core/cnf/generate.js";
import { dimacsChunks, dimacsString } from "../../core/encode/dimacs.js";
import { parseSudoku } from "../../core/sudoku/format.js";
import { verifySudoku } from "../../core/sudoku/verify.js";
import { runSolver } from "../../host/solver/index.js";

/** A hard 9x9 Sudoku with 17 givens (bench/puzzles/sudoku9-hard.txt's third). */
const SUDOKU = "# name: hard17\n...8.1...\n.......43\n5........\n....7.8..\n......1..\n.2..3....\n6......75\n..34.....\n...2..6..\n";

function vLits(stdout: string): number[] {
  const lits = stdout.split("\n").filter((l) => l.startsWith("v ")).flatMap((l) => l.slice(2).trim().split(/\s+/).map(Number));
  assert.equal(lits.pop(), 0, "the v lines end with 0");
  return lits;
}

test("solve formula --workers - SAT with a model that satisfies every clause, a certified pigeonhole UNSAT (exit 20), a hard Sudoku verified, a certified UNSAT Sudoku, on the embedded cluster", withTempDir("formula-solve", async (dir) => {
  const sat = randomKSat(80, 320, 3, 5), php = pigeonhole(4);
  assert.deepEqual([(await runSolver(dimacsChunks(sat), sat.numVars)).kind, (await runSolver(dimacsChunks(php), php.numVars)).kind], ["sat", "unsat"]);
  const satFile = join(dir, "r80.cnf"), phpFile = join(dir, "php4.cnf"), sudokuFile = join(dir, "hard17.sudoku"), bundle = join(dir, "bundle");
  writeFileSync(satFile, dimacsString(sat));
  writeFileSync(phpFile, dimacsString(php));
  writeFileSync(sudokuFile, SUDOKU);
  // The hard Sudoku with a wrong digit in a corner that clashes with no given: UNSAT only by search.
  const unsatSudokuFile = join(dir, "hard17-x.sudoku"), sudokuBundle = join(dir, "sudoku-bundle");
  writeFileSync(unsatSudokuFile, SUDOKU.replace("\n...8.1...\n", "\n3..8.1...\n"));
  const [a, b, c, d] = await Promise.all([
    runCubist(["solve", satFile, "--workers", "2", "--cubes", "4"]),
    runCubist(["solve", phpFile, "--workers", "1", "--concurrency", "2", "--cubes", "8", "--json", "--certify", "--certificate", bundle]),
    runCubist(["solve", sudokuFile, "--workers", "2", "--cubes", "4", "--json"]),
    runCubist(["solve", unsatSudokuFile, "--certify", "--cubes", "4", "--certificate", sudokuBundle]),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stdout, /^c run \S+ on a local cluster of 2 workers/m);
  assert.match(a.stdout, /^s SATISFIABLE$/m);
  const truth = new Set(vLits(a.stdout));
  assert.ok(truth.size === sat.numVars && clauseList(sat).every((cl) => cl.some((l) => truth.has(l))), "the model falsifies a clause");

  assert.equal(b.code, 20, b.stderr);
  const u = JSON.parse(b.stdout) as { status: string; model: null; vars: number; workers: number; stats: { cubes: number; solved: number; refuted: number; unsat: number }; certified: { cubeProofsChecked: number; cubeProofsRejected: number; coverage: string } | null; certificate: string | null };
  assert.deepEqual([u.status, u.model, u.vars, u.workers], ["unsat", null, php.numVars, 1]);
  assert.equal(u.stats.solved, u.stats.cubes);
  // Certified: every refuted cube's Kissat proof and the coverage checked, and the bundle re-checks on its own.
  assert.deepEqual([u.certified?.cubeProofsChecked, u.certified?.cubeProofsRejected, u.certified?.coverage, u.certificate], [u.stats.unsat, 0, "checked", bundle]);
  const recheck = spawnSync("sh", [join(bundle, "check.sh")], { cwd: bundle, encoding: "utf8" });
  assert.equal(recheck.status, 0, recheck.stdout + recheck.stderr);
  assert.ok(u.stats.cubes + u.stats.refuted > 1, JSON.stringify(u.stats));

  assert.equal(c.code, 0, c.stderr);
  const s = JSON.parse(c.stdout) as { status: string; size: number; grid: number[][]; line: string; givens: number };
  assert.deepEqual([s.status, s.size, s.givens, s.line.length], ["sat", 9, 17, 81]);
  const puzzle = parseSudoku(SUDOKU, "hard17");
  assert.deepEqual(verifySudoku(puzzle, { ...puzzle, cells: s.grid.flat() }), { ok: true });

  // A Sudoku with --certify is a certified formula run on the embedded cluster; its bundle re-checks on its own.
  assert.equal(d.code, 20, d.stderr);
  assert.match(d.stdout, /^unsat: hard17 has no solution .*\ncertified: (\d+)\/\1 cube proofs checked, coverage checked; certificate in /m);
  const sudokuCheck = spawnSync("sh", [join(sudokuBundle, "check.sh")], { cwd: sudokuBundle, encoding: "utf8" });
  assert.equal(sudokuCheck.status, 0, sudokuCheck.stdout + sudokuCheck.stderr);
}));

test("solve formula --workers - what a formula run refuses is refused by name before a cluster starts", withTempDir("formula-solve", async (dir) => {
  const phpFile = join(dir, "php3.cnf"), sudokuFile = join(dir, "hard17.sudoku");
  writeFileSync(phpFile, dimacsString(pigeonhole(3)));
  writeFileSync(sudokuFile, SUDOKU);
  const [count, order] = await Promise.all([
    runCubist(["solve", sudokuFile, "--workers", "2", "--all"]),
    runCubist(["solve", phpFile, "--workers", "2", "--cell-order", "scan"]),
  ]);
  assert.deepEqual([count.code, order.code], [1, 1]);
  assert.match(count.stderr, /counting is not for a formula run/);
  assert.match(order.stderr, /a formula splits by lookahead, not "scan"/);
  for (const r of [count, order]) assert.doesNotMatch(r.stderr, /starting a local cluster/);
}));
