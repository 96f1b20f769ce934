/**
 * Certified UNSAT (issue 11, finding 1), with the real parts: the built CLI, an embedded cluster (private
 * nats-server, coordinator, worker processes), real Kissat writing DRAT proofs and real drat-trim checking them.
 * A lying solver (test/fixtures/fake-solvers/lying-unsat.sh) must never yield a certified UNSAT; a genuine UNSAT
 * puzzle must be certified end to end, and its exported bundle must re-check with drat-trim alone (check.sh); with
 * `--proof-format lrat` the placement prover's LRAT proofs re-check with lrat-check and lrat_guard.py.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCubist } from "../helpers/processes.js";
import { checkProof } from "../../certify/drat-trim.js";
import { openBaseCnf, writeCoverageCnf, writeCubeCnf } from "../../certify/cnf.js";
import { runSolver } from "../../host/solver/index.js";
import { solveOnLocalCluster, type LocalClusterResult } from "../../cli/local-cluster.js";
import { generatePuzzle } from "../../core/generate.js";
import { writeCanonical } from "../../core/formats/index.js";

const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const SAT = "test/fixtures/brendan/pieces_04x04.txt";
const LIAR = "test/fixtures/fake-solvers/lying-unsat.sh";
/** Satisfiable (1820 solutions), canonical. */
const SAT_CANONICAL = "test/fixtures/cluster/count-5x5-1820.txt";

async function solve(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: Record<string, unknown>; stderr: string }> {
  const p = spawnCubist(["solve", ...args, "--json"], { env });
  const { code } = await p.exited;
  let out: Record<string, unknown> = {};
  try {
    out = JSON.parse(p.stdout()) as Record<string, unknown>;
  } catch {
    // an error: nothing on stdout
  }
  return { code, out, stderr: p.stderr() };
}

async function withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "cubist-certify-test-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const PIGEONS = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n";

/** A copy of the bundle in `dir`/`name`, with some files replaced. */
async function copyBundle(bundle: string, dir: string, name: string, replace: Record<string, string>): Promise<string> {
  const copy = join(dir, name);
  await cp(bundle, copy, { recursive: true });
  for (const [file, text] of Object.entries(replace)) await writeFile(join(copy, file), text);
  return copy;
}

/** Runs a bundle's check.sh: it must exit 1 with `formula: NOT VERIFIED` first and check no proof. */
function assertFormulaRefused(copy: string, why: RegExp): void {
  const r = spawnSync("sh", [join(copy, "check.sh")], { encoding: "utf8" });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^formula: NOT VERIFIED: /);
  assert.match(r.stdout, why);
  assert.doesNotMatch(r.stdout, /cubes: |coverage: /, "no proof is checked");
}

/**
 * The forgeries of issue 23, finding 7, made from a genuine bundle: a satisfiable puzzle with a 2-variable UNSAT
 * formula whose two cubes unit propagation refutes, with empty proofs (the old check.sh said "cubes: 2/2 VERIFIED"
 * and exited 0); the genuine formula and proofs with another puzzle of the same size; the genuine formula said to
 * be of another variable order or encoding.
 */
async function forgedBundlesFail(bundle: string, dir: string): Promise<void> {
  const proofs = await readdir(join(bundle, "proofs"));
  const emptied = Object.fromEntries(proofs.map((p) => [`proofs/${p}`, ""]));
  const pigeons = await copyBundle(bundle, dir, "pigeons", {
    "puzzle.txt": await readFile(SAT_CANONICAL, "utf8"), "formula.cnf": PIGEONS, "cubes.txt": "a 1 0\nb -1 0\n",
    "proofs/a.drat": "", "proofs/b.drat": "", "coverage.drat": "", ...emptied,
  });
  assertFormulaRefused(pigeons, /formula\.cnf is not the cubist-placement encoding \(order paper\) of puzzle\.txt: it has 2 variables and 4 clauses, the puzzle's encoding \d+ and \d+/);
  // The same forgery with the genuine puzzle kept.
  assertFormulaRefused(await copyBundle(bundle, dir, "pigeons-own-puzzle", { "formula.cnf": PIGEONS, "coverage.drat": "", ...emptied }), /it has 2 variables and 4 clauses/);

  // UNSAT's own source: the same generated 5x5 before its piece 7 was mirrored, so satisfiable, one piece apart.
  const original = writeCanonical(generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 }).puzzle);
  assert.notEqual(original.split("\n").filter((l) => !l.startsWith("#")).join("\n"), (await readFile(UNSAT, "utf8")).split("\n").filter((l) => !l.startsWith("#")).join("\n"));
  const other = await copyBundle(bundle, dir, "other-puzzle", { "puzzle.txt": original });
  assertFormulaRefused(other, /formula\.cnf is not the cubist-placement encoding \(order paper\) of puzzle\.txt: \d+ clauses of the encoding are missing \(e\.g\. -?\d+( -?\d+)* 0\), \d+ others are in their place/);
  const order = await copyBundle(bundle, dir, "other-order", { "encoding.txt": "encoding cubist-placement\norder spiral\n" });
  assertFormulaRefused(order, /not the cubist-placement encoding \(order spiral\)/);
  const encoding = await copyBundle(bundle, dir, "other-encoding", { "encoding.txt": "encoding heule-all\norder paper\n" });
  assertFormulaRefused(encoding, /the formula's encoding is heule-all; this encoder re-derives cubist-placement only/);
}

test("certify - drat-trim verifies Kissat's proof, and rejects a missing, empty, bogus or foreign proof without throwing", async () => {
  await withTemp(async (dir) => {
    await writeFile(join(dir, "f.cnf"), PIGEONS);
    const base = await openBaseCnf(join(dir, "f.cnf"));
    // The cube formula: base + units; the coverage formula: base + negated cubes.
    await writeCubeCnf(base, [1, -2], join(dir, "cube.cnf"));
    assert.equal(await readFile(join(dir, "cube.cnf"), "utf8"), "p cnf 2 6\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n\n1 0\n-2 0\n");
    await writeCoverageCnf(base, [[1, -2], [2]], join(dir, "cov.cnf"));
    assert.equal(await readFile(join(dir, "cov.cnf"), "utf8"), "p cnf 2 6\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n\n-1 2 0\n-2 0\n");

    const solved = await runSolver(join(dir, "f.cnf"), 2, { proofPath: join(dir, "f.drat") });
    assert.equal(solved.kind, "unsat");
    assert.deepEqual({ ...(await checkProof(join(dir, "f.cnf"), join(dir, "f.drat"))), wallMs: 0, cpuMs: 0 }, { verified: true, detail: "", wallMs: 0, cpuMs: 0 });

    const missing = await checkProof(join(dir, "f.cnf"), join(dir, "nope.drat"));
    assert.equal(missing.verified, false);
    await writeFile(join(dir, "empty.drat"), "");
    assert.equal((await checkProof(join(dir, "f.cnf"), join(dir, "empty.drat"))).verified, false);
    // A satisfiable formula: no proof of anything can verify it, whatever the proof says.
    await writeFile(join(dir, "sat.cnf"), "p cnf 2 1\n1 2 0\n");
    await writeFile(join(dir, "bogus.drat"), "0\n");
    const bogus = await checkProof(join(dir, "sat.cnf"), join(dir, "bogus.drat"));
    assert.equal(bogus.verified, false);
    assert.match(bogus.detail, /did not verify/);
    assert.equal((await checkProof(join(dir, "sat.cnf"), join(dir, "f.drat"))).verified, false);
    const noChecker = await checkProof(join(dir, "f.cnf"), join(dir, "f.drat"), { binary: join(dir, "no-such-drat-trim") });
    assert.equal(noChecker.verified, false);
    assert.match(noChecker.detail, /cannot run/);
  });
});

async function liarRun(certify: boolean): Promise<LocalClusterResult> {
  return solveOnLocalCluster(
    { puzzleText: await readFile(SAT, "utf8"), puzzleLabel: SAT, targetCubes: 4, searchMs: 0, solver: "kissat", certify },
    { workers: 1, solverPath: LIAR, maxDeliver: 2 },
  );
}

test("certify - a lying solver never yields a certified UNSAT: without a proof, or with a bogus one, the run fails loudly", async () => {
  try {
    // The flaw itself (finding 1): without certification the liar makes this satisfiable puzzle UNSAT.
    process.env.CUBIST_FAKE_PROOF = "none";
    assert.equal((await liarRun(false)).state, "unsat");
    // No proof: the worker itself reports an error (nothing to upload); the cubes fail after max-deliver.
    const none = await liarRun(true);
    assert.equal(none.state, "failed", none.message);
    assert.deepEqual(none.status.certification, {
      enabled: true, cubeProofsChecked: 0, cubeProofsRejected: 0, cubeProofsPending: 0, coverage: "", coverageProofSha256: "",
      checksByWorkers: 0, checksByCoordinator: 0, workerCheckCpuSeconds: 0, coordinatorCheckCpuSeconds: 0, workerCheckWallSeconds: 0, coordinatorCheckWallSeconds: 0,
    });
    assert.equal(none.status.cubes!.failed, 4);
    // A bogus proof (the empty clause alone) is uploaded, and drat-trim in the coordinator rejects it every time.
    process.env.CUBIST_FAKE_PROOF = "empty-clause";
    const bogus = await liarRun(true);
    assert.equal(bogus.state, "failed", bogus.message);
    assert.equal(bogus.status.certification!.cubeProofsChecked, 0);
    assert.equal(bogus.status.certification!.cubeProofsRejected, 8, "4 cubes, 2 deliveries each, every answer rejected");
    assert.equal(bogus.status.cubes!.unsat, 0);
    assert.equal(bogus.certificate, null);
    // An LRAT empty clause without hints, which lrat-check itself verifies on any formula: the guard rejects it.
    process.env.CUBIST_FAKE_PROOF = "lrat-empty-clause";
    const lrat = await liarRun(true);
    assert.equal(lrat.state, "failed", lrat.message);
    assert.equal(lrat.status.certification!.cubeProofsChecked, 0);
    assert.equal(lrat.status.certification!.cubeProofsRejected, 8);
  } finally {
    delete process.env.CUBIST_FAKE_PROOF;
  }
});

test("certify - a genuine UNSAT puzzle is certified end to end, and its bundle re-checks with drat-trim alone", async () => {
  await withTemp(async (dir) => {
    const bundle = join(dir, "cert");
    const r = await solve([UNSAT, "--certify", "--threads", "2", "--cubes", "8", "--certificate", bundle]);
    assert.equal(r.code, 20, r.stderr);
    assert.equal(r.out.status, "unsat");
    const cubes = (r.out.stats as { cubes: { unsat: number } }).cubes.unsat;
    assert.ok(cubes >= 1);
    assert.deepEqual(r.out.certified, { cubeProofsChecked: cubes, cubeProofsRejected: 0, cubeProofsPending: 0, coverage: "checked" });
    assert.equal(r.out.certificate, bundle);

    const files = (await readdir(bundle)).sort();
    assert.deepEqual(files, ["README.md", "check.sh", "checks.txt", "coverage.drat", "cubes.txt", "encode.py", "encoding.txt", "formula.cnf", "lrat_guard.py", "proofs", "puzzle.txt"]);
    assert.equal(await readFile(join(bundle, "encoding.txt"), "utf8"), "encoding cubist-placement\norder paper\n");
    const lines = (await readFile(join(bundle, "cubes.txt"), "utf8")).trim().split("\n");
    assert.equal(lines.length, cubes);
    assert.equal((await readdir(join(bundle, "proofs"))).length, cubes);
    // Who checked each proof: a checker other than its producer verified every one (checks.txt, for the record).
    const checks = (await readFile(join(bundle, "checks.txt"), "utf8")).trim().split("\n").slice(1).map((l) => l.split(" "));
    for (const line of lines) {
      const id = line.split(" ")[0];
      assert.ok(checks.some(([cube, producer, checker, outcome]) => cube === id && outcome === "verified" && checker !== producer), `cube ${id}: ${JSON.stringify(checks)}`);
    }
    assert.match(await readFile(join(bundle, "README.md"), "utf8"), /drat-trim cube-17\.cnf proofs\/17\.drat/);
    // The same formula `cubist encode` writes.
    const encoded = spawnSync(process.execPath, ["dist/cli/main.js", "encode", UNSAT, "-o", join(dir, "enc.cnf")], { encoding: "utf8" });
    assert.equal(encoded.status, 0, encoded.stderr);
    assert.ok((await readFile(join(dir, "enc.cnf"))).equals(await readFile(join(bundle, "formula.cnf"))), "formula.cnf is cubist encode's output");

    const check = spawnSync("sh", [join(bundle, "check.sh")], { encoding: "utf8" });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /^formula: VERIFIED: formula\.cnf is the cubist-placement encoding \(order paper\) of puzzle\.txt \(\d+ variables, \d+ clauses\)\n/);
    assert.match(check.stdout, new RegExp(`cubes: ${cubes}/${cubes} VERIFIED`));
    assert.match(check.stdout, /coverage: VERIFIED/);

    // Issue 23, finding 7: a bundle whose formula is not its puzzle's fails before any proof is looked at.
    await forgedBundlesFail(bundle, dir);

    // A tampered proof is caught by the bundle's own check. The cube with the largest proof: a cube that unit
    // propagation refutes alone is proved by the empty clause itself, which the tampering writes.
    // The workers' default: the placement prover writes binary DRAT.
    assert.deepEqual(new Set((await readdir(join(bundle, "proofs"))).map((f) => f.split(".").pop())), new Set(["drat"]));
    await assertTamperingCaught(bundle, lines, "drat", "0\n");
  });
});

/** check.sh exits 1 and names the cube whose largest proof is replaced by `forged`. */
async function assertTamperingCaught(bundle: string, cubeLines: string[], ext: string, forged: string): Promise<void> {
  const sizes = await Promise.all(cubeLines.map(async (l) => ({ id: l.split(" ")[0], size: (await stat(join(bundle, "proofs", `${l.split(" ")[0]}.${ext}`))).size })));
  const first = sizes.sort((a, b) => b.size - a.size)[0].id;
  await writeFile(join(bundle, "proofs", `${first}.${ext}`), forged);
  const tampered = spawnSync("sh", [join(bundle, "check.sh")], { encoding: "utf8" });
  assert.equal(tampered.status, 1);
  assert.match(tampered.stdout, new RegExp(`cube ${first.replace(".", "\\.")}: NOT VERIFIED`));
}

test("certify - with --proof-format lrat the placement prover's proofs are LRAT: check.sh verifies them with lrat-check and the guard, and catches a hintless empty clause", async () => {
  await withTemp(async (dir) => {
    const bundle = join(dir, "cert");
    const r = await solve([UNSAT, "--certify", "--proof-format", "lrat", "--threads", "2", "--cubes", "8", "--certificate", bundle]);
    assert.equal(r.code, 20, r.stderr);
    const cubes = (r.out.stats as { cubes: { unsat: number } }).cubes.unsat;
    assert.deepEqual(r.out.certified, { cubeProofsChecked: cubes, cubeProofsRejected: 0, cubeProofsPending: 0, coverage: "checked" });
    assert.deepEqual(new Set((await readdir(join(bundle, "proofs"))).map((f) => f.split(".").pop())), new Set(["lrat"]));
    const check = spawnSync("sh", [join(bundle, "check.sh")], { encoding: "utf8" });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`cubes: ${cubes}/${cubes} VERIFIED`));
    // An empty clause without hints, which lrat-check alone accepts on any formula.
    const lines = (await readFile(join(bundle, "cubes.txt"), "utf8")).trim().split("\n");
    await assertTamperingCaught(bundle, lines, "lrat", "100000000 0 0\n");
  });
});
