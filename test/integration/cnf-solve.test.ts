/**
 * Any CNF on one machine, with real Kissat: `cubist solve F.cnf` through the built CLI (plain and gzipped, SAT and
 * UNSAT, bad files), and the cube-and-conquer loop in process on random 3-SAT at the threshold, whose answers are
 * held against Kissat alone on the whole formula and whose models are checked here clause by clause.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { runCubist, withTempDir } from "../helpers/processes.js";
import { clauseList, type Cnf } from "../../core/cnf/cnf.js";
import { pigeonhole, randomKSat } from "../../core/cnf/generate.js";
import { dimacsChunks, dimacsString } from "../../core/encode/dimacs.js";
import { runSolver } from "../../host/solver/index.js";
import { solveCnfLocal } from "../../cli/solve-cnf.js";

/** The literals of the `v` lines, and whether they satisfy every clause (evaluated here, apart from the product). */
function satisfies(cnf: Cnf, lits: number[]): boolean {
  const truth = new Set(lits);
  return lits.length === cnf.numVars && clauseList(cnf).every((c) => c.some((l) => truth.has(l)));
}

function vLits(stdout: string): number[] {
  const lits = stdout.split("\n").filter((l) => l.startsWith("v ")).flatMap((l) => l.slice(2).trim().split(/\s+/).map(Number));
  assert.equal(lits.pop(), 0, "the v lines end with 0");
  return lits;
}

test("solve cnf - a satisfiable random 3-SAT file: s SATISFIABLE and a model that satisfies every clause", withTempDir("cnf", async (dir) => {
  const cnf = randomKSat(120, 480, 3, 11);
  const file = join(dir, "r.cnf");
  writeFileSync(file, dimacsString(cnf));
  const r = await runCubist(["solve", file, "--threads", "2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^s SATISFIABLE$/m);
  assert.ok(satisfies(cnf, vLits(r.stdout)));
}));

test("solve cnf - pigeonhole, gzipped: s UNSATISFIABLE (exit 20); --json carries the cube counts", withTempDir("cnf", async (dir) => {
  const file = join(dir, "php.cnf.gz");
  writeFileSync(file, gzipSync(dimacsString(pigeonhole(6))));
  const r = await runCubist(["solve", file, "--threads", "2", "--max-depth", "4"]);
  assert.equal(r.code, 20, r.stderr);
  assert.match(r.stdout, /^s UNSATISFIABLE$/m);
  const j = await runCubist(["solve", file, "--threads", "2", "--max-depth", "4", "--json"]);
  const out = JSON.parse(j.stdout) as { status: string; model: null; stats: { cubes: number; refuted: number; solved: number } };
  assert.equal(out.status, "unsat");
  assert.equal(out.model, null);
  assert.equal(out.stats.solved, out.stats.cubes);
  assert.ok(out.stats.cubes + out.stats.refuted > 1);
}));

test("solve cnf - bad files: file:line for a bad literal, the formula limit, a refused flag", withTempDir("cnf", async (dir) => {
  const bad = join(dir, "bad.cnf");
  writeFileSync(bad, "p cnf 2 1\n1 3 0\n");
  const r = await runCubist(["solve", bad]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bad\.cnf:2: literal 3 names a variable beyond the header's 2/);
  const big = join(dir, "big.cnf.gz");
  writeFileSync(big, gzipSync(`p cnf 3 30000\n${"1 2 3 0\n".repeat(30000)}`));
  const limit = await runCubist(["solve", big, "--max-formula-mb", "0.1"]);
  assert.equal(limit.code, 1);
  assert.match(limit.stderr, /big\.cnf\.gz \(decompressed\) is .* above the limit of 103 KB/);
  const all = await runCubist(["solve", bad, "--all"]);
  assert.match(all.stderr, /--all: is not for a DIMACS formula/);
  // run submit reads and parses the file before it contacts a coordinator, within the puzzle text limit.
  const submit = await runCubist(["run", "submit", bad]);
  assert.equal(submit.code, 1);
  assert.match(submit.stderr, /bad\.cnf:2: literal 3 names a variable beyond the header's 2/);
  const submitBig = await runCubist(["run", "submit", big, "--max-puzzle-mb", "0.1"]);
  assert.equal(submitBig.code, 1);
  assert.match(submitBig.stderr, /big\.cnf\.gz \(decompressed\) is .* above the limit of 103 KB .*--max-puzzle-mb/);
}));

test("solve cnf - cube and conquer agrees with Kissat alone on random 3-SAT at the threshold", async () => {
  let sat = 0, unsat = 0;
  for (let seed = 1; seed <= 10; seed++) {
    const cnf = randomKSat(80, 341, 3, seed);
    const alone = await runSolver(dimacsChunks(cnf), cnf.numVars);
    const cubed = await solveCnfLocal(cnf, { workers: 2, maxDepth: 3 + (seed % 4) });
    assert.equal(cubed.status, alone.kind, `seed ${seed}`);
    if (cubed.status === "sat") {
      sat++;
      const lits = Array.from({ length: cnf.numVars }, (_, i) => (cubed.model[i + 1] === 1 ? i + 1 : -(i + 1)));
      assert.ok(satisfies(cnf, lits), `seed ${seed}: the model`);
    } else unsat++;
    assert.ok(cubed.stats.solved <= cubed.stats.cubes);
  }
  assert.ok(sat > 0 && unsat > 0, `${sat} sat, ${unsat} unsat: both kinds are exercised`);
});

test("solve cnf --certify - pigeonhole: every cube (refuted leaves too) and the coverage proved; check.sh re-checks, and fails on a damaged proof", withTempDir("cnf", async (dir) => {
  const file = join(dir, "php5.cnf"), cert = join(dir, "cert");
  writeFileSync(file, dimacsString(pigeonhole(5)));
  // Depth 4: 12 cubes for Kissat and 2 refuted by the lookahead, each with its proof (depth 6 made 16 and 14: twice
  // the proofs to check, for the same kinds).
  const r = await runCubist(["solve", file, "--threads", "2", "--max-depth", "4", "--certify", "--certificate", cert]);
  assert.equal(r.code, 20, r.stderr);
  assert.match(r.stdout, /^c every cube's DRAT proof and the coverage proof verified by drat-trim/m);
  const open = Number(/c cubes (\d+) open, (\d+) refuted/.exec(r.stdout)![1]), refuted = Number(/c cubes (\d+) open, (\d+) refuted/.exec(r.stdout)![2]);
  assert.ok(open > 0 && refuted > 0, r.stdout);
  assert.equal(readFileSync(join(cert, "cubes.txt"), "utf8").trim().split("\n").length, open + refuted);
  const check = spawnSync("sh", ["check.sh"], { cwd: cert, encoding: "utf8" });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /coverage: VERIFIED/);
  writeFileSync(join(cert, "proofs", "1.drat"), "");
  const damaged = spawnSync("sh", ["check.sh"], { cwd: cert, encoding: "utf8" });
  assert.equal(damaged.status, 1);
  assert.match(damaged.stdout, /cube 1: NOT VERIFIED/);
  const sat = join(dir, "sat.cnf");
  writeFileSync(sat, dimacsString(randomKSat(60, 200, 3, 3)));
  const s = await runCubist(["solve", sat, "--certify"]);
  assert.equal(s.code, 0, s.stderr);
  assert.match(s.stdout, /^s SATISFIABLE$/m);
}));
