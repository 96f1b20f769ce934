/**
 * The fixed costs of issue 10: how long `cubist` takes on boards whose search is a few milliseconds, i.e. what a
 * command costs before and after the search (Node start, module loading, the embedded cluster's start and teardown).
 *
 *   node --import tsx bench/fixed-costs.ts [--base DIR] [--boards 9x5:1,8x5:2] [--configs node,version,help,solve,w1,w2]
 *        [--repeats 10] [--out bench/results/fixed-costs.jsonl]
 *
 * Each board (NAME:SEED, a frontier board of bench/lib/frontier-suites.ts) is shuffled like bench/frontier.ts does.
 * Configurations: node = `node -e 0` (the floor of any Node command), version = `cubist --version`, help =
 * `cubist --help` (loads every command's module), solve = `cubist solve FILE --json`, wN = the same with
 * `--workers N`. --base DIR is a second built checkout (e.g. `git archive BASE | tar -x -C DIR`, node_modules
 * linked, `npm run build`): every configuration then runs on both, interleaved with this tree's runs, so that
 * machine noise hits them alike. One run at a time; every printed board is checked with `cubist verify`.
 *
 * Prints per configuration and build the median, min and max wall time (spawn to exit) and the ratio base/this,
 * and for the cluster runs of builds that report them (`stats.phasesMs`, cli/local-cluster.ts) the median of each
 * phase's end. Every run appends one JSON line to --out.
 */

import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { execFileSync } from "node:child_process";

import { BOARDS } from "./lib/frontier-suites.js";
import { runCommand } from "./lib/process-tree.js";
import { printScriptHelp, usageFailure } from "./lib/script-help.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const { values } = parseArgs({
  options: {
    base: { type: "string" },
    boards: { type: "string", default: "9x5:1,8x5:2" },
    configs: { type: "string", default: "node,version,help,solve,w1,w2" },
    repeats: { type: "string", default: "10" },
    out: { type: "string", default: join(ROOT, "bench/results/fixed-costs.jsonl") },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) printScriptHelp(import.meta.url);

const fail: (message: string) => never = usageFailure("fixed-costs");

const repeats = Number(values.repeats);
if (!Number.isInteger(repeats) || repeats < 1) fail(`--repeats must be a positive integer, got '${values.repeats}'`);
const builds: { name: string; root: string }[] = [{ name: "this", root: ROOT }];
if (values.base) {
  const base = resolve(values.base);
  if (!readFileSync(join(base, "package.json"), "utf8").includes('"cubist"')) fail(`--base ${base} is not a Cubist checkout`);
  builds.unshift({ name: "base", root: base });
}
const configs = values.configs!.split(",").filter(Boolean);
for (const c of configs) if (!["node", "version", "help", "solve"].includes(c) && !/^w\d+$/.test(c)) fail(`unknown configuration '${c}'`);
const boards = values.boards!.split(",").filter(Boolean).map((spec) => {
  const [name, seed] = spec.split(":");
  const board = BOARDS.find((b) => b.name === name && b.suite === "frontier");
  if (!board || !/^\d+$/.test(seed ?? "")) fail(`--boards: '${spec}' is not NAME:SEED of a frontier board`);
  return { board, seed: Number(seed) };
});

function commit(root: string): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" }, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

const tmp = mkdtempSync(join(tmpdir(), "cubist-fixed-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));
const load1 = (): number => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

interface Row {
  build: string;
  commit: string;
  config: string;
  board: string;
  seconds: number;
  status: string;
  phasesMs: Record<string, number> | null;
  load1: number;
  at: string;
}

const rows: Row[] = [];
const loads: number[] = [];

async function runOne(build: { name: string; root: string }, config: string, board: string, file: string): Promise<void> {
  const cli = join(build.root, "bin", "cubist.js");
  const args = config === "node" ? ["-e", "0"]
    : config === "version" ? [cli, "--version"]
    : config === "help" ? [cli, "--help"]
    : [cli, "solve", file, "--json", "--time", "60", ...(config === "solve" ? [] : ["--workers", config.slice(1)])];
  const load = load1();
  loads.push(load);
  const r = await runCommand(process.execPath, args, { cwd: build.root, killAfterSec: 70 });
  let status = r.code === 0 ? "ok" : `exit ${r.code ?? r.signal}`;
  let phasesMs: Record<string, number> | null = null;
  if (config === "solve" || config.startsWith("w")) {
    try {
      const out = JSON.parse(r.stdout) as { status: string; stats?: { phasesMs?: Record<string, number> } };
      status = out.status;
      phasesMs = out.stats?.phasesMs ?? null;
      const boardFile = join(tmp, "board.json");
      writeFileSync(boardFile, r.stdout);
      const v = await runCommand(process.execPath, [join(ROOT, "bin", "cubist.js"), "verify", file, boardFile], { cwd: ROOT, killAfterSec: 60 });
      if (v.code !== 0) status = "invalid";
    } catch {
      status = `error: ${r.stderr.trim().split("\n").pop()}`;
    }
    if (status !== "sat") fail(`${build.name} ${config} on ${board}: ${status}`);
  }
  const row: Row = { build: build.name, commit: commit(build.root), config, board, seconds: +r.seconds.toFixed(3), status, phasesMs, load1: load, at: new Date().toISOString() };
  rows.push(row);
  appendFileSync(resolve(values.out!), JSON.stringify(row) + "\n");
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const files: { name: string; file: string }[] = [];
for (const { board, seed } of boards) {
  const r = await runCommand(process.execPath, [join(ROOT, "bin", "cubist.js"), "puzzle", "shuffle", join(ROOT, board.file), "--seed", String(seed)], { cwd: ROOT, killAfterSec: 60 });
  if (r.code !== 0) fail(`shuffle of ${board.file} failed: ${r.stderr}`);
  const file = join(tmp, `${board.name}-s${seed}.txt`);
  writeFileSync(file, r.stdout);
  files.push({ name: `${board.name} seed ${seed}`, file });
}

process.stderr.write(`fixed-costs: ${builds.map((b) => `${b.name} ${commit(b.root)}`).join(" vs ")}; ${configs.join(",")} x ${files.map((f) => f.name).join(", ")} x ${repeats}\n`);
for (let rep = 0; rep < repeats; rep++) {
  for (const config of configs) {
    const targets = config === "node" || config === "version" || config === "help" ? [{ name: "-", file: "" }] : files;
    for (const f of targets) for (const build of builds) await runOne(build, config, f.name, f.file);
  }
  process.stderr.write(`repeat ${rep + 1}/${repeats} done\n`);
}

const lines: string[] = [];
const head = builds.length > 1 ? "| configuration | board | base median (min-max) s | this median (min-max) s | base / this |" : "| configuration | board | median (min-max) s |";
lines.push(head, head.replace(/[^|]+/g, "---"));
const cell = (xs: number[]): string => `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)})`;
for (const config of configs) {
  for (const board of [...new Set(rows.filter((r) => r.config === config).map((r) => r.board))]) {
    const of = (b: string): number[] => rows.filter((r) => r.config === config && r.board === board && r.build === b).map((r) => r.seconds);
    if (builds.length > 1) lines.push(`| ${config} | ${board} | ${cell(of("base"))} | ${cell(of("this"))} | ${(median(of("base")) / median(of("this"))).toFixed(2)}x |`);
    else lines.push(`| ${config} | ${board} | ${cell(of("this"))} |`);
  }
}
const phased = rows.filter((r) => r.phasesMs);
if (phased.length) {
  const names = Object.keys(phased[0].phasesMs!);
  lines.push("", `| build | configuration | board | ${names.join(" | ")} |`, `|---|---|---|${names.map(() => "---").join("|")}|`);
  for (const key of [...new Set(phased.map((r) => `${r.build}|${r.config}|${r.board}`))]) {
    const rs = phased.filter((r) => `${r.build}|${r.config}|${r.board}` === key);
    lines.push(`| ${key.split("|").join(" | ")} | ${names.map((n) => median(rs.map((r) => r.phasesMs![n]))).join(" | ")} |`);
  }
  lines.push("", "Phases: median ms from the start of the embedded cluster (cli/local-cluster.ts) to the end of each phase.");
}
lines.push("", `Runs: ${rows.length}, ${repeats} repeats interleaved, 1-min load during the runs ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} (median ${median(loads).toFixed(2)}).`);
process.stdout.write(lines.join("\n") + "\n");
