/**
 * The second frontier (issue 24): Brendan Owen's set 1 at 11x5, 12x5, 10x6, 9x7, 13x5, 14x5 and 8x8, each shuffled
 * with `cubist puzzle shuffle --seed S`, Cubist run side by side with the public reference backtracker
 * (bench/lib/reference-eternity2.ts, built from a checkout of david3x3x3/eternity2 outside this repository).
 *
 *   node --import tsx bench/frontier2.ts --ref DIR [--only 11x5,9x7] [--seeds 1,2,3] [--timeout 120]
 *        [--configs ref,t1,solve] [--out bench/results/frontier2.jsonl]
 *
 * --ref DIR     a checkout of david3x3x3/eternity2 (its eternity2.c and gen.c are built per puzzle in a temporary
 *               folder; needs gcc and libOpenCL to link: Debian's ocl-icd-opencl-dev). Needed for the ref config.
 * --only        boards by name (default all seven; 14x5 and 8x8 are the heavy tails, give them a long --timeout).
 * --timeout S   the limit of each run, seconds (default 120; the reference and Cubist alike).
 * --configs     ref (the reference, one core), t1 (`cubist solve --threads 1`), solve (`cubist solve`, every core),
 *               w2 (`cubist solve --workers 2`), w2m5 and w2m0 (the same with `--member-share 0.5`, 0), short (`--portfolio short`: one scan, the one-core default before
 *               2026-11-27), short+long (`--portfolio short,long`: the two-core default before then); in this order
 *               per board and seed, one run at a time.
 *
 * Each board and seed is shuffled as the reference's inputs of ../shared/peers.md were (`cubist puzzle shuffle FILE
 * --seed S`). A Cubist run is `cubist solve SHUFFLED --json --time S ARGS`, timed spawn to exit (Node start-up
 * included); its board is checked with `cubist verify`. The reference is timed spawn to its first complete board
 * (the build is not timed), which core/verify.ts checks. A board that fails verification makes the exit code 3.
 * Every run appends a JSON line to --out; the table at the end gives each configuration's time and the ratio
 * reference / t1 per board and seed, and the suite medians.
 */

import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { parsePuzzle } from "../core/formats/index.js";
import { runCommand, stopActive } from "./lib/process-tree.js";
import { buildReference, runReference } from "./lib/reference-eternity2.js";
import { frontier2Table, type Frontier2Row } from "./lib/frontier2-table.js";
import { printScriptHelp, usageFailure } from "./lib/script-help.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "bin", "cubist.js");
const BOARDS = ["11x5", "12x5", "10x6", "9x7", "13x5", "14x5", "8x8"];
const CONFIGS: Record<string, string[] | null> = {
  ref: null,
  t1: ["--threads", "1"],
  solve: [],
  w2: ["--workers", "2"],
  w2m5: ["--workers", "2", "--member-share", "0.5"],
  w2m0: ["--workers", "2", "--member-share", "0"],
  short: ["--portfolio", "short"],
  "short+long": ["--portfolio", "short,long"],
};

const { values } = parseArgs({
  options: {
    ref: { type: "string" },
    only: { type: "string" },
    seeds: { type: "string", default: "1,2,3" },
    timeout: { type: "string", default: "120" },
    configs: { type: "string", default: "ref,t1,solve" },
    out: { type: "string", default: join(ROOT, "bench/results/frontier2.jsonl") },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) printScriptHelp(import.meta.url);

const fail: (message: string) => never = usageFailure("frontier2");

const timeout = Number(values.timeout);
if (!Number.isFinite(timeout) || timeout <= 0) fail(`--timeout must be a positive number of seconds, got '${values.timeout}'`);
const seeds = values.seeds!.split(",").filter(Boolean).map((s) => (/^\d+$/.test(s) ? Number(s) : fail(`--seeds: '${s}' is not a seed number`)));
const boards = values.only ? values.only.split(",").filter(Boolean) : BOARDS;
for (const b of boards) if (!BOARDS.includes(b)) fail(`unknown board '${b}' (known: ${BOARDS.join(", ")})`);
const configs = values.configs!.split(",").filter(Boolean);
for (const c of configs) if (!(c in CONFIGS)) fail(`unknown configuration '${c}' (known: ${Object.keys(CONFIGS).join(", ")})`);
if (configs.includes("ref") && !values.ref) fail("the ref configuration needs --ref DIR, a checkout of david3x3x3/eternity2");
const out = resolve(values.out!);

const fileOf = (board: string): string => {
  const [c, r] = board.split("x");
  return join(ROOT, `bench/puzzles/brendan/pieces_${c.padStart(2, "0")}x${r.padStart(2, "0")}.txt`);
};

const tmp = mkdtempSync(join(tmpdir(), "cubist-frontier2-"));
let interrupted = false;
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    interrupted = true;
    void stopActive().finally(() => process.exit(130));
  });
}

async function shuffle(board: string, seed: number): Promise<string> {
  const r = await runCommand(process.execPath, [CLI, "puzzle", "shuffle", fileOf(board), "--seed", String(seed)], { cwd: ROOT, killAfterSec: 60 });
  if (r.code !== 0) throw new Error(`shuffle of ${board} seed ${seed} failed: ${r.stderr.trim()}`);
  const file = join(tmp, `${board}-s${seed}.txt`);
  writeFileSync(file, r.stdout);
  return file;
}

async function runCubist(shuffled: string, args: string[]): Promise<{ status: string; seconds: number; note?: string }> {
  const r = await runCommand(process.execPath, [CLI, "solve", shuffled, "--json", "--time", String(timeout), ...args], { cwd: ROOT, killAfterSec: timeout + 10 });
  let status = r.killed ? "timeout" : "error";
  try {
    status = (JSON.parse(r.stdout.trim().split("\n").pop() ?? "") as { status: string }).status;
  } catch {
    // no JSON: killed or failed
  }
  if (status === "unknown") status = "timeout";
  if (status !== "sat") return { status, seconds: r.seconds, note: status === "error" ? r.stderr.trim().slice(-300) : undefined };
  const boardFile = join(tmp, "board.json");
  writeFileSync(boardFile, r.stdout);
  const v = await runCommand(process.execPath, [CLI, "verify", shuffled, boardFile], { cwd: ROOT, killAfterSec: 60 });
  return v.code === 0 ? { status: "sat", seconds: r.seconds } : { status: "invalid", seconds: r.seconds, note: v.stdout.trim().slice(0, 300) };
}

let bad = 0;
const session = new Date().toISOString();
mkdirSync(dirname(out), { recursive: true });
process.stderr.write(`frontier2: ${boards.join(",")} x seeds ${seeds.join(",")} x ${configs.join(",")}, timeout ${timeout} s -> ${out}\n`);
const rows: Frontier2Row[] = [];
for (const board of boards) {
  for (const seed of seeds) {
    if (interrupted) break;
    const shuffled = await shuffle(board, seed);
    const puzzle = parsePuzzle(readFileSync(shuffled, "utf8"), shuffled);
    for (const config of configs) {
      if (interrupted) break;
      const load1 = loadavg()[0];
      let r: { status: string; seconds: number; note?: string };
      if (config === "ref") {
        const build = buildReference(values.ref!, puzzle);
        try {
          r = await runReference(build, timeout);
        } finally {
          build.remove();
        }
      } else {
        r = await runCubist(shuffled, CONFIGS[config]!);
      }
      if (interrupted) break;
      if (r.status === "invalid") bad++;
      const row: Frontier2Row = { board, seed, config, status: r.status, seconds: +r.seconds.toFixed(3), timeout, load1: +load1.toFixed(2), session };
      rows.push(row);
      appendFileSync(out, JSON.stringify(row) + "\n");
      process.stderr.write(`${board} seed ${seed} ${config}: ${r.status} ${r.seconds.toFixed(2)} s${r.status === "sat" ? " verified" : ""}${r.note ? `: ${r.note}` : ""}\n`);
    }
  }
}
if (!interrupted) {
  process.stdout.write(frontier2Table(rows, configs) + "\n");
  if (bad) {
    process.stderr.write(`frontier2: ${bad} boards did not verify (see above)\n`);
    process.exitCode = 3;
  }
}
