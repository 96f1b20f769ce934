/**
 * The solver runner against the real kissat and cadical (formulas whose answers are known: pigeonhole PHP(n, h) is
 * satisfiable iff n <= h, and PHP(12, 11) is far too hard for a 1 s run), and against scripted fake solvers in
 * test/fixtures/fake-solvers for crashes, hangs, garbage output and early exits. Every run checks that no process
 * of the solver's group is left behind.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { InvalidOptionError } from "../../core/errors.js";
import {
  locateSolver,
  runSolver,
  SolverCrashedError,
  SolverNotFoundError,
  SolverOutputError,
  type SolverInput,
  type SolverName,
  type SolverOptions,
  type SolverOutcome,
} from "../../host/solver/index.js";

const FAKES = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/fake-solvers");
const fake = (name: string): string => join(FAKES, name);

const dir = mkdtempSync(join(tmpdir(), "cubist-solver-runner-"));
after(() => rmSync(dir, { recursive: true, force: true }));

type Clauses = number[][];

/** Pigeonhole: n pigeons into h holes, variable p*h + j + 1 = pigeon p sits in hole j. SAT iff n <= h. */
function pigeonhole(n: number, h: number): { numVars: number; clauses: Clauses } {
  const v = (p: number, j: number): number => p * h + j + 1;
  const clauses: Clauses = [];
  for (let p = 0; p < n; p++) clauses.push(Array.from({ length: h }, (_, j) => v(p, j)));
  for (let j = 0; j < h; j++) {
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) clauses.push([-v(a, j), -v(b, j)]);
  }
  return { numVars: n * h, clauses };
}

function dimacs(numVars: number, clauses: Clauses): string {
  return `p cnf ${numVars} ${clauses.length}\n${clauses.map((c) => `${c.join(" ")} 0\n`).join("")}`;
}

function writeCnf(name: string, numVars: number, clauses: Clauses): string {
  const file = join(dir, name);
  writeFileSync(file, dimacs(numVars, clauses));
  return file;
}

/** The DIMACS text in chunks of `size` bytes, as a sync iterable of Buffers. */
function* chunked(text: string, size: number): Generator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** The same, as an async generator that yields to the event loop between chunks. */
async function* chunkedAsync(text: string, size: number): AsyncGenerator<Uint8Array> {
  for (const chunk of chunked(text, size)) {
    await new Promise((resolve) => setImmediate(resolve));
    yield chunk;
  }
}

function assertSatisfies(model: Uint8Array, numVars: number, clauses: Clauses): void {
  assert.equal(model.length, numVars + 1);
  assert.equal(model[0], 0);
  for (const clause of clauses) {
    assert.ok(
      clause.some((lit) => (lit > 0 ? model[lit] === 1 : model[-lit] === 0)),
      `clause ${clause.join(" ")} is falsified`,
    );
  }
}

/** Processes of group `pgid` that are alive (not zombies waiting for init to reap them), from /proc. */
function liveGroupMembers(pgid: number): string[] {
  const live: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // exited meanwhile
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z") live.push(`${entry} (${stat.slice(0, stat.lastIndexOf(")") + 1)})`);
  }
  return live;
}

/**
 * Asserts that the solver process is gone (reaped) and nothing of its process group is still running. Members
 * killed with the group may linger for a moment as zombies until init reaps them: those are not running.
 */
function assertGone(pid: number | undefined): void {
  assert.ok(pid !== undefined && pid > 0, "the solver was spawned");
  assert.throws(() => process.kill(pid, 0), { code: "ESRCH" }, `process ${pid} is still alive`);
  // A member SIGKILLed with the group closes its files (ending the call) a moment before /proc shows it as a
  // zombie; on a loaded machine that moment was seen in CI. Give the kernel up to a second to finish the kill.
  const until = Date.now() + 1000;
  let live = liveGroupMembers(pid);
  while (live.length > 0 && Date.now() < until) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    live = liveGroupMembers(pid);
  }
  assert.deepEqual(live, [], `process group ${pid} still has live members`);
}

/** runSolver, remembering the pid. */
async function run(
  input: SolverInput,
  numVars: number,
  options: SolverOptions = {},
): Promise<{ outcome: SolverOutcome; pid: number | undefined }> {
  let pid: number | undefined;
  const outcome = await runSolver(input, numVars, {
    ...options,
    onSpawn: (p) => {
      pid = p;
      options.onSpawn?.(p);
    },
  });
  return { outcome, pid };
}

/** runSolver that must reject; returns the error and the pid. */
async function runFailing(
  input: SolverInput,
  numVars: number,
  options: SolverOptions = {},
): Promise<{ error: unknown; pid: number | undefined }> {
  let pid: number | undefined;
  try {
    const outcome = await runSolver(input, numVars, { ...options, onSpawn: (p) => (pid = p) });
    assert.fail(`expected an error, got ${JSON.stringify({ ...outcome, model: undefined })}`);
  } catch (error) {
    if (error instanceof assert.AssertionError) throw error;
    return { error, pid };
  }
}

const sat = pigeonhole(5, 5);
const unsat = pigeonhole(5, 4);
const hard = pigeonhole(12, 11);
const satFile = writeCnf("php-5-5.cnf", sat.numVars, sat.clauses);
const unsatFile = writeCnf("php-5-4.cnf", unsat.numVars, unsat.clauses);
const hardFile = writeCnf("php-12-11.cnf", hard.numVars, hard.clauses);
const tinyFile = writeCnf("tiny.cnf", 3, [[1, 2], [-1, 3], [-2, -3]]);

for (const solver of ["kissat", "cadical"] as SolverName[]) {
  test(`${solver} - a satisfiable formula from a file gives a model that satisfies every clause`, async () => {
    const { outcome, pid } = await run(satFile, sat.numVars, { solver, seed: 7 });
    assert.equal(outcome.kind, "sat");
    if (outcome.kind !== "sat") return;
    assertSatisfies(outcome.model, sat.numVars, sat.clauses);
    assert.equal(outcome.stats.exitCode, 10);
    assert.equal(outcome.stats.signal, null);
    assert.equal(typeof outcome.stats.conflicts, "number");
    assert.equal(typeof outcome.stats.propagations, "number");
    assert.ok(outcome.stats.maxRssBytes! > 1 << 20, "peak RSS is measured");
    assertGone(pid);
  });

  test(`${solver} - a satisfiable formula streamed from a generator gives a valid model`, async () => {
    const { outcome, pid } = await run(chunked(dimacs(sat.numVars, sat.clauses), 7), sat.numVars, { solver });
    assert.equal(outcome.kind, "sat");
    if (outcome.kind === "sat") assertSatisfies(outcome.model, sat.numVars, sat.clauses);
    assertGone(pid);
  });

  test(`${solver} - a 20000-variable model, over many output chunks, from 4 KiB input chunks, is exact`, async () => {
    // x1, and x(i+1) = not x(i): the only model sets exactly the odd variables.
    const n = 20000;
    const clauses: Clauses = [[1]];
    for (let i = 1; i < n; i++) clauses.push([i, i + 1], [-i, -(i + 1)]);
    const { outcome, pid } = await run(chunkedAsync(dimacs(n, clauses), 4096), n, { solver });
    assert.equal(outcome.kind, "sat");
    if (outcome.kind === "sat") {
      assert.equal(outcome.model.length, n + 1);
      for (let v = 1; v <= n; v++) if (outcome.model[v] !== v % 2) assert.fail(`variable ${v} is ${outcome.model[v]}`);
    }
    assertGone(pid);
  });

  test(`${solver} - an unsatisfiable formula is unsat, from a file and from an async generator`, async () => {
    const fromFile = await run(unsatFile, unsat.numVars, { solver });
    assert.equal(fromFile.outcome.kind, "unsat");
    assert.equal(fromFile.outcome.stats.exitCode, 20);
    assertGone(fromFile.pid);
    const streamed = await run(chunkedAsync(dimacs(unsat.numVars, unsat.clauses), 64), unsat.numVars, { solver });
    assert.equal(streamed.outcome.kind, "unsat");
    assertGone(streamed.pid);
  });

  test(`${solver} - a conflict limit ends a hard formula as unknown conflict-limit`, async () => {
    const { outcome, pid } = await run(hardFile, hard.numVars, { solver, conflictLimit: 500 });
    assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "conflict-limit"]);
    assert.ok(outcome.stats.conflicts! >= 500, `conflicts ${outcome.stats.conflicts}`);
    assert.equal(outcome.stats.exitCode, 0);
    assertGone(pid);
  });

  test(`${solver} - a 1 s time limit ends a hard formula as unknown time-limit`, async () => {
    const { outcome, pid } = await run(hardFile, hard.numVars, { solver, timeLimitSec: 1 });
    assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "time-limit"]);
    assert.equal(outcome.stats.exitCode, 0, "the solver stopped itself, before our watchdog");
    assert.ok(outcome.stats.wallMs >= 900 && outcome.stats.wallMs < 2500, `wall ${outcome.stats.wallMs} ms`);
    // Both limits are wall-clock: on a busy machine the solver may get far less than 1 s of CPU.
    assert.ok(outcome.stats.conflicts! > 0 && outcome.stats.cpuMs! > 0, JSON.stringify(outcome.stats));
    assertGone(pid);
  });

  test(`${solver} - an abort mid-solve gives unknown aborted within 1.5 s and leaves no process`, async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    setTimeout(() => {
      abortedAt = performance.now();
      controller.abort();
    }, 300);
    const { outcome, pid } = await run(hardFile, hard.numVars, { solver, signal: controller.signal });
    const settleMs = performance.now() - abortedAt;
    assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "aborted"]);
    assert.ok(abortedAt > 0 && settleMs < 1500, `settled ${settleMs} ms after the abort`);
    assert.equal(outcome.stats.signal, "SIGTERM");
    assertGone(pid);
  });

  test(`${solver} - a SIGINT from elsewhere gives unknown interrupted`, async () => {
    let timer: NodeJS.Timeout | undefined;
    const { outcome, pid } = await run(hardFile, hard.numVars, {
      solver,
      timeLimitSec: 10, // only a safety net: the SIGINT comes after 300 ms
      onSpawn: (p) => (timer = setTimeout(() => process.kill(p, "SIGINT"), 300)),
    });
    clearTimeout(timer);
    assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "interrupted"]);
    assert.equal(outcome.stats.signal, "SIGINT");
    assertGone(pid);
  });
}

test("fake solver - a valid scripted answer is parsed across v lines", async () => {
  const { outcome, pid } = await run(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: ["valid-sat"] });
  assert.equal(outcome.kind, "sat");
  if (outcome.kind === "sat") assert.deepEqual([...outcome.model], [0, 1, 0, 1]);
  assertGone(pid);
});

test("fake solver - dying of SIGSEGV is a SolverCrashedError with the end of stderr", async () => {
  const { error, pid } = await runFailing(tinyFile, 3, { binary: fake("crash-segv.sh") });
  assert.ok(error instanceof SolverCrashedError, String(error));
  assert.equal(error.signal, "SIGSEGV");
  assert.equal(error.exitCode, null);
  assert.match(error.message, /killed by SIGSEGV/);
  assert.match(error.message, /corrupted watch list/);
  assertGone(pid);
});

test("fake solver - exit code 1 is a SolverCrashedError with the end of stderr", async () => {
  const { error, pid } = await runFailing(tinyFile, 3, { binary: fake("crash-exit1.sh") });
  assert.ok(error instanceof SolverCrashedError, String(error));
  assert.equal(error.exitCode, 1);
  assert.match(error.stderrTail, /out of memory/);
  assert.match(error.stdoutTail, /fake solver starting/);
  assertGone(pid);
});

test("fake solver - one that ignores SIGTERM is SIGKILLed after the grace period on abort", async () => {
  const started = performance.now();
  const { outcome, pid } = await run(tinyFile, 3, {
    binary: fake("hang.sh"),
    signal: AbortSignal.timeout(100),
    killGraceMs: 300,
  });
  const elapsed = performance.now() - started;
  assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "aborted"]);
  assert.equal(outcome.stats.signal, "SIGKILL");
  assert.ok(elapsed >= 380 && elapsed < 1500, `took ${elapsed} ms`);
  assertGone(pid); // the group: also the background sleep the script started
});

test("fake solver - one that ignores its time limit is stopped by the watchdog as unknown time-limit", async () => {
  const { outcome, pid } = await run(tinyFile, 3, {
    binary: fake("hang.sh"),
    timeLimitSec: 0.1,
    watchdogSlackMs: 100,
    killGraceMs: 200,
  });
  assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "time-limit"]);
  assert.equal(outcome.stats.signal, "SIGKILL");
  assert.ok(outcome.stats.wallMs >= 380 && outcome.stats.wallMs < 1500, `wall ${outcome.stats.wallMs} ms`);
  assertGone(pid);
});

const garbage: [behaviour: string, reason: RegExp][] = [
  ["contradictory", /variable 1 both true and false/],
  ["out-of-range", /literal 4 out of range \(the formula has 3 variables\)/],
  ["unterminated", /not terminated by 0/],
  ["unparsable", /unparsable v line "v 1 x2 3 0"/],
  ["no-model", /without a model/],
  ["text-exit-10", /exit code 10 without an s line/],
  ["no-s-exit-20", /exit code 20 without an s line/],
  ["s-disagrees", /s UNSATISFIABLE contradicts exit code 10/],
  ["sat-exit-0", /s SATISFIABLE contradicts exit code 0/],
];
for (const [behaviour, reason] of garbage) {
  test(`fake solver - garbage output (${behaviour}) is a SolverOutputError`, async () => {
    const { error, pid } = await runFailing(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: [behaviour] });
    assert.ok(error instanceof SolverOutputError, String(error));
    assert.match(error.reason, reason);
    assertGone(pid);
  });
}

test("fake solver - s UNKNOWN with exit 0 is interrupted without limits, conflict-limit with one", async () => {
  const plain = await run(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: ["unknown-exit-0"] });
  assert.deepEqual([plain.outcome.kind, plain.outcome.kind === "unknown" && plain.outcome.reason], ["unknown", "interrupted"]);
  // The fake ignores the option; the runner reads "no conflict count printed, only a conflict limit set" as that limit.
  const limited = await run(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: ["unknown-exit-0"], conflictLimit: 5 });
  assert.equal(limited.outcome.kind === "unknown" && limited.outcome.reason, "conflict-limit");
  assertGone(plain.pid);
  assertGone(limited.pid);
});

test("fake solver - dying of a SIGTERM we did not send is unknown interrupted", async () => {
  const { outcome, pid } = await run(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: ["self-term"] });
  assert.deepEqual([outcome.kind, outcome.kind === "unknown" && outcome.reason], ["unknown", "interrupted"]);
  assert.equal(outcome.stats.signal, "SIGTERM");
  assertGone(pid);
});

test("fake solver - a child left running after the answer is killed with the group", async () => {
  const { outcome, pid } = await run(tinyFile, 3, { binary: fake("scripted.sh"), extraArgs: ["leave-child"] });
  assert.equal(outcome.kind, "unsat");
  assertGone(pid);
});

/** 64 KiB chunks of comment lines, `total` of them, counting how many were taken and whether it was closed. */
function countingInput(total: number): { input: AsyncGenerator<Uint8Array>; taken: () => number; closed: () => boolean } {
  const chunk = Buffer.from(`c ${"x".repeat(62)}\n`.repeat(1024));
  let taken = 0;
  let closed = false;
  async function* gen(): AsyncGenerator<Uint8Array> {
    try {
      for (let i = 0; i < total; i++) {
        taken++;
        yield chunk;
      }
    } finally {
      closed = true;
    }
  }
  return { input: gen(), taken: () => taken, closed: () => closed };
}

test("fake solver - exiting before reading stdin (EPIPE) is a crash, and the input is closed", async () => {
  const feed = countingInput(1024); // 64 MiB if it were all written
  const { error, pid } = await runFailing(feed.input, 3, { binary: fake("exit-early.sh") });
  assert.ok(error instanceof SolverCrashedError, String(error));
  assert.equal(error.exitCode, 1);
  assert.match(error.message, /cannot parse input/);
  assert.ok(feed.taken() < 1024, `took all ${feed.taken()} chunks`);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(feed.closed(), "the input generator was closed");
  assertGone(pid);
});

test("fake solver - a solver that does not read stalls the input (backpressure) until the abort", async () => {
  const feed = countingInput(1024);
  const { outcome, pid } = await run(feed.input, 3, {
    binary: fake("hang.sh"),
    signal: AbortSignal.timeout(300),
    killGraceMs: 100,
  });
  assert.equal(outcome.kind === "unknown" && outcome.reason, "aborted");
  // A pipe holds 64 KiB, the stream's buffer 16 KiB: without backpressure all 1024 chunks would be taken at once.
  assert.ok(feed.taken() <= 4, `took ${feed.taken()} chunks of 64 KiB`);
  assertGone(pid);
});

test("runner - an input that throws rejects with its error after the solver is gone", async () => {
  async function* broken(): AsyncGenerator<Uint8Array> {
    yield Buffer.from("p cnf 3 2\n1 2 0\n");
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw new Error("formula cache read failed");
  }
  const { error, pid } = await runFailing(broken(), 3, { solver: "kissat" });
  assert.ok(error instanceof Error);
  assert.equal(error.message, "formula cache read failed");
  assertGone(pid);
});

test("runner - an already aborted signal returns unknown aborted without spawning", async () => {
  let spawned = false;
  const outcome = await runSolver(tinyFile, 3, { signal: AbortSignal.abort(), onSpawn: () => (spawned = true) });
  assert.deepEqual(outcome, { kind: "unknown", reason: "aborted", stats: { wallMs: 0, exitCode: null, signal: null } });
  assert.equal(spawned, false);
});

test("runner - a missing or non-executable binary is a SolverNotFoundError naming scripts/setup.sh", async () => {
  await assert.rejects(runSolver(tinyFile, 3, { binary: join(dir, "no-such-kissat") }), (error: unknown) => {
    assert.ok(error instanceof SolverNotFoundError);
    assert.match(error.message, /no-such-kissat/);
    assert.match(error.message, /does not exist/);
    assert.match(error.message, /run scripts\/setup\.sh/);
    return true;
  });
  await assert.rejects(runSolver(tinyFile, 3, { binary: "kissat-not-installed-here" }), (error: unknown) => {
    assert.ok(error instanceof SolverNotFoundError);
    assert.match(error.message, /no executable "kissat-not-installed-here" on PATH/);
    assert.match(error.message, /scripts\/setup\.sh/);
    return true;
  });
  await assert.rejects(runSolver(tinyFile, 3, { binary: tinyFile }), (error: unknown) => {
    assert.ok(error instanceof SolverNotFoundError);
    assert.match(error.message, /is not an executable file/);
    return true;
  });
});

test("locate - solvers on PATH resolve to absolute executable paths", () => {
  assert.match(locateSolver("kissat"), /^\/.*\/kissat$/);
  assert.match(locateSolver("cadical"), /^\/.*\/cadical$/);
  assert.equal(locateSolver(fake("hang.sh")), fake("hang.sh"));
  assert.throws(() => locateSolver("kissat", { PATH: "" }), SolverNotFoundError);
});

test("runner - bad options are an InvalidOptionError naming the option", async () => {
  const bad: [SolverOptions, string][] = [
    [{ timeLimitSec: 0 }, "timeLimitSec"],
    [{ conflictLimit: -1 }, "conflictLimit"],
    [{ seed: 2 ** 31 }, "seed"],
    [{ solver: "minisat" as SolverName }, "solver"],
  ];
  for (const [options, name] of bad) {
    await assert.rejects(runSolver(tinyFile, 3, options), (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.option, name);
      return true;
    });
  }
  await assert.rejects(runSolver(tinyFile, 1.5), InvalidOptionError);
});
