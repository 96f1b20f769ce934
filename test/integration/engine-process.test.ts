/**
 * The native placement engine as a process: limits, stops and signals through its runner, and, as a bare process,
 * input and usage errors (a message naming the line, never a crash or a made-up answer).
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { generatePuzzle } from "../../core/generate.js";
import { createRandom } from "../../core/random.js";
import { verifySolution } from "../../core/verify.js";
import { EngineCrashedError, EngineNotFoundError, EngineOutputError, locateEngine, runEngine } from "../../worker/engine/index.js";
import { assertGone, trackedEngine as trackedHelper } from "../helpers/engine.js";
import { ENGINE, PARALLEL, E2, UNSAT5, UNSAT6, problem, engine, pool, toBoard , runDirect } from "../helpers/engine-oracle.js";

const dir = mkdtempSync(join(tmpdir(), "cubist-engine-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** An engine wrapper that records its pid (the engine's: it execs) in a file, for checking that no process is left. */
function trackedEngine(name: string): { binary: string; pids(): number[] } {
  return trackedHelper(dir, name);
}

// ---- 1. limits, stops and signals ----

test("engine limits - a node limit and a time limit end in unknown with their reason; a solution limit ends a count", async () => {
  const nodes = await engine(E2, [], { nodeLimit: 5_000 });
  assert.equal(nodes.kind, "unknown");
  if (nodes.kind === "unknown") assert.equal(nodes.reason, "node-limit");
  assert.equal(nodes.stats.end, "node-limit");
  assert.equal(nodes.stats.nodes, 5_000);

  // With restarts the limit counts every pass's placements.
  const restarting = await engine(UNSAT6, [], { nodeLimit: 10_000, restartBase: 50, seed: 4 });
  assert.deepEqual([restarting.kind, restarting.stats.end, restarting.stats.nodes], ["unknown", "node-limit", 10_000]);
  assert.ok(restarting.stats.restarts > 0);

  // A limit larger than the search needs changes nothing.
  assert.equal((await engine(UNSAT5, [], { nodeLimit: 1_000_000 })).kind, "unsat");
  assert.equal((await engine(UNSAT5, [], { nodeLimit: 100 })).kind, "unknown");

  const time = await engine(E2, [], { timeLimitMs: 300 });
  assert.equal(time.kind, "unknown");
  if (time.kind === "unknown") assert.equal(time.reason, "time-limit");
  assert.equal(time.stats.end, "time-limit");
  assert.ok(time.stats.seconds >= 0.3 && time.stats.seconds < 2, `seconds ${time.stats.seconds}`);
  assert.ok(time.stats.wallMs < 5_000 && time.stats.nodes > 0);

  const g = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
  const some = await engine(g.puzzle, [], { count: true, solutionLimit: 5, printAll: true });
  assert.equal(some.kind, "sat");
  assert.equal(some.stats.end, "solution-limit");
  assert.equal(some.stats.solutions, 5);
  if (some.kind === "sat") assert.equal(some.boards.length, 5);
});

test("engine stop - an abort stops the run promptly as 'aborted' with its statistics, and leaves no process", async () => {
  const tracked = trackedEngine("abort");
  const stop = new AbortController();
  const progress: number[] = [];
  let abortedAt = 0;
  const o = await engine(E2, [], {
    binary: tracked.binary,
    signal: stop.signal,
    progressMs: 20,
    onProgress: (p) => {
      progress.push(p.nodes);
      assert.equal(p.of, 256);
      if (progress.length === 3) {
        abortedAt = performance.now();
        stop.abort();
      }
    },
  });
  const took = performance.now() - abortedAt;
  assert.equal(o.kind, "unknown");
  if (o.kind === "unknown") assert.equal(o.reason, "aborted");
  assert.ok(took < 900, `stopped ${took} ms after the abort (the grace period is 1000 ms)`);
  assert.equal(o.stats.end, "stopped", "the engine printed its statistics on SIGTERM");
  assert.ok(o.stats.nodes >= progress[2] && o.stats.depth > 0 && o.stats.of === 256);
  assert.deepEqual([...progress].sort((a, b) => a - b), progress, "progress only grows");
  assert.equal(tracked.pids().length, 1);
  await assertGone(tracked.pids());

  // Aborted before the start: no process at all.
  const pre = trackedEngine("pre-aborted");
  const none = await engine(E2, [], { binary: pre.binary, signal: AbortSignal.abort() });
  assert.deepEqual([none.kind, none.kind === "unknown" && none.reason], ["unknown", "aborted"]);
  assert.deepEqual(pre.pids(), []);
});

test("engine stop - a process that ignores SIGTERM is killed after the grace period; nothing is left", async () => {
  const pidFile = join(dir, "deaf.pids");
  const binary = join(dir, "deaf.sh");
  writeFileSync(binary, `#!/bin/sh\ntrap '' TERM\necho $$ >> "${pidFile}"\nsleep 30 &\nwait\n`);
  chmodSync(binary, 0o755);
  const stop = new AbortController();
  setTimeout(() => stop.abort(), 200);
  const started = performance.now();
  const o = await engine(E2, [], { binary, signal: stop.signal, killGraceMs: 300 });
  const took = performance.now() - started;
  assert.deepEqual([o.kind, o.kind === "unknown" && o.reason], ["unknown", "aborted"]);
  assert.ok(took >= 450 && took < 5_000, `settled after ${took} ms`);
  const pids = readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number);
  await assertGone(pids);
});

test("engine signals - SIGTERM and SIGINT make the engine print its statistics and exit 0 with UNKNOWN", async () => {
  for (const sig of ["SIGTERM", "SIGINT"] as const) {
    const child = spawn(ENGINE, ["--progress-ms", "20"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    const progressed = new Promise<void>((resolve) => child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("c progress")) resolve();
    }));
    child.stdin.end(problem(E2));
    await progressed;
    child.kill(sig);
    const { code, signal } = await closed;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, sig);
    const lines = out.split("\n");
    assert.ok(lines.includes("s UNKNOWN"), out);
    assert.ok(lines.includes("c end stopped"), out);
    const nodes = Number(lines.find((l) => l.startsWith("c nodes "))?.slice(8));
    assert.ok(nodes > 0, out);
    assert.match(out, /^c depth \d+ of 256$/m);
    assert.doesNotMatch(out, /^v /m);
  }
});

test("engine runner - a SIGTERM from elsewhere is 'interrupted', a SIGKILL a crash; a missing binary is EngineNotFoundError", async () => {
  for (const [sig, expect] of [["SIGTERM", "interrupted"], ["SIGKILL", "crash"]] as const) {
    const tracked = trackedEngine(`foreign-${sig}`);
    let sent = false;
    const run = engine(E2, [], {
      binary: tracked.binary,
      progressMs: 20,
      onProgress: () => {
        if (sent) return;
        sent = true;
        process.kill(tracked.pids()[0], sig);
      },
    });
    if (expect === "crash") {
      await assert.rejects(run, (err: unknown) => err instanceof EngineCrashedError && /killed by SIGKILL/.test(err.message));
    } else {
      const o = await run;
      assert.deepEqual([o.kind, o.kind === "unknown" && o.reason, o.stats.end], ["unknown", "interrupted", "stopped"]);
    }
    await assertGone(tracked.pids());
  }
  await assert.rejects(engine(UNSAT5, [], { binary: join(dir, "no-such-engine") }), EngineNotFoundError);
  assert.throws(() => locateEngine({ CUBIST_ENGINE: join(dir, "no-such-engine") }), /CUBIST_ENGINE names no executable file/);
  assert.equal(locateEngine({ CUBIST_ENGINE: ENGINE }), ENGINE);
});

test("engine runner - output that contradicts the exit code, or garbage, is an error, never an answer", async () => {
  const fake = (name: string, body: string): string => {
    const file = join(dir, `${name}.sh`);
    writeFileSync(file, `#!/bin/sh\ncat > /dev/null\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  };
  const board = Array.from({ length: 25 }, (_, c) => `${c} ${c} 0`).join(" ");
  const cases: Array<[string, string, (err: unknown) => boolean]> = [
    ["sat-exit-20", 'echo "s SATISFIABLE"; exit 20', (e) => e instanceof EngineCrashedError && /exit 20 with status 'sat'/.test(e.message)],
    ["sat-without-board", 'echo "s SATISFIABLE"; exit 10', (e) => e instanceof EngineCrashedError && /exit 10 with status 'sat'/.test(e.message)],
    ["unsat-exit-10", `echo "s UNSATISFIABLE"; echo "v ${board}"; exit 10`, (e) => e instanceof EngineCrashedError && /exit 10 with status 'unsat'/.test(e.message)],
    ["no-status", "exit 20", (e) => e instanceof EngineCrashedError && /status 'none'/.test(e.message)],
    ["exit-3", 'echo "boom" >&2; exit 3', (e) => e instanceof EngineCrashedError && /exit 3.*boom/.test(e.message)],
    ["garbage", 'echo "hello world"; exit 10', (e) => e instanceof EngineOutputError && /unexpected engine output line 'hello world'/.test(e.message)],
    ["short-board", 'echo "s SATISFIABLE"; echo "v 0 0 0"; exit 10', (e) => e instanceof EngineOutputError && /1 placements for 25 cells/.test(e.message)],
    ["segv", "kill -SEGV $$", (e) => e instanceof EngineCrashedError && /killed by SIGSEGV/.test(e.message)],
  ];
  for (const [name, body, check] of cases) await assert.rejects(engine(UNSAT5, [], { binary: fake(name, body) }), check, name);
  // A board the fake invents is passed on (whether it solves anything is the verifier's call) ...
  const o = await engine(UNSAT5, [], { binary: fake("invented", `echo "s SATISFIABLE"; echo "v ${board}"; exit 10`) });
  assert.equal(o.kind, "sat");
  // ... and the verifier rejects it.
  if (o.kind === "sat") assert.equal(verifySolution(UNSAT5, toBoard(UNSAT5, o.board)).ok, false);
});

// ---- 2. bad input ----

const TINY = "cubist-engine 1\n2 2\n0 1 2 0\n0 0 3 1\n2 4 0 0\n3 0 0 4\n"; // the four corners of a 2x2, then the fixed count

test("engine input - a well-formed problem with comments, CRLF and blank lines is read", async () => {
  const text = "cubist-engine 1 # header\r\n\r\n# size\n2 2\n0 1 2 0   # a corner\n0 0 3 1\n\t2 4 0 0\n3 0 0 4\n1\n0 0 0 # fixed\n\n";
  const r = await runDirect([], text);
  assert.deepEqual([r.code, r.stderr], [10, ""]);
  assert.match(r.stdout, /^s SATISFIABLE\nv 0 0 0 1 1 0 2 2 0 3 3 0\n/);
});

test("engine input - malformed problems exit 1 with a message naming the line; runEngine throws EngineCrashedError with it", { timeout: 60_000 }, async () => {
  const big = "99999999999999999999999";
  const cases: Array<[string, string | Buffer, string]> = [
    ["empty", "", "line 1: expected the header 'cubist-engine 1'"],
    ["no header", "2 2\n0 1 2 0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["other version", TINY.replace("cubist-engine 1", "cubist-engine 2") + "0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["version 12 is not version 1", TINY.replace("cubist-engine 1\n2 2", "cubist-engine 12 2") + "0\n", "line 1: expected the header 'cubist-engine 1'"],
    ["header only", "cubist-engine 1\n", "line 2: expected rows, found the end of the input"],
    ["rows 0", "cubist-engine 1\n0 2\n", "line 2: rows 0 out of range 1..64"],
    ["rows 65", "cubist-engine 1\n65 2\n", "line 2: rows 65 out of range 1..64"],
    ["negative cols", "cubist-engine 1\n2 -2\n", "line 2: cols -2 out of range 1..64"],
    ["huge rows", `cubist-engine 1\n${big} 2\n`, `line 2: rows '${big.slice(0, 20)}' out of range`],
    ["word for rows", "cubist-engine 1\ntwo 2\n", "line 2: expected rows, found 'two'"],
    ["number glued to a word", "cubist-engine 1\n2x2\n", "line 2: expected rows, found '2x2'"],
    ["too few pieces", TINY.split("\n").slice(0, 5).join("\n") + "\n", "line 6: expected colour, found the end of the input"],
    ["a piece with three colours", TINY.replace("0 0 3 1\n", "0 0 3\n") + "0\n", "line 8: expected number of fixed placements, found the end of the input"],
    ["colour 256", TINY.replace("2 4 0 0", "2 256 0 0") + "0\n", "line 5: colour 256 out of range 0..255"],
    ["negative colour", TINY.replace("2 4 0 0", "2 -4 0 0") + "0\n", "line 5: colour -4 out of range 0..255"],
    ["fractional colour", TINY.replace("2 4 0 0", "2 4.5 0 0") + "0\n", "line 5: expected colour, found '4.5'"],
    ["huge colour", TINY.replace("2 4 0 0", `2 ${big} 0 0`) + "0\n", "line 5: colour '99999999999999999999' out of range"],
    ["a bounded puzzle one row high", "cubist-engine 1\n1 2\n0 1 0 0\n0 0 0 1\n0\n", "a bounded puzzle needs at least 2 rows and 2 columns"],
    ["no fixed count", TINY, "line 7: expected number of fixed placements, found the end of the input"],
    ["more fixed than cells", TINY + "5\n", "line 7: number of fixed placements 5 out of range 0..4"],
    ["fewer fixed than announced", TINY + "2\n0 0 0\n", "line 9: expected cell, found the end of the input"],
    ["cell out of range", TINY + "1\n4 0 0\n", "line 8: cell 4 out of range 0..3"],
    ["piece out of range", TINY + "1\n0 4 0\n", "line 8: piece 4 out of range 0..3"],
    ["rotation 4", TINY + "1\n0 0 4\n", "line 8: rotation 4 out of range 0..3"],
    ["a cell fixed twice", TINY + "2\n0 0 0\n0 1 1\n", "line 9: cell 0 is fixed twice"],
    ["a piece fixed twice", TINY + "2\n0 0 0\n1 0 1\n", "line 9: piece 0 is fixed twice"],
    ["a trailing number", TINY + "0\n7\n", "line 8: unexpected data after the fixed placements: '7'"],
    ["trailing garbage", TINY + "0\nxyz\n", "line 8: unexpected data after the fixed placements: 'xyz'"],
    ["trailing garbage on the last line", TINY + "1\n0 0 0 zz", "line 8: unexpected data after the fixed placements: 'zz'"],
    ["a NUL byte", Buffer.concat([Buffer.from(TINY + "0\n"), Buffer.from([0]), Buffer.from("junk")]), "line 8: a NUL byte"],
    ["a NUL byte inside", Buffer.concat([Buffer.from("cubist-engine 1\n2 2\n0 1"), Buffer.from([0]), Buffer.from(" 2 0\n")]), "line 3: a NUL byte"],
  ];
  await pool(cases, PARALLEL, async ([what, stdin, message]) => {
    const r = await runDirect([], stdin);
    assert.deepEqual({ code: r.code, signal: r.signal, stdout: r.stdout }, { code: 1, signal: null, stdout: "" }, what);
    assert.equal(r.stderr, `cubist-engine: error: stdin ${message}\n`, what);
    await assert.rejects(
      runEngine(stdin.toString(), { rows: 2, cols: 2, pieces: 4 }),
      (err: unknown) => err instanceof EngineCrashedError && err.message.includes(`(exit 1): cubist-engine: error: stdin ${message}`),
      what,
    );
  });
});

test("engine usage - bad options exit 2 with a message; runEngine turns that into EngineCrashedError", async () => {
  const cases: Array<[string[], RegExp]> = [
    [["--frobnicate"], /bad or incomplete option '--frobnicate'/],
    [["--order", "diagonal"], /unknown order 'diagonal'/],
    [["--order"], /bad or incomplete option '--order'/],
    [["--part", "2/2"], /--part wants K\/N with 0 <= K < N, got '2\/2'/],
    [["--part", "1/2x"], /got '1\/2x'/],
    [["--part", "-1/2"], /got '-1\/2'/],
    [["--seed", "-1"], /bad or incomplete option '--seed'/],
    [["--nodes", "1e6"], /bad or incomplete option '--nodes'/],
    [["--nodes", "99999999999999999999999"], /bad or incomplete option '--nodes'/],
    [["--seed", "18446744073709551616"], /bad or incomplete option '--seed'/],
    [["--time-ms"], /bad or incomplete option '--time-ms'/],
    [["--symmetry", "--count"], /--symmetry would change a count/],
    [["--lns", "5"], /--lns improves score mode's boards: with --score/],
  ];
  for (const [args, message] of cases) {
    const r = await runDirect(args, TINY + "0\n");
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.stderr, message, args.join(" "));
    assert.equal(r.stdout, "");
  }
  const help = await runDirect(["--help"], "");
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: cubist-engine/);
  await assert.rejects(runEngine(TINY + "0\n", { rows: 2, cols: 2, pieces: 4 }, { part: { k: 2, n: 2 } }), (err: unknown) => err instanceof EngineCrashedError && /\(exit 2\).*--part wants K\/N/.test(err.message));
});

test("engine input - random garbage and mangled problems never crash it: exit 1 with a message, or a consistent answer", { timeout: 60_000 }, async () => {
  const rng = createRandom("engine-garbage");
  const valid = problem(generatePuzzle({ rows: 3, cols: 4, borderColors: 2, centerColors: 2, seed: 11 }).puzzle, []);
  const tokens = valid.split(/(\s+)/);
  const inputs: Array<string | Buffer> = [];
  for (let i = 0; i < 12; i++) inputs.push(Buffer.from(Array.from({ length: rng.nextInt(300) }, () => rng.nextInt(256))));
  for (let i = 0; i < 8; i++) inputs.push(Buffer.concat([Buffer.from("cubist-engine 1\n"), Buffer.from(Array.from({ length: rng.nextInt(200) }, () => rng.nextInt(256)))]));
  const mangle = [
    () => String(rng.nextInt(1000) - 500),
    () => "99999999999999999999999999",
    () => "-9223372036854775808",
    () => ["x", "#", "--", "0x1f", "1e3", "+3", "", "\n\n", "\0"][rng.nextInt(9)],
    () => String(rng.nextInt(70)),
  ];
  for (let i = 0; i < 30; i++) {
    const t = [...tokens];
    for (let k = 0; k < 1 + rng.nextInt(3); k++) {
      const at = 2 * rng.nextInt(Math.ceil(t.length / 2));
      const how = rng.nextInt(3);
      if (how === 0) t.splice(at, 1);
      else if (how === 1) t.splice(at, 0, mangle[rng.nextInt(mangle.length)](), " ");
      else t[at] = mangle[rng.nextInt(mangle.length)]();
    }
    let text = t.join("");
    if (rng.nextInt(5) === 0) text = text.slice(0, rng.nextInt(text.length));
    inputs.push(text);
  }
  let rejected = 0;
  await pool(inputs, PARALLEL, async (stdin, i) => {
    const what = `input ${i}: ${JSON.stringify(stdin.toString().slice(0, 200))}`;
    const r = await runDirect(["--nodes", "200000"], stdin);
    assert.equal(r.signal, null, what);
    if (r.code === 1) {
      rejected++;
      assert.equal(r.stdout, "", what);
      assert.match(r.stderr, /^cubist-engine: error: stdin (line \d+: .+|a bounded puzzle needs at least 2 rows and 2 columns)\n$/s, what);
      assert.equal(r.stderr.indexOf("\n"), r.stderr.length - 1, `${what}: a one-line message`);
      return;
    }
    assert.equal(r.stderr, "", what);
    const status = { 10: "s SATISFIABLE", 20: "s UNSATISFIABLE", 0: "s UNKNOWN" }[r.code as 0 | 10 | 20];
    assert.ok(status !== undefined, `${what}: exit ${r.code}`);
    assert.equal(r.stdout.split("\n").filter((l) => l.startsWith("s ")).join("|"), status, what);
    assert.match(r.stdout, /^c end (exhausted|solution-limit|node-limit)$/m, what);
  });
  assert.ok(rejected >= inputs.length / 2, `only ${rejected} of ${inputs.length} rejected`);
});

