/**
 * Shared by the solver runner's tests (test/integration/solver-*.test.ts): formulas whose answers are known
 * (pigeonhole PHP(n, h) is satisfiable iff n <= h, and PHP(12, 11) is far too hard for a 1 s run) written to a temp
 * directory, the scripted fake solvers in test/fixtures/fake-solvers, a model check, and the check that no process
 * of the solver's group is left behind.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after } from "node:test";
import { fileURLToPath } from "node:url";
import { runSolver, type SolverInput, type SolverOptions, type SolverOutcome } from "../../host/solver/index.js";

export const FAKES = join(dirname(fileURLToPath(import.meta.url)), "../fixtures/fake-solvers");
export const fake = (name: string): string => join(FAKES, name);

export const dir = mkdtempSync(join(tmpdir(), "cubist-solver-runner-"));
after(() => rmSync(dir, { recursive: true, force: true }));

export type Clauses = number[][];

/** Pigeonhole: n pigeons into h holes, variable p*h + j + 1 = pigeon p sits in hole j. SAT iff n <= h. */
export function pigeonhole(n: number, h: number): { numVars: number; clauses: Clauses } {
  const v = (p: number, j: number): number => p * h + j + 1;
  const clauses: Clauses = [];
  for (let p = 0; p < n; p++) clauses.push(Array.from({ length: h }, (_, j) => v(p, j)));
  for (let j = 0; j < h; j++) {
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) clauses.push([-v(a, j), -v(b, j)]);
  }
  return { numVars: n * h, clauses };
}

export function dimacs(numVars: number, clauses: Clauses): string {
  return `p cnf ${numVars} ${clauses.length}\n${clauses.map((c) => `${c.join(" ")} 0\n`).join("")}`;
}

export function writeCnf(name: string, numVars: number, clauses: Clauses): string {
  const file = join(dir, name);
  writeFileSync(file, dimacs(numVars, clauses));
  return file;
}

/** The DIMACS text in chunks of `size` bytes, as a sync iterable of Buffers. */
export function* chunked(text: string, size: number): Generator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

/** The same, as an async generator that yields to the event loop between chunks. */
export async function* chunkedAsync(text: string, size: number): AsyncGenerator<Uint8Array> {
  for (const chunk of chunked(text, size)) {
    await new Promise((resolve) => setImmediate(resolve));
    yield chunk;
  }
}

export function assertSatisfies(model: Uint8Array, numVars: number, clauses: Clauses): void {
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
export function liveGroupMembers(pgid: number): string[] {
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
export function assertGone(pid: number | undefined): void {
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
export async function run(
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
export async function runFailing(
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

export const sat = pigeonhole(5, 5);
export const unsat = pigeonhole(5, 4);
export const hard = pigeonhole(12, 11);
export const satFile = writeCnf("php-5-5.cnf", sat.numVars, sat.clauses);
export const unsatFile = writeCnf("php-5-4.cnf", unsat.numVars, unsat.clauses);
export const hardFile = writeCnf("php-12-11.cnf", hard.numVars, hard.clauses);
export const tinyFile = writeCnf("tiny.cnf", 3, [[1, 2], [-1, 3], [-2, -3]]);
