/**
 * Formula runs on the cluster (docs/cluster.md "Formula runs"), with a real nats-server, coordinator and worker
 * processes and real Kissat:
 * - `run submit F.cnf --watch`: a satisfiable random 3-SAT formula ends SAT, and `solution show --json` gives a model
 *   that satisfies every clause (evaluated here); a gzipped pigeonhole formula ends UNSAT (exit 20) with every
 *   cube refuted and the weights summing to 1;
 * - a Sudoku ends SAT with a grid the Sudoku verifier accepts;
 * - a small conflict budget makes cubes come back unknown: they are re-split by a deeper lookahead and the answer is Kissat
 *   alone's;
 * - a coordinator SIGKILLed mid-run is replaced and the run ends with Kissat alone's answer, nothing lost;
 * - `run submit F.cnf --certify`: UNSAT only with every cube's Kissat proof checked and the coverage proved, through
 *   re-split cubes and a coordinator SIGKILLed mid-run; `run certificate` exports a bundle whose check.sh passes,
 *   and fails once a proof is edited or a cube dropped;
 * - what a formula run does not take is refused by name, and a bad DIMACS line names file:line.
 * Answers are held against Kissat alone on the whole formula (FORMULAS).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { runCubist, spawnCubist, withTempDir } from "../helpers/processes.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { apiClient, runMidRun, freePort, replaceCoordinator, spawnCoordinator, type CoordinatorUnderTest } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { clauseList, type Cnf } from "../../core/cnf/cnf.js";
import { pigeonhole, randomKSat } from "../../core/cnf/generate.js";
import { dimacsChunks, dimacsString } from "../../core/encode/dimacs.js";
import { parseSudoku } from "../../core/sudoku/format.js";
import { verifySudoku } from "../../core/sudoku/verify.js";
import { runSolver } from "../../host/solver/index.js";
import type { RunInfo } from "../../proto/gen/cubist/v1/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";

/** The formulas of these tests; each answer is Kissat alone's on the whole formula (checked in each test). */
const FORMULAS = {
  sat: () => randomKSat(150, 600, 3, 3),
  php: () => pigeonhole(6),
  /** Pigeonhole 7 into 6: about 0.1 s for Kissat alone; cubes with a budget of 1,000 conflicts are re-split. */
  php7: () => pigeonhole(7),
  /** Random 3-SAT at the threshold, unsatisfiable: Kissat alone takes about 1-2 s, the cubes a few seconds. */
  unsat: () => randomKSat(200, 852, 3, 1),
} as const;

/** A hard 9x9 Sudoku with 17 givens (bench/puzzles/sudoku9-hard.txt's third). */
const SUDOKU = "# name: hard17\n" + [
  "...8.1...", ".......43", "5........", "....7.8..", "......1..", ".2..3....", "6......75", "..34.....", "...2..6..",
].join("\n") + "\n";

async function kissatAlone(cnf: Cnf): Promise<string> {
  return (await runSolver(dimacsChunks(cnf), cnf.numVars)).kind;
}

/** A worker with two solver slots and a coordinator, on a private nats-server, torn down and checked for leftovers. */
async function withCluster(fn: (c: { t: TestNats; coordinator: CoordinatorUnderTest; port: number; env: Record<string, string>; replace(next: CoordinatorUnderTest): void }) => Promise<void>): Promise<void> {
  const t = await startTestNats();
  const marker = newMarker();
  const port = await freePort();
  const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "2", "--id", "w1", "--grace", "0"], { env: marker.env });
  let coordinator = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
  const killed: CoordinatorUnderTest[] = [];
  try {
    await fn({ t, coordinator, port, env: marker.env, replace: (next) => { killed.push(coordinator); coordinator = next; } });
  } finally {
    worker.kill("SIGTERM");
    coordinator.proc.kill("SIGTERM");
    await Promise.all([worker.exited, coordinator.proc.exited, ...killed.map((k) => k.proc.exited)]);
    await t.close();
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
}

test("formula cluster - run submit F.cnf: SAT with a model that satisfies every clause, a gzipped pigeonhole UNSAT with every cube refuted", withTempDir("formula-run", async (dir) => {
  await withCluster(async ({ coordinator }) => {
    const sat = FORMULAS.sat();
    assert.equal(await kissatAlone(sat), "sat");
    const satFile = join(dir, "r150.cnf");
    writeFileSync(satFile, dimacsString(sat));
    const a = await runCubist(["run", "submit", satFile, "--coordinator", coordinator.address, "--watch", "--json", "--cubes", "16"]);
    assert.equal(a.code, 0, a.stderr);
    const submitted = JSON.parse(a.stdout.split("\n")[0]) as { run: string; shape: string; rows: number; cols: number; encoding: string };
    assert.deepEqual([submitted.shape, submitted.rows, submitted.cols, submitted.encoding], ["formula", 1, 150, "dimacs"]);
    const runId = submitted.run;
    const shown = await runCubist(["solution", "show", runId, "--coordinator", coordinator.address, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    const sol = JSON.parse(shown.stdout) as { status: string; shape: string; vars: number; board: number[] };
    assert.deepEqual([sol.status, sol.shape, sol.vars, sol.board.length], ["sat", "cnf", 150, 150]);
    const truth = new Set(sol.board);
    assert.ok(clauseList(sat).every((c) => c.some((l) => truth.has(l))), "the model falsifies a clause");
    const text = await runCubist(["solution", "show", runId, "--coordinator", coordinator.address]);
    assert.match(text.stdout, /^s SATISFIABLE$/m);

    const php = FORMULAS.php();
    assert.equal(await kissatAlone(php), "unsat");
    const phpFile = join(dir, "php6.cnf.gz");
    writeFileSync(phpFile, gzipSync(dimacsString(php)));
    const b = await runCubist(["run", "submit", phpFile, "--coordinator", coordinator.address, "--watch", "--json", "--cubes", "16"]);
    assert.equal(b.code, 20, b.stderr);
    const phpRun = (JSON.parse(b.stdout.split("\n")[0]) as { run: string }).run;
    const api = apiClient(coordinator.address);
    try {
      const info = await api.call<unknown, RunInfo>("getRun", { runId: phpRun });
      const s = info.status!;
      assert.deepEqual([s.state, info.encoding, info.numVars, s.cubes!.failed, s.rejectedModels], [RunState.RUN_STATE_UNSAT, "dimacs", 42, 0, 0]);
      assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    } finally {
      api.close();
    }
    // A formula run's cubes are listed as their literals.
    const cubes = await runCubist(["cubes", "list", phpRun, "--placements", "--coordinator", coordinator.address]);
    assert.equal(cubes.code, 0, cubes.stderr);
    assert.match(cubes.stdout, /(^|\s)-?\d+ -?\d+ -?\d+(\s|$)/m);
    assert.doesNotMatch(cubes.stdout, /r0c\d+=p/);
  });
}));

test("formula cluster - run submit P.sudoku: SAT with a grid the Sudoku verifier accepts", withTempDir("formula-run", async (dir) => {
  await withCluster(async ({ coordinator }) => {
    const file = join(dir, "hard17.sudoku");
    writeFileSync(file, SUDOKU);
    const r = await runCubist(["run", "submit", file, "--coordinator", coordinator.address, "--watch", "--json", "--redundant"]);
    assert.equal(r.code, 0, r.stderr);
    const runId = (JSON.parse(r.stdout.split("\n")[0]) as { run: string }).run;
    const shown = await runCubist(["solution", "show", runId, "--coordinator", coordinator.address, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    const sol = JSON.parse(shown.stdout) as { shape: string; size: number; board: number[][]; puzzle: string };
    assert.deepEqual([sol.shape, sol.size, sol.puzzle], ["sudoku", 9, "hard17"]);
    const puzzle = parseSudoku(SUDOKU, "hard17");
    assert.deepEqual(verifySudoku(puzzle, { ...puzzle, cells: sol.board.flat() }), { ok: true });
    const text = await runCubist(["solution", "show", runId, "--coordinator", coordinator.address]);
    assert.match(text.stdout, /^solution 0 \(verified\) of run .* \(hard17, Sudoku 9x9\)/);
  });
}));

test("formula cluster - a small conflict budget: unknown cubes are re-split by a deeper lookahead, and the run ends with Kissat alone's answer", withTempDir("formula-run", async (dir) => {
  // Pigeonhole 7 into 6: Kissat alone refutes it in about 0.1 s, yet its cubes need more than 1,000 conflicts each.
  const cnf = FORMULAS.php7();
  assert.equal(await kissatAlone(cnf), "unsat");
  await withCluster(async ({ coordinator }) => {
    const file = join(dir, "php7.cnf");
    writeFileSync(file, dimacsString(cnf));
    const r = await runCubist(["run", "submit", file, "--coordinator", coordinator.address, "--watch", "--json", "--cubes", "2", "--cube-conflicts", "1000"]);
    assert.equal(r.code, 20, r.stderr);
    const runId = (JSON.parse(r.stdout.split("\n")[0]) as { run: string }).run;
    const api = apiClient(coordinator.address);
    try {
      const s = (await api.call<unknown, RunInfo>("getRun", { runId })).status!;
      assert.equal(s.state, RunState.RUN_STATE_UNSAT, s.message);
      assert.ok(s.cubes!.resplit > 0, `no cube was re-split: ${JSON.stringify(s.cubes)}`);
      assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    } finally {
      api.close();
    }
  });
}));

test("formula resume - coordinator SIGKILLed mid-run: a new one resumes the CNF run from the ledger and it ends UNSAT", withTempDir("formula-run", async (dir) => {
  const cnf = FORMULAS.unsat();
  await withCluster(async ({ t, coordinator, port, env, replace }) => {
    const api = apiClient(coordinator.address);
    let runId: string;
    try {
      const { run } = await api.call<unknown, { run: RunInfo }>("submitRun", {
        puzzleText: dimacsString(cnf), puzzleName: join(dir, "r200.cnf"), format: "dimacs", cubing: { targetCubes: 32 },
      });
      runId = run.runId;
      assert.equal(run.encoding, "dimacs");
      // Some cubes refuted, the run still going: then the kill.
      await runMidRun(api.call, runId, (s) => s.cubes!.unsat >= 2, "cube was refuted");
    } finally {
      api.close();
    }
    const replaced = await replaceCoordinator(t, coordinator, env, port, runId);
    replace(replaced.next);
    const s = replaced.info.status!;
    assert.equal(s.state, RunState.RUN_STATE_UNSAT, s.message);
    assert.deepEqual([s.cubes!.failed, s.rejectedModels], [0, 0]);
    assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
  });
}));

/** Runs a bundle's check.sh: its exit code and output. */
function checkBundle(dir: string): { code: number | null; out: string } {
  const r = spawnSync("sh", [join(dir, "check.sh")], { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** Exports run `runId`'s certificate into `out`; returns the number of cube proofs. */
async function exportCertificate(address: string, runId: string, out: string): Promise<number> {
  const r = await runCubist(["run", "certificate", runId, "-o", out, "--coordinator", address]);
  assert.equal(r.code, 0, r.stderr);
  return readdirSync(join(out, "proofs")).length;
}

test("formula certify - run submit F.cnf --certify, re-split cubes and a coordinator SIGKILLed mid-run: UNSAT with every cube's proof checked; check.sh passes, and fails on an edited proof or a dropped cube", withTempDir("formula-run", async (dir) => {
  const file = join(dir, "php7.cnf");
  writeFileSync(file, dimacsString(FORMULAS.php7()));
  await withCluster(async ({ t, coordinator, port, env, replace }) => {
    const api = apiClient(coordinator.address);
    try {
      // As `run submit php7.cnf --certify --cubes 2 --cube-conflicts 1000 --id php7-cert` sends it.
      await api.call("submitRun", {
        puzzleText: readFileSync(file, "utf8"), puzzleName: file, format: "dimacs", certify: true, runId: "php7-cert",
        cubing: { targetCubes: 2 }, solver: { conflictLimit: 1000 },
      });
      // A cube's proof checked and recorded, the run still going: then the kill.
      await runMidRun(api.call, "php7-cert", (s) => s.certification!.cubeProofsChecked >= 1, "cube proof was checked");
    } finally {
      api.close();
    }
    const replaced = await replaceCoordinator(t, coordinator, env, port, "php7-cert");
    replace(replaced.next);
    const address = replaced.next.address;
    const s = replaced.info.status!;
    assert.equal(s.state, RunState.RUN_STATE_UNSAT, s.message);
    assert.match(s.message, /^certified: (\d+)\/\1 cube proofs checked, coverage checked/);
    assert.ok(s.cubes!.resplit > 0, `no cube was re-split: ${JSON.stringify(s.cubes)}`);
    const n = s.cubes!.unsat;
    const c = s.certification!;
    assert.deepEqual([s.cubes!.failed, c.cubeProofsChecked, c.cubeProofsRejected, c.cubeProofsPending, c.coverage], [0, n, 0, 0, "checked"]);

    const bundle = join(dir, "bundle");
    assert.equal(await exportCertificate(address, "php7-cert", bundle), n);
    assert.deepEqual(readdirSync(bundle).sort(), ["README.md", "check.sh", "checks.txt", "coverage.drat", "cubes.txt", "formula.cnf", "proofs"]);
    assert.equal(readFileSync(join(bundle, "formula.cnf"), "utf8"), readFileSync(file, "utf8").replace(/^c .*\n/gm, ""));
    const good = checkBundle(bundle);
    assert.equal(good.code, 0, good.out);
    assert.match(good.out, new RegExp(`coverage: VERIFIED\ncubes: ${n}/${n} VERIFIED`));

    // Tampered with: the proof of the cube whose proof is longest (the hardest) cut short, and the second hardest
    // left out of cubes.txt. check.sh names both: that cube's proof, and the coverage, which needs every cube.
    const size = (f: string): number => statSync(join(bundle, "proofs", f)).size;
    const [edited, dropped] = readdirSync(join(bundle, "proofs")).sort((a, b) => size(b) - size(a)).map((f) => f.replace(/\.drat$/, ""));
    const tampered = join(dir, "tampered");
    cpSync(bundle, tampered, { recursive: true });
    const proof = readFileSync(join(bundle, "proofs", `${edited}.drat`));
    writeFileSync(join(tampered, "proofs", `${edited}.drat`), proof.subarray(0, Math.floor(proof.length / 2)));
    const cubes = readFileSync(join(bundle, "cubes.txt"), "utf8").split("\n").filter((l) => !l.startsWith(`${dropped} `));
    writeFileSync(join(tampered, "cubes.txt"), cubes.join("\n"));
    const bad = checkBundle(tampered);
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, new RegExp(`^cube ${edited}: NOT VERIFIED$`, "m"));
    assert.match(bad.out, /^coverage: NOT VERIFIED$/m);
    assert.match(bad.out, new RegExp(`^cubes: ${n - 2}/${n - 1} VERIFIED$`, "m"));
  });
}));

test("formula cluster - refused by name: --all, a bad DIMACS line (file:line)", withTempDir("formula-run", async (dir) => {
  await withCluster(async ({ coordinator }) => {
    const file = join(dir, "php.cnf");
    writeFileSync(file, dimacsString(FORMULAS.php()));
    const all = await runCubist(["run", "submit", file, "--coordinator", coordinator.address, "--all"]);
    assert.equal(all.code, 1);
    assert.match(all.stderr, /counting is not for a formula run/);
    const bad = join(dir, "bad.cnf");
    writeFileSync(bad, "p cnf 3 2\n1 -2 0\n1 x 0\n");
    const r = await runCubist(["run", "submit", bad, "--coordinator", coordinator.address]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.cnf:3:/);
  });
}));
