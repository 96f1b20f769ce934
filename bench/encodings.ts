/**
 * The single-machine encoding benchmark: the twelve instances of Heule 2008, each shuffled with recorded
 * seeds, encoded with each encoding and solved by each solver, one run at a time (the machine is shared).
 * Every run appends one JSON line to the results file; a run whose (instance, seed, encoding label, solver,
 * limit) is already there is skipped, so an interrupted benchmark resumes where it stopped.
 *
 *   node --import tsx bench/encodings.ts [--quick] [--encodings L] [--solvers L] [--instances L] [--seeds L]
 *        [--limit S] [--results FILE] [--dry-run]
 *   node --import tsx bench/encodings.ts --summary [--results FILE] [--seeds L] [--baseline E] [--candidate E]
 *   node --import tsx bench/encodings.ts --e2 [--encodings L]
 *
 * An encoding label is a name, optionally with options joined by "+": `cubist-placement+identical=merged`.
 * --quick: clue1-4, em-7-3-6, em-9-3-5; seed 1; heule-all and the default; kissat; 60 s.
 * Defaults: all 12 instances, seeds 1,2,3, the four Heule encodings and the default, kissat and cadical, 300 s.
 */

import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { DEFAULT_ENCODING } from "../core/encode/index.js";
import { SOLVER_NAMES, type SolverName } from "../host/solver/index.js";
import { e2Table, measureE2, measureE2InProcess } from "./lib/e2-encode.js";
import { PAPER_INSTANCES, parseLabel, runOne, type RunRecord } from "./lib/encoding-run.js";
import { comparisonTable, matrixTable, runsTable } from "./lib/summary.js";

const SCRIPT = fileURLToPath(import.meta.url);
const DEFAULT_RESULTS = fileURLToPath(new URL("./results/encodings.jsonl", import.meta.url));
const HEULE = ["heule-compact", "heule-fbcolors", "heule-explicit", "heule-all"];

const list = (s: string | undefined): string[] | undefined => s?.split(",").map((x) => x.trim()).filter((x) => x !== "");

function readResults(file: string): RunRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l) as RunRecord);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean" },
      encodings: { type: "string" },
      solvers: { type: "string" },
      instances: { type: "string" },
      seeds: { type: "string" },
      limit: { type: "string" },
      results: { type: "string" },
      summary: { type: "boolean" },
      baseline: { type: "string" },
      candidate: { type: "string" },
      e2: { type: "boolean" },
      "e2-child": { type: "string" },
      "dry-run": { type: "boolean" },
    },
  });
  if (values["e2-child"]) {
    console.log(JSON.stringify(measureE2InProcess(values["e2-child"])));
    return;
  }
  const quick = values.quick === true;
  const encodings = list(values.encodings) ?? (quick ? ["heule-all", DEFAULT_ENCODING] : [...HEULE, DEFAULT_ENCODING]);
  for (const e of encodings) parseLabel(e);
  if (values.e2) {
    const rows = encodings.map((e) => measureE2(SCRIPT, e));
    console.log(e2Table(rows));
    return;
  }
  const resultsFile = values.results ?? DEFAULT_RESULTS;
  const instanceNames = PAPER_INSTANCES.map((i) => i.name);
  if (values.summary) {
    const seedFilter = list(values.seeds)?.map(Number);
    const records = readResults(resultsFile).filter((r) => !seedFilter || seedFilter.includes(r.seed));
    const labels = [...new Set(records.map((r) => r.label))];
    const ordered = [...HEULE.filter((l) => labels.includes(l)), ...labels.filter((l) => !HEULE.includes(l))];
    const baseline = values.baseline ?? "heule-all", candidate = values.candidate ?? DEFAULT_ENCODING;
    for (const solver of SOLVER_NAMES) {
      if (!records.some((r) => r.solver === solver)) continue;
      console.log(`### ${solver}: ${baseline} vs ${candidate}\n\n${comparisonTable(records, solver, instanceNames, baseline, candidate)}\n`);
      console.log(`### ${solver}: median wall seconds per encoding\n\n${matrixTable(records, solver, instanceNames, ordered)}\n`);
      console.log(`### ${solver}: every run\n\n${runsTable(records, solver, instanceNames, ordered)}\n`);
    }
    return;
  }

  const solvers = (list(values.solvers) ?? (quick ? ["kissat"] : [...SOLVER_NAMES])) as SolverName[];
  for (const s of solvers) if (!SOLVER_NAMES.includes(s)) throw new Error(`unknown solver '${s}'`);
  const instances = list(values.instances) ?? (quick ? ["clue1", "clue2", "clue3", "clue4", "em-7-3-6", "em-9-3-5"] : instanceNames);
  for (const i of instances) if (!instanceNames.includes(i)) throw new Error(`unknown instance '${i}'`);
  const seeds = (list(values.seeds) ?? (quick ? ["1"] : ["1", "2", "3"])).map(Number);
  const limitSec = Number(values.limit ?? (quick ? 60 : 300));
  if (!(limitSec > 0)) throw new Error(`--limit must be a positive number of seconds`);

  const done = new Set(readResults(resultsFile).map((r) => `${r.instance}|${r.seed}|${r.label}|${r.solver}|${r.limitSec}`));
  const plan: Array<{ instance: string; seed: number; label: string; solver: SolverName }> = [];
  for (const solver of solvers) for (const instance of instances) for (const seed of seeds) for (const label of encodings) {
    if (!done.has(`${instance}|${seed}|${label}|${solver}|${limitSec}`)) plan.push({ instance, seed, label, solver });
  }
  console.log(`${plan.length} runs to do (${done.size} results already in ${resultsFile}), limit ${limitSec} s, one at a time`);
  if (values["dry-run"]) {
    for (const p of plan) console.log(`  ${p.solver} ${p.instance} seed ${p.seed} ${p.label}`);
    return;
  }
  mkdirSync(dirname(resultsFile), { recursive: true });
  for (const [i, p] of plan.entries()) {
    const { encoding, options } = parseLabel(p.label);
    const r = await runOne({ ...p, encoding, options, limitSec }, loadavg()[0]);
    appendFileSync(resultsFile, JSON.stringify(r) + "\n");
    console.log(`[${i + 1}/${plan.length}] ${p.solver} ${p.instance} s${p.seed} ${p.label}: ${r.verdict} ${r.wallSec.toFixed(2)} s` +
      ` (load ${r.load1.toFixed(2)})`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
