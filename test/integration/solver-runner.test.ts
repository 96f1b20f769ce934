/**
 * The solver runner against the real kissat and cadical (formulas whose answers are known: pigeonhole PHP(n, h) is
 * satisfiable iff n <= h, and PHP(12, 11) is far too hard for a 1 s run). Every run checks that no process of the
 * solver's group is left behind. The scripted fake solvers: solver-fakes.test.ts.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { type SolverName } from "../../host/solver/index.js";
import { Clauses, assertGone, assertSatisfies, chunked, chunkedAsync, dimacs, hard, hardFile, run, sat, satFile, unsat, unsatFile } from "../helpers/solver-runner.js";


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
