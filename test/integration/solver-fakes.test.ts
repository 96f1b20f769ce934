/**
 * The solver runner against scripted fake solvers (test/fixtures/fake-solvers) for crashes, hangs, garbage output,
 * early exits and input backpressure, and its own checks of options, binaries and aborts. Every run checks that no
 * process of the solver's group is left behind. The real kissat and cadical: solver-runner.test.ts.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { InvalidOptionError } from "../../core/errors.js";
import { locateSolver, runSolver, SolverCrashedError, SolverNotFoundError, SolverOutputError, type SolverName, type SolverOptions } from "../../host/solver/index.js";
import { assertGone, dir, fake, run, runFailing, tinyFile } from "../helpers/solver-runner.js";

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
