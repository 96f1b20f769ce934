/**
 * Formula runs on the cluster against Kissat alone: uniform random 3-SAT at the threshold (4.26 clauses per
 * variable, seeded with core/cnf/generate.ts), and named formulas (bench/lib/cnf-instances.ts): Sudoku boards (hard
 * 9x9, 16x16 and 25x25 with few givens, sent as Sudoku runs) and edge-matching puzzles shuffled with a recorded seed
 * and encoded by `cubist encode` (sent as DIMACS). One nats-server, one coordinator and one worker with `--workers`
 * solver slots (processes started from the built CLI, as deployed), kept up for the whole benchmark. For each
 * instance: Kissat alone on the whole formula (one process, the same formula the coordinator builds), and the
 * formula submitted as a run and followed to its end, the wall clock from the submit to the end seen by polling
 * every 50 ms, so the lookahead's cubing in the coordinator, the formula upload and every re-split count (the
 * cubing alone is also timed here, in process, as cubingS). The two go one after the other, the order alternating
 * per pair, so both see the same load. Each pair appends a JSON line to the results file; the summary gives, per
 * size and answer (random) or per instance (named), the medians of the walls and of the ratios (alone / cluster).
 *
 *   node --import tsx bench/cnf-cluster.ts [--vars 300] [--seeds 1-6] [--workers 2] [--cubes 64] [--cube-time-first S] [--results FILE]
 *   node --import tsx bench/cnf-cluster.ts --instances hard9-1,random-16x16-g40-s1,unsat-hard-s1 [--repeats 3] [--workers 2] [--cube-time S] [--results FILE]
 *   node --import tsx bench/cnf-cluster.ts --summary [--results FILE]
 */

import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import type { Cnf } from "../core/cnf/cnf.js";
import { checkModel } from "../core/cnf/check-model.js";
import { randomKSat } from "../core/cnf/generate.js";
import { splitByLookahead } from "../core/cnf/lookahead.js";
import { dimacsChunks, dimacsString } from "../core/encode/dimacs.js";
import { runSolver } from "../host/solver/index.js";
import { RunState } from "../proto/gen/cubist/v1/run.js";
import type { RunInfo } from "../proto/gen/cubist/v1/api.js";
import { formulaDepth } from "../coordinator/model/formula-shape.js";
import { startTestNats } from "../test/helpers/nats.js";
import { apiClient, spawnCoordinator, type Call } from "../test/helpers/api.js";
import { spawnCubist } from "../test/helpers/processes.js";
import { submitAndWait } from "./lib/run-wait.js";
import { seedsOf } from "./lib/seeds.js";
import { edgeByName, sudokuByName } from "./lib/cnf-instances.js";

const DEFAULT_RESULTS = fileURLToPath(new URL("./results/cnf-cluster.jsonl", import.meta.url));
const RATIO = 4.26;

interface PairRecord {
  /** random (3-SAT), sudoku or edge; rows written before suites existed are random. */
  suite?: "random" | "sudoku" | "edge";
  /** A named formula (bench/lib/cnf-instances.ts); null for random 3-SAT. */
  instance?: string | null;
  repeat?: number;
  vars: number;
  clauses: number;
  seed: number | null;
  workers: number;
  cubes: number;
  cubeTimeFirst: number | null;
  /** The per-cube budget, when not the default (60 s). */
  cubeTime?: number;
  status: string;
  first: "alone" | "cluster";
  aloneWallS: number;
  aloneCpuS: number;
  clusterWallS: number;
  /** The lookahead's time on this formula, measured here in process (the coordinator's is inside clusterWallS). */
  cubingS: number;
  cubesDone: number;
  resplit: number;
  loadBefore: number;
  loadAfter: number;
}

/** What one pair runs: a formula, the run's text and format, and what the record says it is. */
interface PairInput {
  readonly cnf: Cnf;
  readonly text: string;
  readonly format: "dimacs" | "sudoku";
  readonly name: string;
  readonly suite: "random" | "sudoku" | "edge";
  readonly instance: string | null;
  readonly seed: number | null;
  readonly repeat: number;
}

/** Submits the formula as a run and waits for its end: the wall seconds and the final RunInfo. */
function clusterRun(call: Call, input: PairInput, cubes: number, budget: Budget): Promise<{ wallS: number; info: RunInfo }> {
  return submitAndWait(call, {
    puzzleText: input.text, puzzleName: input.name, format: input.format, cubing: { targetCubes: cubes },
    // A solver message without time_limit_sec reads as 0 (no budget) on the API: so it is sent only with a budget set.
    ...(budget.cubeTimeFirst !== null || budget.cubeTime !== null
      ? { solver: { ...(budget.cubeTimeFirst !== null ? { firstTimeLimitSec: budget.cubeTimeFirst } : {}), ...(budget.cubeTime !== null ? { timeLimitSec: budget.cubeTime } : {}) } }
      : {}),
  });
}

/** The runs' cube budgets: --cube-time-first and --cube-time (null: the formula run's defaults). */
interface Budget {
  readonly cubeTimeFirst: number | null;
  readonly cubeTime: number | null;
}

async function pair(call: Call, input: PairInput, workers: number, cubes: number, budget: Budget, first: "alone" | "cluster"): Promise<PairRecord> {
  const { cnf } = input;
  const c0 = performance.now();
  splitByLookahead(cnf, { maxDepth: formulaDepth(cubes, 0) });
  const cubingS = (performance.now() - c0) / 1000;
  const loadBefore = loadavg()[0];
  const alone = async (): Promise<{ wallS: number; cpuS: number; kind: string }> => {
    const t0 = performance.now();
    const r = await runSolver(dimacsChunks(cnf), cnf.numVars);
    if (r.kind === "sat" && !checkModel(cnf, r.model).ok) throw new Error(`${input.name}: Kissat alone's model falsifies a clause`);
    return { wallS: (performance.now() - t0) / 1000, cpuS: r.stats.solverSeconds ?? 0, kind: r.kind };
  };
  const cluster = (): ReturnType<typeof clusterRun> => clusterRun(call, input, cubes, budget);
  let a: Awaited<ReturnType<typeof alone>>, c: Awaited<ReturnType<typeof cluster>>;
  if (first === "alone") {
    a = await alone();
    c = await cluster();
  } else {
    c = await cluster();
    a = await alone();
  }
  const state = c.info.status!.state;
  const status = state === RunState.RUN_STATE_SAT ? "sat" : state === RunState.RUN_STATE_UNSAT ? "unsat" : RunState[state];
  if (status !== a.kind) throw new Error(`${input.name}: alone ${a.kind}, cluster ${status} (${c.info.status!.message})`);
  const k = c.info.status!.cubes!;
  return {
    suite: input.suite, instance: input.instance, repeat: input.repeat,
    vars: cnf.numVars, clauses: cnf.clauses.count, seed: input.seed, workers, cubes, cubeTimeFirst: budget.cubeTimeFirst,
    ...(budget.cubeTime !== null ? { cubeTime: budget.cubeTime } : {}), status, first,
    aloneWallS: a.wallS, aloneCpuS: a.cpuS, clusterWallS: c.wallS, cubingS,
    cubesDone: k.sat + k.unsat, resplit: k.resplit, loadBefore, loadAfter: loadavg()[0],
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function summary(file: string): string {
  const rows = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as PairRecord);
  const f = (x: number): string => x.toFixed(2);
  const ratios = (rs: PairRecord[]): string =>
    `${f(median(rs.map((r) => r.aloneWallS / r.clusterWallS)))} | ${rs.map((r) => f(r.aloneWallS / r.clusterWallS)).join(", ")} | ${median(rs.map((r) => r.resplit))} | ${f(median(rs.map((r) => (r.loadBefore + r.loadAfter) / 2)))} |`;
  const random = rows.filter((r) => (r.suite ?? "random") === "random");
  const keyOf = (r: PairRecord): string => `${r.vars} ${r.status} ${r.workers} ${r.cubes} ${r.cubeTimeFirst ?? "default"}`;
  const out = [
    "| vars | answer | workers | cubes | first budget s | instances | alone wall s (median) | cluster wall s (median) | ratio alone/cluster (median) | ratios (each) | re-split (median) | load (median) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const k of [...new Set(random.map(keyOf))].sort()) {
    const [vars, status, workers, cubes, first] = k.split(" ");
    const rs = random.filter((r) => keyOf(r) === k);
    out.push(`| ${vars} | ${status} | ${workers} | ${cubes} | ${first} | ${rs.length} | ${f(median(rs.map((r) => r.aloneWallS)))} | ${f(median(rs.map((r) => r.clusterWallS)))} | ${ratios(rs)}`);
  }
  const named = rows.filter((r) => r.instance);
  if (named.length === 0) return out.join("\n") + "\n";
  out.push("", "| instance | vars | clauses | answer | workers | cubes | pairs | alone wall s (median) | alone CPU s (median) | cluster wall s (median) | cubing s (median) | ratio alone/cluster (median) | ratios (each) | re-split (median) | load (median) |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const name of [...new Set(named.map((r) => `${r.instance} ${r.workers} ${r.cubes} ${r.cubeTime ?? ""}`))]) {
    const rs = named.filter((r) => `${r.instance} ${r.workers} ${r.cubes} ${r.cubeTime ?? ""}` === name), r0 = rs[0];
    out.push(`| ${r0.instance}${r0.cubeTime !== undefined ? ` (cube time ${r0.cubeTime})` : ""} | ${r0.vars} | ${r0.clauses} | ${r0.status} | ${r0.workers} | ${r0.cubes} | ${rs.length} | ${f(median(rs.map((r) => r.aloneWallS)))} | ${f(median(rs.map((r) => r.aloneCpuS)))} | ` +
      `${f(median(rs.map((r) => r.clusterWallS)))} | ${f(median(rs.map((r) => r.cubingS)))} | ${ratios(rs)}`);
  }
  return out.join("\n") + "\n";
}

/** The pairs to run: random 3-SAT by --vars and --seeds, or the named instances (--instances), each --repeats times. */
async function* inputsOf(values: { vars?: string; seeds?: string; instances?: string; repeats?: string }, dir: string): AsyncGenerator<PairInput> {
  if (values.instances === undefined) {
    for (const vars of values.vars!.split(",").map(Number)) {
      for (const seed of seedsOf(values.seeds!)) {
        const cnf = randomKSat(vars, Math.round(vars * RATIO), 3, seed);
        yield { cnf, text: dimacsString(cnf), format: "dimacs", name: `r${vars}-s${seed}`, suite: "random", instance: null, seed, repeat: 1 };
      }
    }
    return;
  }
  for (const name of values.instances.split(",")) {
    const inst = /^(hard9|random-)/.test(name) ? sudokuByName(name) : await edgeByName(name, dir);
    for (let repeat = 1; repeat <= Number(values.repeats); repeat++) {
      yield { cnf: inst.cnf, text: inst.text, format: inst.format, name, suite: inst.suite, instance: name, seed: null, repeat };
    }
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      vars: { type: "string", default: "300" }, seeds: { type: "string", default: "1-6" }, workers: { type: "string", default: "2" },
      instances: { type: "string" }, repeats: { type: "string", default: "1" },
      cubes: { type: "string", default: "64" }, "cube-time-first": { type: "string" }, "cube-time": { type: "string" }, results: { type: "string", default: DEFAULT_RESULTS }, summary: { type: "boolean" },
    },
  });
  const file = values.results!;
  if (values.summary) {
    if (!existsSync(file)) throw new Error(`${file}: no results yet`);
    process.stdout.write(summary(file));
    return;
  }
  const workers = Number(values.workers), cubes = Number(values.cubes);
  const cubeTimeFirst = values["cube-time-first"] !== undefined ? Number(values["cube-time-first"]) : null;
  const cubeTime = values["cube-time"] !== undefined ? Number(values["cube-time"]) : null;
  const dir = mkdtempSync(join(tmpdir(), "cubist-cnf-cluster-"));
  const t = await startTestNats();
  const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", String(workers), "--id", "bench-w1", "--grace", "0"]);
  const coordinator = await spawnCoordinator(t, ["--ack-wait", "30"]);
  const api = apiClient(coordinator.address);
  // Stopped early: the cluster's processes and the private nats-server go too.
  const stop = (): void => {
    worker.kill("SIGTERM");
    coordinator.proc.kill("SIGTERM");
    void Promise.all([worker.exited, coordinator.proc.exited]).then(() => t.close()).finally(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    let i = 0;
    for await (const input of inputsOf(values, dir)) {
      const r = await pair(api.call, input, workers, cubes, { cubeTimeFirst, cubeTime }, i++ % 2 === 0 ? "alone" : "cluster");
      appendFileSync(file, JSON.stringify(r) + "\n");
      process.stdout.write(`${JSON.stringify(r)}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    api.close();
    worker.kill("SIGTERM");
    coordinator.proc.kill("SIGTERM");
    await Promise.all([worker.exited, coordinator.proc.exited]);
    await t.close();
  }
}

await main();
