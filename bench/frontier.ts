/**
 * The frontier benchmark of issue 10: Cubist against a public single-core C backtracker (bench/lib/peers.ts) on
 * Brendan Owen's boards, Heule's em-* suite and two hard entries, each board shuffled with seeds 1, 2, 3.
 *
 *   node --import tsx bench/frontier.ts [--suite frontier|heule|hard|all] [--boards 7x6,8x7] [--seeds 1,2,3]
 *        [--configs solve,w1,w2] [--extra NAME="ARGS"]... [--limit 60] [--grace 10] [--repeats 1]
 *        [--out bench/results/frontier.jsonl] [--summary]
 *
 * Each board is shuffled exactly as the reference's inputs were, `node bin/cubist.js puzzle shuffle FILE --seed S`
 * (stdout to a temporary file), then each configuration runs `node bin/cubist.js solve SHUFFLED --json --time LIMIT
 * ARGS` and the whole command's wall time is recorded (spawn to exit: Node start-up, encoding and, for --workers, the
 * embedded cluster's start and teardown count). Runs are strictly one at a time, the configurations interleaved per
 * board and seed so that machine noise hits them alike. Each command leads its own process group and gets a hard
 * kill at LIMIT + GRACE s (bench/lib/process-tree.ts); Ctrl-C stops the running command, its solvers and cluster,
 * and removes the temporary files.
 *
 * A printed board is checked independently with `node bin/cubist.js verify SHUFFLED board.json` (the shuffled file:
 * the shuffle renumbers the pieces). A run is solved when it gave the right answer (a verified SAT board; UNSAT for
 * bench/puzzles/unsat-hard.txt) within LIMIT s; a time-out, kill or error is unsolved. A board that fails
 * verification or a wrong answer is reported loudly and makes the exit code 3.
 *
 * Configurations (--configs picks them, in order):
 *   solve   `cubist solve FILE`                (one machine, the defaults)
 *   wN      `cubist solve FILE --workers N`    (embedded local cluster: w1, w2, ...)
 *   --extra NAME="ARGS" adds configuration NAME with those extra arguments, e.g. --extra t1="--threads 1"
 *           (runs after the --configs ones unless --configs names it; repeat --extra for several).
 *
 * Suites (bench/lib/frontier-suites.ts): frontier (the eight Brendan boards 7x6 ... 10x5, the default), heule (the
 * eight em-*), hard (Brendan 8x8 and unsat-hard; give them a long --limit, e.g. 1800), all. --boards picks boards by
 * name from the chosen suite (from every suite when --suite is not given).
 *
 * Every run appends one JSON line to --out (config, arguments, board, seed, status, seconds, limit, git commit, ...).
 * The markdown summary (bench/lib/frontier-summary.ts) is printed at the end; --summary prints it from --out without
 * running anything (the latest session's runs of each board, seed and configuration stand).
 */

import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { BOARDS, SUITES, type SuiteBoard, type SuiteName } from "./lib/frontier-suites.js";
import { summary, type FrontierRow } from "./lib/frontier-summary.js";
import { runCommand, stopActive } from "./lib/process-tree.js";
import { printScriptHelp, usageFailure } from "./lib/script-help.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CLI = join(ROOT, "bin", "cubist.js");

const { values } = parseArgs({
  options: {
    suite: { type: "string" },
    boards: { type: "string" },
    seeds: { type: "string", default: "1,2,3" },
    configs: { type: "string" },
    extra: { type: "string", multiple: true, default: [] },
    limit: { type: "string", default: "60" },
    grace: { type: "string", default: "10" },
    repeats: { type: "string", default: "1" },
    out: { type: "string", default: join(ROOT, "bench/results/frontier.jsonl") },
    summary: { type: "boolean", default: false },
    help: { type: "boolean", short: "h", default: false },
  },
  allowPositionals: false,
});

if (values.help) printScriptHelp(import.meta.url);

const fail: (message: string) => never = usageFailure("frontier");

const positiveNumber = (name: string, text: string): number => {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) fail(`--${name} must be a positive number, got '${text}'`);
  return n;
};
const limit = positiveNumber("limit", values.limit!);
const grace = positiveNumber("grace", values.grace!);
const repeats = Math.floor(positiveNumber("repeats", values.repeats!));
const seeds = values.seeds!.split(",").filter(Boolean).map((s) => {
  if (!/^\d+$/.test(s)) fail(`--seeds: '${s}' is not a seed number`);
  return Number(s);
});
const out = resolve(values.out!);

/** Splits ARGS like a shell would, for quotes and spaces only. */
function splitArgs(text: string): string[] {
  const args: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m; (m = re.exec(text)); ) args.push(m[1] ?? m[2] ?? m[3]);
  return args;
}

const extras = new Map<string, string[]>();
for (const e of values.extra!) {
  const eq = e.indexOf("=");
  const name = e.slice(0, eq);
  if (eq <= 0 || !/^[\w.+-]+$/.test(name)) fail(`--extra '${e}': use NAME=ARGS, e.g. --extra t1="--threads 1"`);
  extras.set(name, splitArgs(e.slice(eq + 1)));
}

/** The extra `cubist solve` arguments of a configuration. */
function configArgs(config: string): string[] {
  const extra = extras.get(config);
  if (extra) return extra;
  if (config === "solve") return [];
  const m = /^w(\d+)$/.exec(config);
  if (m) return ["--workers", m[1]];
  return fail(`unknown configuration '${config}': use solve, wN (w1, w2, ...) or define it with --extra ${config}="ARGS"`);
}

const configsGiven = values.configs !== undefined;
const configs = [...new Set([...(values.configs ?? "solve,w1,w2").split(",").filter(Boolean), ...extras.keys()])];
for (const c of configs) configArgs(c);

const suiteArg = values.suite ?? (values.boards ? "all" : "frontier");
if (suiteArg !== "all" && !SUITES.includes(suiteArg as SuiteName)) fail(`--suite must be one of ${SUITES.join(", ")}, all; got '${suiteArg}'`);
const suites: SuiteName[] = suiteArg === "all" ? [...SUITES] : [suiteArg as SuiteName];
let boards: SuiteBoard[] = BOARDS.filter((b) => suites.includes(b.suite));
if (values.boards) {
  const wanted = values.boards.split(",").filter(Boolean);
  for (const w of wanted) if (!boards.some((b) => b.name === w)) fail(`unknown board '${w}' in suite ${suiteArg} (known: ${boards.map((b) => b.name).join(", ")})`);
  boards = boards.filter((b) => wanted.includes(b.name));
}

function readRows(): FrontierRow[] {
  if (!existsSync(out)) return [];
  return readFileSync(out, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as FrontierRow);
}

function printSummary(): void {
  const rows = readRows();
  const shown = values.summary && !values.suite ? SUITES : suites;
  const text = summary(rows, shown, configsGiven || extras.size ? configs : undefined);
  process.stdout.write(text ? `${text}\n` : `no results in ${out} for ${shown.join(", ")}\n`);
}

if (values.summary) {
  printSummary();
  process.exit(0);
}

// --- Running ---

function gitState(): { commit: string; dirty: boolean } {
  // Read-only: no optional locks, so that another checkout user's git commands never meet our index.lock.
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: "0" };
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, env, encoding: "utf8" }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: ROOT, env, encoding: "utf8" });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: "unknown", dirty: true };
  }
}

const load1 = (): number => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
const session = new Date().toISOString();
const tmp = mkdtempSync(join(tmpdir(), "cubist-frontier-"));
let cleaned = false;
const cleanup = (): void => {
  if (cleaned) return;
  cleaned = true;
  rmSync(tmp, { recursive: true, force: true });
};
process.on("exit", cleanup);
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    process.stderr.write(`\nfrontier: ${sig}: stopping the running command and cleaning up\n`);
    void stopActive().finally(() => {
      cleanup();
      process.exit(sig === "SIGINT" ? 130 : 143);
    });
  });
}

async function shuffle(board: SuiteBoard, seed: number): Promise<string> {
  const r = await runCommand(process.execPath, [CLI, "puzzle", "shuffle", board.file, "--seed", String(seed)], { cwd: ROOT, killAfterSec: 60 });
  if (r.code !== 0) throw new Error(`shuffle of ${board.file} seed ${seed} failed (exit ${r.code ?? r.signal}): ${r.stderr.trim()}`);
  const file = join(tmp, `${board.name}-s${seed}.txt`);
  writeFileSync(file, r.stdout);
  return file;
}

/** The status `solve --json` printed, if it printed one. */
function printedStatus(stdout: string): string | undefined {
  const text = stdout.trim();
  for (const candidate of [text, text.split("\n").pop() ?? ""]) {
    try {
      const status = (JSON.parse(candidate) as { status?: unknown }).status;
      if (typeof status === "string") return status;
    } catch {
      // not JSON
    }
  }
  return undefined;
}

let bad = 0;

async function runOne(board: SuiteBoard, seed: number, shuffled: string, config: string, repeat: number, git: { commit: string; dirty: boolean }): Promise<FrontierRow> {
  const args = configArgs(config);
  const load = load1();
  const r = await runCommand(process.execPath, [CLI, "solve", shuffled, "--json", "--time", String(limit), ...args], { cwd: ROOT, killAfterSec: limit + grace });
  let status = r.killed ? "killed" : printedStatus(r.stdout) ?? `error (exit ${r.code ?? r.signal})`;
  let verified: boolean | null = null;
  let note = "";
  if (status === "sat" && !interrupted) {
    const boardFile = join(tmp, "board.json");
    writeFileSync(boardFile, r.stdout);
    const v = await runCommand(process.execPath, [CLI, "verify", shuffled, boardFile, "--json"], { cwd: ROOT, killAfterSec: 60 });
    rmSync(boardFile, { force: true });
    verified = v.code === 0;
    if (!verified) {
      status = "invalid";
      note = `: the board did not verify: ${v.stdout.trim().slice(0, 400)} ${v.stderr.trim().slice(0, 400)}`;
    }
  }
  if ((status === "sat" || status === "unsat") && status !== board.expect) {
    note = `: answered ${status} but the puzzle is ${board.expect}`;
    status = "wrong";
  }
  if (status === "invalid" || status === "wrong") bad++;
  if (status.startsWith("error")) note = `: ${r.stderr.trim().split("\n").slice(-3).join(" | ")}`;
  const solved = status === board.expect && (status === "unsat" || verified === true) && r.seconds <= limit;
  const row: FrontierRow = {
    suite: board.suite, board: board.name, seed, config, args, repeat, status, verified, solved,
    seconds: +r.seconds.toFixed(3), limit, exit: r.code, leftover: r.leftover, load1: load,
    commit: git.commit, dirty: git.dirty, session, at: new Date().toISOString(),
  };
  process.stderr.write(`${board.name} seed ${seed} ${config}${repeats > 1 ? ` #${repeat}` : ""}: ${status} ${r.seconds.toFixed(2)} s` +
    `${solved ? "" : " (unsolved)"}${verified ? " verified" : ""}${r.leftover ? `, killed ${r.leftover} leftover processes` : ""}${note}\n`);
  return row;
}

try {
  mkdirSync(dirname(out), { recursive: true });
  const git = gitState();
  process.stderr.write(`frontier: ${boards.length} boards x seeds ${seeds.join(",")} x ${configs.join(",")}` +
    `${repeats > 1 ? ` x ${repeats} repeats` : ""}, limit ${limit} s (hard kill at ${limit + grace} s), commit ${git.commit.slice(0, 7)}${git.dirty ? " (uncommitted changes)" : ""} -> ${out}\n`);
  for (const board of boards) {
    for (const seed of seeds) {
      if (interrupted) break;
      const shuffled = await shuffle(board, seed);
      for (let rep = 1; rep <= repeats && !interrupted; rep++) {
        for (const config of configs) {
          if (interrupted) break;
          const row = await runOne(board, seed, shuffled, config, rep, git);
          if (interrupted) break; // a run cut short by Ctrl-C is not a measurement
          appendFileSync(out, JSON.stringify(row) + "\n");
        }
      }
      rmSync(shuffled, { force: true });
    }
  }
} finally {
  if (!interrupted) cleanup();
}
if (!interrupted) {
  process.stdout.write("\n");
  printSummary();
  if (bad) {
    process.stderr.write(`frontier: ${bad} runs printed a board that did not verify or a wrong answer (see above)\n`);
    process.exitCode = 3;
  }
}
