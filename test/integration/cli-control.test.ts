/**
 * The control-plane CLI against a real cluster: a private nats-server, a `cubist coordinator` process (gRPC on a
 * free port), one `cubist worker` process running real Kissat, and every `cubist run ...`, `cubes list`,
 * `cube resplit`, `solution show` invocation as its own process (cli-auth.test.ts: a coordinator that requires a
 * bearer token). Boards are checked with the verifier; nothing may be left running afterwards.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawn } from "node:child_process";
import { cubistCommand, REPO_ROOT, spawnCubist, trackChild, type CubistProcess, runCubist, type CubistResult, stopProcesses } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { scoreBoard, verifySolution } from "../../core/verify.js";
import { until } from "../helpers/poll.js";
import { startCliCoordinator } from "../helpers/cli-coordinator.js";

const marker = newMarker();
let nats: TestNats;
let temp: string;
let coordinator: CubistProcess;
let worker: CubistProcess;
let address: string;
/** The open coordinator's dashboard and /metrics. */
let httpBase: string;
let stopping = false;

/** Runs one `cubist` command against the coordinator without a token. */
async function cubist(args: string[], env: Record<string, string> = {}): Promise<CubistResult> {
  return runCubist(args, { env: { ...marker.env, CUBIST_COORDINATOR: address, CUBIST_AUTH_TOKEN: "", ...env } });
}

function json<T = Record<string, unknown>>(r: CubistResult): T {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

function stop(p: CubistProcess | undefined): Promise<void> {
  return stopProcesses([p], 8000);
}

before(async () => {
  temp = mkdtempSync(join(tmpdir(), "cubist-cli-control-"));
  nats = await startTestNats({ layout: false });
  ({ proc: coordinator, address, http: httpBase } = await startCliCoordinator(nats.url, [], { http: "127.0.0.1:0", env: marker.env, expected: () => stopping }));
  worker = spawnCubist([
    "worker", "--nats", nats.url, "--id", "cw1", "--concurrency", "1", "--cache-dir", join(temp, "cache"),
    "--status-interval", "0.5", "--grace", "0", "--log-level", "warn",
  ], { env: marker.env });
});

after(async () => {
  stopping = true;
  await stop(worker);
  await stop(coordinator);
  await nats?.close();
  rmSync(temp, { recursive: true, force: true });
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cli control - a satisfiable puzzle: submit prints the run, watch follows it to SAT, show/list report it, solution show verifies", async () => {
  const sub = json<{ run: string; state: string; rows: number; cols: number; cubing: { targetCubes: number } }>(
    await cubist(["run", "submit", "examples/clue1.txt", "--cubes", "8", "--json"]),
  );
  assert.match(sub.run, /^[A-Za-z0-9_-]+$/);
  assert.ok(["splitting", "running", "sat"].includes(sub.state), sub.state);
  assert.deepEqual([sub.rows, sub.cols, sub.cubing.targetCubes], [6, 6, 8]);
  const run = sub.run;

  // Not a terminal: plain lines (one per printed status), the solution, and how the run ended.
  const w = await cubist(["run", "watch", run, "--interval", "1"]);
  assert.equal(w.code, 0, w.stderr);
  const lines = w.stdout.trimEnd().split("\n");
  assert.ok(lines.some((l) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${run} (running [\\d.<]+% closed|sat solved) \\| cubes: \\d+ queued, \\d+ running, `).test(l)), w.stdout);
  assert.ok(lines.some((l) => l.startsWith(`solution 0 found in cube `)), w.stdout);
  assert.match(lines[lines.length - 1], new RegExp(`^run ${run} sat: solution found in cube \\S+`));
  // eslint-disable-next-line no-control-regex -- the terminal escape is the point
  assert.doesNotMatch(w.stdout, /\x1b\[/, "no terminal escapes in a pipe");

  const shown = json<{ run: string; state: string; solutions: number; name: string }>(await cubist(["run", "show", run, "--json"]));
  assert.deepEqual([shown.run, shown.state, shown.solutions, shown.name], [run, "sat", 1, "clue1"]);
  const text = await cubist(["run", "show", run]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^state\s+sat \(solution found in cube \S+\)$/m);
  assert.match(text.stdout, /^solutions\s+1 \(cubist solution show /m);
  // (Not "0 running": the coordinator counts running cubes from worker heartbeats, which lag the end by up to one beat.)
  assert.match(text.stdout, /^cubes\s+\d+ queued, \d+ running, \d+ unsat, 1 sat, /m);

  const all = json<Array<{ run: string }>>(await cubist(["run", "list", "--json"]));
  assert.ok(all.some((r) => r.run === run));
  const sat = await cubist(["run", "list", "--state", "sat"]);
  assert.match(sat.stdout, /^RUN\s+STATE\s+PROGRESS/);
  assert.match(sat.stdout, new RegExp(`^${run}\\s+sat\\s`, "m"));
  assert.ok(!json<Array<{ run: string }>>(await cubist(["run", "list", "--state", "unsat", "--json"])).some((r) => r.run === run));

  const svg = join(temp, "clue1.svg");
  const sol = json<{ status: string; rows: number; cols: number; board: unknown; run: string; index: number }>(
    await cubist(["solution", "show", run, "--json", "--svg", svg]),
  );
  assert.deepEqual([sol.status, sol.rows, sol.cols, sol.run, sol.index], ["sat", 6, 6, run, 0]);
  const puzzle = parsePuzzle(readFileSync("examples/clue1.txt", "utf8"), "examples/clue1.txt");
  assert.deepEqual(verifySolution(puzzle, readBoardJSON(sol.board, puzzle)), { ok: true });
  assert.match(readFileSync(svg, "utf8"), /<svg[\s>]/);
  const grid = await cubist(["solution", "show", run]);
  assert.equal(grid.code, 0, grid.stderr);
  assert.match(grid.stdout, new RegExp(`^solution 0 \\(verified\\) of run ${run} \\(clue1, 6x6\\)`));
  assert.match(grid.stdout, /^\+------\+/m);

  const none = await cubist(["solution", "show", run, "--index", "3"]);
  assert.equal(none.code, 1);
  assert.equal(none.stderr, `cubist solution show: NOT_FOUND: run ${run} has 1 solution(s); no index 3\n`);
});

test("cli control - submit --watch on an unsatisfiable puzzle: verdict lines, exit 20, every cube refuted", async () => {
  // Kissat on 16 cubes: long enough (about a second) for the watch to attach before the verdicts come. The engine's
  // scan cubes refute this board in about 50 ms, before a watch started after the submit sees any verdict.
  const r = await cubist(["run", "submit", "test/fixtures/cluster/unsat-5x5.txt", "--cubes", "16", "--solver", "kissat", "--search-ms", "0", "--watch", "--verdicts", "--interval", "1"]);
  assert.equal(r.code, 20, r.stderr + r.stdout);
  const lines = r.stdout.trimEnd().split("\n");
  const run = lines[0];
  assert.match(run, /^[A-Za-z0-9_-]+$/, "the run id comes first");
  assert.ok(lines.some((l) => /^verdict cube \S+: unsat by cw1 in \S+ \(\d+ conflicts\)$/.test(l)), r.stdout);
  assert.match(lines[lines.length - 1], new RegExp(`^run ${run} unsat: every cube refuted; closed weights sum to 1( after \\S+)? \\(100\\.0% closed, 0 solution\\(s\\)\\)$`));

  const s = json<{ state: string; progress: number; cubes: Record<string, number>; name: string }>(await cubist(["run", "show", run, "--json"]));
  assert.equal(s.state, "unsat");
  assert.equal(s.name, "gen-5x5-b3-c6-s1", "the run takes the puzzle's `# name:` line, not the file's name (unsat-5x5)");
  assert.ok(Math.abs(s.progress - 1) < 1e-9);
  assert.deepEqual([s.cubes.queued, s.cubes.running, s.cubes.failed], [0, 0, 0]);
  const cubes = json<{ total: number; cubes: Array<{ state: string; worker: string }> }>(await cubist(["cubes", "list", run, "--state", "unsat", "--json"]));
  assert.equal(cubes.total, s.cubes.unsat);
  assert.ok(cubes.cubes.length > 0 && cubes.cubes.every((c) => c.state === "unsat" && c.worker === "cw1"), JSON.stringify(cubes));

  // Watching a run that already ended prints its end and exits with its code; with --verdicts, first the verdicts
  // of every closed cube, from the coordinator's record.
  const again = await cubist(["run", "watch", run, "--verdicts"]);
  assert.equal(again.code, 20, again.stderr);
  assert.match(again.stdout, new RegExp(`^run ${run} unsat: `, "m"));
  const earlier = again.stdout.split("\n").filter((l) => /^verdict cube \S+: unsat by cw1 in \S+ \(closed before this watch\)$/.test(l));
  assert.equal(earlier.length, s.cubes.unsat, again.stdout);
  const events = (await cubist(["run", "watch", run, "--verdicts", "--json"])).stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { event: string; earlier?: boolean });
  assert.equal(events.filter((e) => e.event === "verdict" && e.earlier === true).length, s.cubes.unsat);

  // The ended run's rate is its average over the time it ran, and stays so (not a window that empties after the end).
  type Rates = { cubesPerSecond: number; runningSeconds: number; cubes: Record<string, number> };
  const ended = json<Rates>(await cubist(["run", "show", run, "--json"]));
  assert.ok(ended.runningSeconds > 0);
  const average = (ended.cubes.unsat + ended.cubes.sat) / ended.runningSeconds;
  assert.ok(Math.abs(ended.cubesPerSecond - average) < 1e-9 * average, `${ended.cubesPerSecond} cubes/s vs the average ${average}`);
  await sleep(1500);
  assert.equal(json<Rates>(await cubist(["run", "show", run, "--json"])).cubesPerSecond, ended.cubesPerSecond);
  assert.match((await cubist(["run", "show", run])).stdout, /^rate\s+\d+\.\d\d cubes\/s on average$/m);
});

test("cli control - a long run: cubes list filters (subtree time, file piece ids), watch | head, a second run waits and says why, run priority, purged cubes, Ctrl-C on watch, pause/resume (--now), cube resplit, cancel", async () => {
  const run = "ctl-slow";
  const sub = await cubist(["run", "submit", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--cubes", "4", "--cube-time", "300", "--cube-time-first", "300", "--id", run]);
  assert.equal(sub.code, 0, sub.stderr);
  assert.equal(sub.stdout, `${run}\n`);
  assert.match(sub.stderr, new RegExp(`^run ${run} submitted: .*16x16.*; follow it with: cubist run watch ${run}\\n$`));

  type Cubes = { total: number; cubes: Array<{ cube: string; state: string; worker: string; runningSec: number; placements?: Array<{ row: number; col: number; piece: number; rot: number }> }> };
  const list = async (...args: string[]): Promise<Cubes> => json<Cubes>(await cubist(["cubes", "list", run, "--json", ...args]));
  const running = await until("a running cube", 20_000, async () => (await list("--state", "running")).cubes[0]);
  assert.equal(running.worker, "cw1");
  const stuck = await until("a cube running for 1s", 10_000, async () => (await list("--stuck", "1s")).cubes[0]);
  assert.equal(stuck.cube, running.cube);
  assert.ok(stuck.runningSec >= 1);
  assert.equal((await list("--stuck", "10m")).total, 0);
  assert.equal((await cubist(["cubes", "list", run, "--stuck", "10m"])).stdout, "no matching cubes\n");
  assert.deepEqual((await list("--worker", "cw1")).cubes.map((c) => c.cube), [running.cube]);
  assert.equal((await list("--worker", "nobody")).total, 0);
  const limited = await list("--limit", "2", "--placements");
  assert.equal(limited.cubes.length, 2);
  assert.ok(limited.total >= 4, `total ${limited.total}`);
  assert.ok(limited.cubes.every((c) => (c.placements?.length ?? 0) > 0 && c.placements!.every((p) => p.row >= 0 && p.row < 9 && p.col >= 0 && p.col < 9)));
  const table = await cubist(["cubes", "list", run, "--placements", "--limit", "2"]);
  assert.match(table.stdout, /^CUBE\s+STATE\s+WEIGHT\s+WORKER\s+RUNNING\s+UNKNOWNS\s+ERRORS\s+SUBTREE\s+REASON\s+PLACEMENTS$/m);
  assert.match(table.stdout, /r\dc\d=p\d+\/[0-3]/);
  assert.match(table.stdout, /^\(2 of \d+ matching cubes shown; raise --limit for more\)$/m);
  // Pieces as the file numbers them (E2: the official 1..256), with the 0-based index beside them in JSON.
  for (const c of limited.cubes) for (const p of c.placements!) assert.equal(p.piece, (p as unknown as { pieceIndex: number }).pieceIndex + 1);
  const firstPlacement = limited.cubes[0].placements![0];
  assert.match(table.stdout, new RegExp(`r${firstPlacement.row}c${firstPlacement.col}=p${firstPlacement.piece}/${firstPlacement.rot}`));
  // The subtree column: the initial cube the cube descends from and the solver time it has taken.
  assert.match(table.stdout, /^\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+\s+\d+\s+\d+: \S+/m);

  // A piped reader that stops early (| head -3) ends the watch quietly: no EPIPE stack trace.
  const piped = spawn("sh", ["-c", `"$0" "$@" | head -3`, process.execPath, ...cubistCommand(), "run", "watch", run, "--json", "--verdicts", "--interval", "0.1"], {
    cwd: REPO_ROOT, env: { ...process.env, ...marker.env, CUBIST_COORDINATOR: address }, stdio: ["ignore", "pipe", "pipe"],
  });
  const pipedOut = trackChild(piped);
  assert.equal((await pipedOut.exited).code, 0);
  assert.equal(pipedOut.stdout().trimEnd().split("\n").length, 3);
  assert.doesNotMatch(pipedOut.stderr(), /EPIPE|Error|at /);

  // A second run while the only slot is busy with this one waits, and says why; its priority can change.
  const second = await cubist(["run", "submit", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--cubes", "4", "--id", "ctl-second"]);
  assert.equal(second.code, 0, second.stderr);
  const waiting = await until("ctl-second waiting", 60_000, async () => {
    const w = json<{ waiting: string }>(await cubist(["run", "show", "ctl-second", "--json"])).waiting;
    return w ? w : undefined;
  });
  assert.equal(waiting, `1/1 slots busy with ${run} (priority 0)`);
  assert.match((await cubist(["run", "show", "ctl-second"])).stdout, new RegExp(`^waiting\\s+1/1 slots busy with ${run} \\(priority 0\\)$`, "m"));
  assert.equal((await cubist(["run", "priority", "ctl-second", "-3"])).code, 2, "a negative value needs --");
  const prio = await cubist(["run", "priority", "ctl-second", "--", "-3"]);
  assert.equal(prio.stdout, "run ctl-second priority -3\n", prio.stderr);
  assert.equal(json<{ priority: number }>(await cubist(["run", "show", "ctl-second", "--json"])).priority, -3);
  const badPrio = await cubist(["run", "priority", "ctl-second", "5000"]);
  assert.equal(badPrio.code, 2);
  assert.match(badPrio.stderr, /priority must be an integer in -1000\.\.1000, got "5000"/);
  assert.equal((await cubist(["run", "cancel", "ctl-second"])).code, 0);
  const endedPrio = await cubist(["run", "priority", "ctl-second", "1"]);
  assert.equal(endedPrio.code, 1);
  assert.match(endedPrio.stderr, /FAILED_PRECONDITION: run ctl-second already ended/);
  // A cancelled run's open cubes are purged, listed as such, and --state purged finds them.
  assert.equal((await list("--state", "purged")).total, 0, "the long run has none");
  const secondPurged = json<{ total: number; cubes: Array<{ state: string }> }>(await cubist(["cubes", "list", "ctl-second", "--json"]));
  assert.ok(secondPurged.total >= 4 && secondPurged.cubes.every((c) => c.state === "purged"), JSON.stringify(secondPurged));
  assert.equal(json<{ total: number }>(await cubist(["cubes", "list", "ctl-second", "--state", "purged", "--json"])).total, secondPurged.total);

  const badStuck = await cubist(["cubes", "list", run, "--stuck", "10x"]);
  assert.equal(badStuck.code, 1);
  assert.match(badStuck.stderr, /--stuck: expected a duration like 30s, 10m, 2h or 1h30m; got "10x"/);

  // Ctrl-C only stops the watching.
  const watch = spawnCubist(["run", "watch", run, "--interval", "1"], { env: { ...marker.env, CUBIST_COORDINATOR: address } });
  await until("a watch line", 15_000, async () => (watch.stdout().includes(" closed | cubes: ") ? true : undefined));
  watch.kill("SIGINT");
  assert.equal((await watch.exited).code, 130, watch.stderr());
  assert.match(watch.stderr(), new RegExp(`stopped watching; run ${run} is still running`));

  const state = async (): Promise<string> => json<{ state: string }>(await cubist(["run", "show", run, "--json"])).state;
  assert.equal(await state(), "running");
  assert.equal((await cubist(["run", "pause", run])).stdout, `run ${run} paused\n`);
  assert.equal(await state(), "paused");
  const twice = await cubist(["run", "pause", run]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, new RegExp(`^cubist run pause: FAILED_PRECONDITION: run ${run} is paused, not running\\n$`));
  assert.equal((await cubist(["run", "resume", run])).stdout, `run ${run} running\n`);
  assert.equal(await state(), "running");
  const resumeAgain = await cubist(["run", "resume", run]);
  assert.equal(resumeAgain.code, 1);
  assert.match(resumeAgain.stderr, /FAILED_PRECONDITION: .*not paused/);

  // --now stops the running cube; it is queued again, and runs again after resume.
  await until("a running cube", 15_000, async () => (await list("--state", "running")).cubes[0]);
  const now = await cubist(["run", "pause", run, "--now"]);
  assert.equal(now.code, 0, now.stderr);
  await until("no running cube after pause --now", 15_000, async () => ((await list("--state", "running")).total === 0 ? true : undefined));
  const shown = await cubist(["run", "show", run]);
  assert.match(shown.stdout, /^state\s+paused \(running cubes stopped\)$/m);
  assert.match(shown.stdout, /^cubes\s+\d+ queued, 0 running, /m);
  // Paused: no ETA, and the clock of "running for" stands still.
  assert.match(shown.stdout, /^ETA\s+none while paused$/m);
  assert.match(shown.stdout, /^running for\s+\S+ \(stopped while paused\)$/m);
  type Clock = { etaSeconds: number; runningSeconds: number };
  const before = json<Clock>(await cubist(["run", "show", run, "--json"]));
  await sleep(1500);
  const later = json<Clock>(await cubist(["run", "show", run, "--json"]));
  assert.equal(later.runningSeconds, before.runningSeconds, "running time stands still while paused");
  assert.deepEqual([before.etaSeconds, later.etaSeconds], [-1, -1]);
  assert.ok(before.runningSeconds > 0);
  assert.equal((await cubist(["run", "resume", run])).code, 0);

  // Re-split a queued cube: its children are printed; it is closed as resplit and cannot be re-split again.
  const queued = (await list("--state", "queued")).cubes.find((c) => !c.cube.includes("."));
  assert.ok(queued, "a queued cube of the initial split");
  const rs = await cubist(["cube", "resplit", run, queued.cube, "--depth", "1"]);
  assert.equal(rs.code, 0, rs.stderr);
  const children = rs.stdout.trimEnd().split("\n");
  assert.ok(children.length >= 1);
  children.forEach((c, k) => assert.equal(c, `${queued.cube}.${k}`));
  assert.match(rs.stderr, new RegExp(`^cube ${queued.cube.replace(".", "\\.")} re-split into ${children.length} child(ren)? \\(\\d+ branch(es)? refuted by the splitter\\)\\n$`));
  assert.ok((await list("--state", "resplit")).cubes.some((c) => c.cube === queued.cube));
  const all = await list();
  for (const c of children) assert.ok(all.cubes.some((x) => x.cube === c), `child ${c} listed`);
  const closed = await cubist(["cube", "resplit", run, queued.cube]);
  assert.equal(closed.code, 1);
  assert.match(closed.stderr, /^cubist cube resplit: FAILED_PRECONDITION: cube \S+ is resplit: /);
  const missing = await cubist(["cube", "resplit", run, "99"]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, `cubist cube resplit: NOT_FOUND: run ${run} has no cube "99"\n`);
  const both = await cubist(["cube", "resplit", run, "1", "--depth", "1", "--children", "4"]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /--depth and --children exclude each other/);
  const jsonSplit = json<{ run: string; cube: string; children: string[]; refuted: number }>(
    await cubist(["cube", "resplit", run, children[0], "--children", "3", "--json"]),
  );
  assert.equal(jsonSplit.cube, children[0]);
  assert.ok(jsonSplit.children.length + jsonSplit.refuted >= 1);

  const cancel = await cubist(["run", "cancel", run, "--reason", "test over"]);
  assert.equal(cancel.stdout, `run ${run} cancelled: test over\n`);
  const after = json<{ state: string; message: string }>(await cubist(["run", "show", run, "--json"]));
  assert.deepEqual([after.state, after.message], ["cancelled", "test over"]);
  const again = await cubist(["run", "cancel", run]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /FAILED_PRECONDITION: run ctl-slow already ended/);
  const ended = await cubist(["run", "watch", run]);
  assert.equal(ended.code, 30, ended.stderr);
  assert.match(ended.stdout, /^run ctl-slow cancelled: test over/m);
});

test("cli control - a score run's best board comes out: run best (text, --json read by render and verify, --svg, --bucas), best in run show --json and run list, solution show points to run best", async () => {
  const board = "test/fixtures/brendan/pieces_08x08.txt";
  const submitted = await cubist(["run", "submit", board, "--objective", "score", "--cube-time", "3600", "--id", "ctl-score"]);
  const run = submitted.stdout.trim();
  assert.equal(run, "ctl-score");
  // No formula is encoded for a score run: every view says it has none, none says 0 variables.
  assert.match(submitted.stderr, /submitted: .*, 8x8, no CNF formula \(a score run\), /);
  assert.match((await cubist(["run", "show", run])).stdout, /^puzzle\s+8x8, no CNF formula \(a score run\)$/m);
  const formulaFields = json<{ vars: unknown; clauses: unknown }>(await cubist(["run", "show", run, "--json"]));
  const apiSpec = ((await (await fetch(`${httpBase}/api/runs/${run}`)).json()) as { spec: { numVars: unknown; numClauses: unknown } }).spec;
  assert.deepEqual([formulaFields.vars, formulaFields.clauses, apiSpec.numVars, apiSpec.numClauses], [null, null, null, null]);
  const puzzle = parsePuzzle(readFileSync(board, "utf8"), board);
  type Shown = { state: string; solutions: number; etaSeconds: number; cubes: { running: number }; best: { score: number; maxScore: number; placed: number; board: unknown } | null };
  const shown = await until("a best board", 60_000, async () => {
    const s = json<Shown>(await cubist(["run", "show", run, "--json"]));
    return s.best ? s : undefined;
  });
  // A score run has no ETA (nothing to close).
  assert.equal(shown.etaSeconds, -1);
  assert.match((await cubist(["run", "show", run])).stdout, /^ETA\s+none \(a score run improves its best board until it is stopped\)$/m);
  // run show --json: the best board's cells, scored by the verifier as the coordinator says.
  const fromShow = readBoardJSON(shown.best!.board, puzzle);
  assert.equal(scoreBoard(puzzle, fromShow), shown.best!.score);
  assert.equal(shown.best!.maxScore, 112);
  assert.equal(shown.best!.placed, 64);
  // Running counts agree everywhere: the one worker's slot is busy with the run's one score slot.
  const counts = await until("the busy slot in every view", 20_000, async () => {
    const showRunning = json<Shown>(await cubist(["run", "show", run, "--json"])).cubes.running;
    const listed = json<{ total: number; cubes: Array<{ cube: string; state: string; worker: string }> }>(await cubist(["cubes", "list", run, "--state", "running", "--json"]));
    const detail = (await (await fetch(`${httpBase}/api/runs/${run}`)).json()) as { run: { cubes: { running: number } }; running: Array<{ cubeId: string }> };
    const metric = /cubist_run_cubes\{run="ctl-score",state="running"\} (\d+)/.exec(await (await fetch(`${httpBase}/metrics`)).text());
    const all = [showRunning, listed.total, detail.run.cubes.running, detail.running.length, Number(metric?.[1] ?? -1)];
    return all.every((n) => n === 1) ? { listed, detail } : undefined;
  });
  assert.deepEqual(counts.listed.cubes.map((c) => [c.cube, c.state, c.worker]), [["score-0", "running", "cw1"]]);
  assert.deepEqual(counts.detail.running.map((c) => c.cubeId), ["score-0"]);
  // run list: the best score of a score run.
  const list = await cubist(["run", "list"]);
  assert.match(list.stdout, /\bBEST\b/);
  assert.match(list.stdout.split("\n").find((l) => l.startsWith("ctl-score")) ?? "", / \d+\/112 /);

  // run best --json: a file that render and verify read as it is.
  const file = join(temp, "best.json");
  const svg = join(temp, "best.svg");
  const best = await cubist(["run", "best", run, "--json", "--svg", svg]);
  const out = json<{ score: number; maxScore: number; placed: number; board: unknown }>(best);
  assert.ok(out.score >= shown.best!.score && out.maxScore === 112 && out.placed === 64, best.stdout);
  writeFileSync(file, best.stdout);
  assert.match(readFileSync(svg, "utf8"), /^<svg/);
  const rendered = await cubist(["render", board, file]);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.match(rendered.stdout, new RegExp(`^score ${out.score} of 112: 64 of 64 cells placed`));
  const verified = await cubist(["verify", board, file, "--json"]);
  assert.equal(JSON.parse(verified.stdout).score, out.score, verified.stderr);
  const text = await cubist(["run", "best", run]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^best board \(checked\) of run ctl-score .*: score \d+ of 112, 64 of 64 cells/);
  const link = await cubist(["run", "best", run, "--bucas"]);
  assert.match(link.stdout, /^https:\/\/e2\.bucas\.name\/#puzzle=.*board_w=8&board_h=8/);

  // solution show: no solution, and where the best board is.
  const sol = await cubist(["solution", "show", run]);
  assert.equal(sol.code, 1);
  assert.match(sol.stderr, /NOT_FOUND: run ctl-score has no solution; a score run: its best board so far has score \d+ of 112 \(64 cells\): cubist run best ctl-score\n$/);
  assert.equal((await cubist(["run", "cancel", run])).code, 0);
  // A run without a best board: NOT_FOUND from run best.
  const none = await cubist(["run", "best", "nosuch"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /NOT_FOUND/);
});

test("cli control - bad input: a malformed puzzle is INVALID_ARGUMENT naming file:line; the coordinator keeps serving", async () => {
  const file = "test/fixtures/cluster/malformed-line5.txt";
  const bad = await cubist(["run", "submit", file]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, `cubist run submit: INVALID_ARGUMENT: ${file}:5: expected a piece \`id N E S W\` (5 fields), found 2\n`);
  // With --name the file is checked before it is sent: the same file:line, without a status.
  const named = await cubist(["run", "submit", file, "--name", "x"]);
  assert.equal(named.code, 1);
  assert.equal(named.stderr, `cubist run submit: ${file}:5: expected a piece \`id N E S W\` (5 fields), found 2\n`);
  const badId = await cubist(["run", "submit", "examples/clue1.txt", "--id", "no spaces"]);
  assert.equal(badId.code, 1);
  assert.match(badId.stderr, /^cubist run submit: INVALID_ARGUMENT: run id: "no spaces" must be/);
  const taken = await cubist(["run", "submit", "examples/clue1.txt", "--id", "ctl-slow"]);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /^cubist run submit: ALREADY_EXISTS: /);
  const noRun = await cubist(["run", "show", "nosuch"]);
  assert.equal(noRun.code, 1);
  assert.equal(noRun.stderr, 'cubist run show: NOT_FOUND: no run "nosuch"\n');

  // Still serving.
  assert.ok(json<unknown[]>(await cubist(["run", "list", "--json"])).length >= 3);

  const down = await cubist(["run", "list", "--coordinator", "127.0.0.1:1"]);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /^cubist run list: coordinator at 127\.0\.0\.1:1 is unreachable \(.*ECONNREFUSED.*\); .*--coordinator HOST:PORT or CUBIST_COORDINATOR\n$/);
  const usage = await cubist(["run", "show"]);
  assert.equal(usage.code, 2);
});
