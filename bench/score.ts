/**
 * Score mode on the official Eternity II with its 5 hints at their official cells. The puzzle is shuffled first
 * (seeded: piece order and orientation) so the file's piece order gives nothing away, then each configuration runs
 * on it for --time seconds, one after the other on the same cores (or, with --together, all at once, so that they
 * share the cores and whatever else loads the machine alike):
 *   solve    `cubist solve --objective score --json --time T --threads N` (one machine, N threads);
 *   cluster  `cubist solve --objective score --json --time T --workers N` (the embedded cluster: a nats-server, a
 *            coordinator and N workers, the run's score slots; its history is the best score as the run reported it);
 *   solve-lns  solve with `--lns S` (S from --lns-after, default 60): branch and bound for S seconds, then
 *            neighbourhood search around each engine's best board (docs/engine.md "Score mode");
 *   solve-bb   solve with `--lns` past --time: branch and bound only, whatever the default.
 *
 *   node --import tsx bench/score.ts [--time 600] [--seeds 1,2,3] [--configs solve,cluster] [--threads 2]
 *        [--workers 2] [--lns-after 60] [--together] [--out FILE] [-- extra solve flags]
 *
 * Prints one JSON line per configuration and seed (final score and the score-over-time curve; also appended to --out)
 * and a markdown table of the score reached at 10 s, 60 s, 180 s, 300 s, 600 s, 1200 s, 1800 s and the end.
 */

import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeCanonical } from "../core/formats/index.js";
import { shufflePuzzle } from "../core/generate.js";
import { officialE2 } from "./lib/eternity2.js";

const { values, positionals } = parseArgs({
  options: {
    time: { type: "string", default: "600" },
    seeds: { type: "string", default: "1" },
    threads: { type: "string", default: "2" },
    workers: { type: "string", default: "2" },
    configs: { type: "string", default: "solve" },
    out: { type: "string", default: "" },
    together: { type: "boolean", default: false },
    "lns-after": { type: "string", default: "60" },
  },
  allowPositionals: true,
});

const e2 = officialE2();
const marks = [10, 60, 180, 300, 600, 1200, 1800, 3600, 7200];
const configs = values.configs!.split(",");
type Row = { config: string; seed: number; final: number | null; at: Record<number, number | null>; seconds: number };
const rows: Row[] = [];

/** The standard output of `cubist ARGS`, once it has exited. */
function cubistOut(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("close", () => resolve(out));
  });
}

/** One configuration on one shuffled file: its final score and the score at each mark. */
async function runOne(config: string, seed: number, file: string): Promise<Row> {
  const where = config === "cluster" ? ["--workers", values.workers!] : ["--threads", values.threads!];
  if (config === "solve-lns") where.push("--lns", values["lns-after"]!);
  if (config === "solve-bb") where.push("--lns", String(Number(values.time) + 3600));
  const t0 = performance.now();
  const stdout = await cubistOut(["solve", file, "--objective", "score", "--json", "--time", values.time!, ...where, ...positionals]);
  const seconds = (performance.now() - t0) / 1000;
  const out = JSON.parse(stdout) as { best: { score: number } | null; history?: Array<{ seconds: number; score: number }> };
  const history = out.history ?? [];
  const at: Record<number, number | null> = {};
  for (const m of marks.filter((m) => m <= Number(values.time))) {
    const upTo = history.filter((h) => h.seconds <= m);
    at[m] = upTo.length ? upTo[upTo.length - 1].score : null;
  }
  const row = { config, seed, final: out.best?.score ?? null, at, seconds: +seconds.toFixed(1) };
  const line = JSON.stringify({ ...row, time: Number(values.time), together: values.together, ...(config === "solve-lns" ? { lnsAfter: Number(values["lns-after"]) } : {}), history });
  console.log(line);
  if (values.out) appendFileSync(values.out, line + "\n");
  return row;
}

const dir = mkdtempSync(join(tmpdir(), "cubist-score-"));
try {
  for (const seed of values.seeds!.split(",").map(Number)) {
    const { puzzle } = shufflePuzzle(e2, seed);
    const file = join(dir, `e2-s${seed}.txt`);
    writeFileSync(file, writeCanonical({ ...puzzle, name: `e2-hints5-s${seed}` }));
    if (values.together) rows.push(...(await Promise.all(configs.map((config) => runOne(config, seed, file)))));
    else for (const config of configs) rows.push(await runOne(config, seed, file));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const shown = marks.filter((m) => m <= Number(values.time));
console.log(`\n| configuration | shuffle seed | ${shown.map((m) => `score at ${m} s`).join(" | ")} | final |\n|---|---|${shown.map(() => "---|").join("")}---|`);
for (const r of rows) console.log(`| ${r.config} | ${r.seed} | ${shown.map((m) => r.at[m] ?? "-").join(" | ")} | ${r.final ?? "-"} |`);
