/**
 * Certified UNSAT of a DIMACS formula, three ways side by side on one unsatisfiable random 3-SAT formula at the
 * threshold (4.26 clauses per variable, seeded with core/cnf/generate.ts; the first seed from --seed up whose formula
 * Kissat alone refutes): a formula run on the cluster without --certify, the same run with --certify (every cube's
 * Kissat DRAT proof uploaded, downloaded and checked by the coordinator with drat-trim, then the coverage proved and
 * checked), and `cubist solve F.cnf --certify --threads W` on one machine (Kissat and drat-trim per cube, in
 * processes of its own); and Kissat alone on the whole formula (one process, no proof), for scale. The cluster is one nats-server, one coordinator and one worker with W solver slots, started
 * from the built CLI and kept up for the whole benchmark; a run's wall is from the submit to the end seen by polling
 * every 50 ms (cubing, upload, proofs and checks included); the one-machine wall is the CLI process's. The four go
 * one after another in each round, the order rotating per round, so all see the same load. Each measurement appends
 * a JSON line to the results file; the summary gives the medians and the ratios to the uncertified cluster run.
 *
 *   node --import tsx bench/cnf-certify.ts [--vars 220] [--seed 1] [--rounds 3] [--workers 2] [--cubes 64] [--results FILE]
 *   node --import tsx bench/cnf-certify.ts --summary [--results FILE]
 */

import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import { randomKSat } from "../core/cnf/generate.js";
import { dimacsChunks, dimacsString } from "../core/encode/dimacs.js";
import { runSolver } from "../host/solver/index.js";
import { RunState } from "../proto/gen/cubist/v1/run.js";
import { startTestNats } from "../test/helpers/nats.js";
import { apiClient, spawnCoordinator, type Call } from "../test/helpers/api.js";
import { runCubist, spawnCubist } from "../test/helpers/processes.js";
import { submitAndWait } from "./lib/run-wait.js";

const DEFAULT_RESULTS = fileURLToPath(new URL("./results/cnf-certify-2026-11-27.jsonl", import.meta.url));
const RATIO = 4.26;
const WAYS = ["alone", "cluster", "cluster-certified", "solve-certified"] as const;
type Way = (typeof WAYS)[number];

interface Measurement {
  way: Way;
  vars: number;
  clauses: number;
  seed: number;
  round: number;
  workers: number;
  wallS: number;
  /** Cubes solved (cluster: closed UNSAT; one machine: leaves solved). */
  cubes: number;
  resplit: number;
  proofsChecked: number;
  message: string;
  loadBefore: number;
  loadAfter: number;
}

/** The first seed from `seed` up whose formula Kissat alone refutes. */
async function unsatFormula(vars: number, seed: number): Promise<{ seed: number; text: string; aloneS: number }> {
  for (let s = seed; s < seed + 20; s++) {
    const cnf = randomKSat(vars, Math.round(vars * RATIO), 3, s);
    const t0 = performance.now();
    const r = await runSolver(dimacsChunks(cnf), cnf.numVars);
    if (r.kind === "unsat") return { seed: s, text: dimacsString(cnf), aloneS: (performance.now() - t0) / 1000 };
  }
  throw new Error(`no UNSAT formula of ${vars} variables among 20 seeds from ${seed}`);
}

async function measure(way: Way, call: Call, file: string, text: string, o: { vars: number; seed: number; round: number; workers: number; cubes: number }): Promise<Measurement> {
  const loadBefore = loadavg()[0];
  const base = { way, vars: o.vars, clauses: Math.round(o.vars * RATIO), seed: o.seed, round: o.round, workers: o.workers };
  if (way === "alone") {
    const t0 = performance.now();
    const r = await runSolver(file, o.vars);
    if (r.kind !== "unsat") throw new Error(`Kissat alone: ${r.kind}`);
    return { ...base, wallS: (performance.now() - t0) / 1000, cubes: 1, resplit: 0, proofsChecked: 0, message: "unsat", loadBefore, loadAfter: loadavg()[0] };
  }
  if (way === "solve-certified") {
    const t0 = performance.now();
    const r = await runCubist(["solve", file, "--certify", "--threads", String(o.workers), "--json"]);
    const wallS = (performance.now() - t0) / 1000;
    if (r.code !== 20) throw new Error(`solve --certify: exit ${r.code}: ${r.stderr.slice(-400)}`);
    const j = JSON.parse(r.stdout) as { status: string; stats?: { solved?: number } };
    return { ...base, wallS, cubes: j.stats?.solved ?? 0, resplit: 0, proofsChecked: j.stats?.solved ?? 0, message: j.status, loadBefore, loadAfter: loadavg()[0] };
  }
  const { wallS, info } = await submitAndWait(call, {
    puzzleText: text, puzzleName: `r${o.vars}-s${o.seed}-${way}-${o.round}`, format: "dimacs", cubing: { targetCubes: o.cubes }, certify: way === "cluster-certified",
  });
  const s = info.status!;
  if (s.state !== RunState.RUN_STATE_UNSAT) throw new Error(`${way}: ${RunState[s.state]}: ${s.message}`);
  return { ...base, wallS, cubes: s.cubes!.unsat, resplit: s.cubes!.resplit, proofsChecked: s.certification?.cubeProofsChecked ?? 0, message: s.message, loadBefore, loadAfter: loadavg()[0] };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function summary(file: string): string {
  const rows = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as Measurement);
  const out = ["| vars | seed | way | runs | wall s (median) | walls s (each) | / uncertified cluster | cubes (median) | re-split (median) | load (median) |", "|---|---|---|---|---|---|---|---|---|---|"];
  for (const key of [...new Set(rows.map((r) => `${r.vars} ${r.seed}`))]) {
    const mine = rows.filter((r) => `${r.vars} ${r.seed}` === key);
    const plain = median(mine.filter((r) => r.way === "cluster").map((r) => r.wallS));
    for (const way of WAYS) {
      const rs = mine.filter((r) => r.way === way);
      if (rs.length === 0) continue;
      const wall = median(rs.map((r) => r.wallS));
      out.push(`| ${rs[0].vars} | ${rs[0].seed} | ${way} | ${rs.length} | ${wall.toFixed(2)} | ${rs.map((r) => r.wallS.toFixed(2)).join(", ")} | ${(wall / plain).toFixed(2)} | ${median(rs.map((r) => r.cubes))} | ${median(rs.map((r) => r.resplit))} | ${median(rs.map((r) => (r.loadBefore + r.loadAfter) / 2)).toFixed(1)} |`);
    }
  }
  return out.join("\n") + "\n";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      vars: { type: "string", default: "220" }, seed: { type: "string", default: "1" }, rounds: { type: "string", default: "3" },
      workers: { type: "string", default: "2" }, cubes: { type: "string", default: "64" }, results: { type: "string", default: DEFAULT_RESULTS }, summary: { type: "boolean" },
    },
  });
  const results = values.results!;
  if (values.summary) {
    if (!existsSync(results)) throw new Error(`${results}: no results yet`);
    process.stdout.write(summary(results));
    return;
  }
  const vars = Number(values.vars), workers = Number(values.workers), cubes = Number(values.cubes);
  const formula = await unsatFormula(vars, Number(values.seed));
  process.stdout.write(`seed ${formula.seed}: Kissat alone UNSAT in ${formula.aloneS.toFixed(2)} s (load ${loadavg()[0].toFixed(1)})\n`);
  const dir = mkdtempSync(join(tmpdir(), "cubist-bench-cnf-certify-"));
  const file = join(dir, `r${vars}-s${formula.seed}.cnf`);
  writeFileSync(file, formula.text);
  const t = await startTestNats();
  const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", String(workers), "--id", "bench-w1", "--grace", "0"]);
  const coordinator = await spawnCoordinator(t, ["--ack-wait", "30"]);
  const api = apiClient(coordinator.address);
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (let k = 0; k < WAYS.length; k++) {
        const way = WAYS[(k + round) % WAYS.length];
        const m = await measure(way, api.call, file, formula.text, { vars, seed: formula.seed, round, workers, cubes });
        appendFileSync(results, JSON.stringify(m) + "\n");
        process.stdout.write(JSON.stringify(m) + "\n");
      }
    }
  } finally {
    api.close();
    worker.kill("SIGTERM");
    coordinator.proc.kill("SIGTERM");
    await Promise.all([worker.exited, coordinator.proc.exited]);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
