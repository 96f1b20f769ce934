/**
 * Cube and conquer on one machine against Kissat alone, on uniform random 3-SAT at the threshold (4.26 clauses per
 * variable, seeded with core/cnf/generate.ts): for each instance, Kissat on the whole formula, then `cubist solve`'s
 * loop (lookahead cubes, `--workers` Kissat processes, cubing time included), one after the other so both see the
 * same load. Each pair appends a JSON line to the results file; the summary gives, per size, the medians of the wall
 * and CPU ratios (alone / cubes) over the instances.
 *
 *   node --import tsx bench/cnf-cubes.ts [--vars 175,200] [--seeds 1-5] [--workers 2] [--depth D] [--results FILE]
 *   node --import tsx bench/cnf-cubes.ts --summary [--results FILE]
 */

import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import { randomKSat } from "../core/cnf/generate.js";
import { dimacsChunks } from "../core/encode/dimacs.js";
import { runSolver } from "../host/solver/index.js";
import { defaultCubeDepth, solveCnfLocal } from "../cli/solve-cnf.js";
import { seedsOf } from "./lib/seeds.js";

const DEFAULT_RESULTS = fileURLToPath(new URL("./results/cnf-cubes.jsonl", import.meta.url));
const RATIO = 4.26;

interface PairRecord {
  vars: number;
  clauses: number;
  seed: number;
  workers: number;
  depth: number;
  status: string;
  aloneWallS: number;
  aloneCpuS: number;
  cubesWallS: number;
  cubesCpuS: number;
  cubingS: number;
  cubes: number;
  refuted: number;
  load: number;
}

async function pair(vars: number, seed: number, workers: number, depth: number): Promise<PairRecord> {
  const clauses = Math.round(vars * RATIO);
  const cnf = randomKSat(vars, clauses, 3, seed);
  const load = loadavg()[0];
  const t0 = performance.now();
  const alone = await runSolver(dimacsChunks(cnf), cnf.numVars);
  const aloneWallS = (performance.now() - t0) / 1000;
  const cubed = await solveCnfLocal(cnf, { workers, maxDepth: depth });
  if (cubed.status !== alone.kind) throw new Error(`vars ${vars} seed ${seed}: alone ${alone.kind}, cubes ${cubed.status}`);
  return {
    vars, clauses, seed, workers, depth, status: cubed.status,
    aloneWallS, aloneCpuS: alone.stats.solverSeconds ?? 0,
    cubesWallS: cubed.stats.wallMs / 1000, cubesCpuS: cubed.stats.solverSeconds + cubed.stats.cubingMs / 1000,
    cubingS: cubed.stats.cubingMs / 1000, cubes: cubed.stats.cubes, refuted: cubed.stats.refuted, load,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function summary(file: string): string {
  const rows = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as PairRecord);
  const keys = [...new Set(rows.map((r) => `${r.vars} ${r.status} ${r.workers} ${r.depth}`))].sort();
  const out = ["| vars | answer | workers | depth | instances | alone wall s (median) | cubes wall s (median) | wall ratio alone/cubes (median) | CPU ratio alone/cubes (median) | cubing s (median) |", "|---|---|---|---|---|---|---|---|---|---|"];
  for (const k of keys) {
    const [vars, status, workers, depth] = k.split(" ");
    const rs = rows.filter((r) => `${r.vars} ${r.status} ${r.workers} ${r.depth}` === k);
    const f = (x: number): string => x.toFixed(2);
    out.push(`| ${vars} | ${status} | ${workers} | ${depth} | ${rs.length} | ${f(median(rs.map((r) => r.aloneWallS)))} | ${f(median(rs.map((r) => r.cubesWallS)))} | ` +
      `${f(median(rs.map((r) => r.aloneWallS / r.cubesWallS)))} | ${f(median(rs.map((r) => r.aloneCpuS / r.cubesCpuS)))} | ${f(median(rs.map((r) => r.cubingS)))} |`);
  }
  return out.join("\n") + "\n";
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      vars: { type: "string", default: "175,200" }, seeds: { type: "string", default: "1-5" }, workers: { type: "string", default: "2" },
      depth: { type: "string" }, results: { type: "string", default: DEFAULT_RESULTS }, summary: { type: "boolean" },
    },
  });
  const file = values.results!;
  if (values.summary) {
    if (!existsSync(file)) throw new Error(`${file}: no results yet`);
    process.stdout.write(summary(file));
    return;
  }
  const workers = Number(values.workers);
  const depth = values.depth !== undefined ? Number(values.depth) : defaultCubeDepth(workers);
  for (const vars of values.vars!.split(",").map(Number)) {
    for (const seed of seedsOf(values.seeds!)) {
      const r = await pair(vars, seed, workers, depth);
      appendFileSync(file, JSON.stringify(r) + "\n");
      process.stdout.write(`${JSON.stringify(r)}\n`);
    }
  }
}

await main();
