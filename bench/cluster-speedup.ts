/**
 * Speed-up of the cluster, side by side in one run (issue targets: the 2-worker cluster faster than single
 * Kissat on the suite median; at least 1.8x from 1 to 2 workers on a hard unsatisfiable puzzle).
 *
 *   node --import tsx bench/cluster-speedup.ts [--instances a,b] [--seeds 1,2,3] [--limit 300] [--unsat FILE]
 *                                              [--configs single,w1,w2] [--out bench/results/speedup.jsonl] [-- solve flags]
 *
 * For each instance (Heule's eight em-* files, shuffled with each recorded seed) and for the unsatisfiable
 * puzzle, the configurations run one after another, interleaved per instance so that machine noise hits them
 * alike:
 *   single   `cubist solve FILE`                      (one Kissat process on the default encoding, and the placement
 *                                                       search beside it for up to --search-ms, default 1000 ms)
 *   kissat   `cubist solve FILE --search-ms 0`        (one Kissat process alone)
 *   w1       `cubist solve FILE --workers 1`           (embedded cluster, 1 worker process)
 *   w2       `cubist solve FILE --workers 2`           (embedded cluster, 2 worker processes)
 *   w2s1000  `cubist solve FILE --workers 2 --search-ms 1000` (each cube: placement search first, then Kissat)
 * Wall time of the whole command (process start to exit) is recorded; a run over the limit counts as the limit.
 * Results are appended as JSON lines (an interrupted run resumes where it stopped) and summarised as medians.
 */

import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { median } from "./lib/summary.js";

const { values, positionals } = parseArgs({
  options: {
    instances: { type: "string", default: "em_7_3_6,em_7_4_8,em_7_4_9,em_8_4_5,em_9_3_5,em_11_3_4,em_12_2_4,em_14_7_3" },
    seeds: { type: "string", default: "1,2,3" },
    limit: { type: "string", default: "300" },
    unsat: { type: "string", default: "bench/puzzles/unsat-hard.txt" },
    "unsat-seeds": { type: "string", default: "1,2,3" },
    configs: { type: "string", default: "single,w1,w2" },
    out: { type: "string", default: "bench/results/speedup.jsonl" },
    summary: { type: "boolean", default: false },
  },
  allowPositionals: true,
});

interface Row { instance: string; seed: number; config: string; status: string; seconds: number; limit: number; load1: number; at: string }

const limit = Number(values.limit);
/**
 * `single` (one machine: Kissat with the placement search beside it), `kissat` (one machine, Kissat alone), `wN`
 * (N worker processes, default search), or `wNsMS` (N workers, placement search for MS ms per cube first).
 */
function configArgs(config: string): string[] {
  if (config === "single") return [];
  if (config === "kissat") return ["--search-ms", "0"];
  const m = /^w(\d+)(?:s(\d+))?$/.exec(config);
  if (!m) throw new Error(`unknown config "${config}": use single, wN or wNsMS`);
  return ["--workers", m[1], ...(m[2] ? ["--search-ms", m[2]] : [])];
}
const out = values.out!;
mkdirSync(dirname(out), { recursive: true });
const done = new Set<string>();
const rows: Row[] = existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Row) : [];
for (const r of rows) done.add(`${r.instance}|${r.seed}|${r.config}`);

const dir = mkdtempSync(join(tmpdir(), "cubist-speedup-"));
function shuffled(file: string, seed: number): string {
  const target = join(dir, `${file.replace(/\W+/g, "_")}-s${seed}.txt`);
  const r = spawnSync(process.execPath, ["dist/cli/main.js", "puzzle", "shuffle", file, "--seed", String(seed), "-o", target], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`shuffle ${file}: ${r.stderr}`);
  return target;
}

function runOne(instance: string, file: string, seed: number, config: string): void {
  const key = `${instance}|${seed}|${config}`;
  if (done.has(key)) return;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["dist/cli/main.js", "solve", file, "--json", "--time", String(limit), ...configArgs(config), ...positionals], {
    encoding: "utf8",
    maxBuffer: 1 << 26,
    timeout: (limit + 60) * 1000,
  });
  const seconds = (performance.now() - t0) / 1000;
  let status = `exit ${r.status}`;
  try {
    status = (JSON.parse(r.stdout) as { status: string }).status;
  } catch {
    // keep the exit code
  }
  const row: Row = { instance, seed, config, status, seconds: +seconds.toFixed(3), limit, load1: +readFileSync("/proc/loadavg", "utf8").split(" ")[0], at: new Date().toISOString() };
  appendFileSync(out, JSON.stringify(row) + "\n");
  rows.push(row);
  console.log(JSON.stringify(row));
}

const configs = values.configs!.split(",");
try {
  if (!values.summary) {
    if (values.unsat && existsSync(values.unsat)) {
      for (const seed of values["unsat-seeds"]!.split(",").map(Number)) {
        const file = shuffled(values.unsat, seed);
        for (const c of configs) runOne("unsat-hard", file, seed, c);
      }
    }
    for (const seed of values.seeds!.split(",").map(Number)) {
      for (const inst of values.instances!.split(",").filter(Boolean)) {
        const file = shuffled(`test/fixtures/heule2008/${inst}.txt`, seed);
        for (const c of configs) runOne(inst, file, seed, c);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Summary: median seconds per instance and config (over limit counted as the limit), and ratios.
const time = (r: Row): number => (r.status === "sat" || r.status === "unsat" ? r.seconds : Math.max(r.seconds, r.limit));
const instances = [...new Set(rows.map((r) => r.instance))];
console.log(`\n| instance | ${configs.map((c) => `${c} median s`).join(" | ")} | single / w2 | w1 / w2 |\n|---|${configs.map(() => "---").join("|")}|---|---|`);
const ratios: number[] = [];
const suite: Record<string, number[]> = {};
for (const inst of instances) {
  const med: Record<string, number> = {};
  const cells = configs.map((c) => {
    const rs = rows.filter((r) => r.instance === inst && r.config === c);
    if (rs.length === 0) return "-";
    med[c] = median(rs.map(time));
    const over = rs.filter((r) => r.status !== "sat" && r.status !== "unsat").length;
    return `${med[c].toFixed(2)}${over ? ` (${over}/${rs.length} over ${limit} s)` : ""} [${rs.map((r) => r.status[0]).join("")}]`;
  });
  const r1 = med.single && med.w2 ? med.single / med.w2 : NaN;
  const r2 = med.w1 && med.w2 ? med.w1 / med.w2 : NaN;
  if (inst !== "unsat-hard" && Number.isFinite(r1)) ratios.push(r1);
  if (inst !== "unsat-hard") for (const c of configs) if (med[c] !== undefined) (suite[c] ??= []).push(med[c]);
  console.log(`| ${inst} | ${cells.join(" | ")} | ${Number.isFinite(r1) ? r1.toFixed(2) : "-"} | ${Number.isFinite(r2) ? r2.toFixed(2) : "-"} |`);
}
if (ratios.length) console.log(`\nmedian over the suite of the per-instance ratio single / w2: ${median(ratios).toFixed(2)}`);
for (const c of configs) if (suite[c]) console.log(`suite median of per-instance medians, ${c}: ${median(suite[c]).toFixed(2)} s`);
