/**
 * Test helpers that play the coordinator's part of docs/cluster.md by hand: put a run (RunRecord in the runs
 * bucket, formula in the Object Store, the run's pull consumer), publish cube tasks, read verdicts from the
 * verdict stream, change a run's state, broadcast cancels. Everything is real JetStream; nothing is mocked.
 */

import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ensureRunConsumer, ensureVerdictConsumer } from "../../cluster/layout.js";
import { dimacsChunks, encode, type Formula } from "../../core/encode/index.js";
import { writeCanonical } from "../../core/formats/index.js";
import type { Placement, Puzzle } from "../../core/puzzle.js";
import { Cancel, CubeTask, Verdict, type SolverSpec } from "../../proto/gen/cubist/v1/cube.js";
import { RunRecord, RunState, RunStatus, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { TestNats } from "./nats.js";

export interface TestRun {
  readonly id: string;
  readonly puzzle: Puzzle;
  readonly puzzleText: string;
  readonly puzzleSha256: string;
  readonly formula: Formula;
  readonly formulaSha256: string;
  readonly numVars: number;
  readonly spec: RunSpec;
}

export interface TestRunOptions {
  id: string;
  puzzle: Puzzle;
  /** @default "heule-all" */
  encoding?: string;
  /** @default RUNNING */
  state?: RunState;
  /** @default 0 */
  priority?: number;
  /** Consumer ack wait. @default 30000 */
  ackWaitMs?: number;
  /** Consumer max deliveries. @default 5 */
  maxDeliver?: number;
  /** Skip the formula upload (a run whose formula is missing). @default true */
  uploadFormula?: boolean;
  /** Solver spec recorded in the run (tasks carry their own). */
  solver?: Partial<SolverSpec>;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Uploads the formula's DIMACS under its SHA-256 (what the coordinator does); returns the hash. */
export async function uploadFormula(t: TestNats, formula: Formula): Promise<string> {
  const hash = createHash("sha256");
  for (const c of dimacsChunks(formula)) hash.update(c);
  const sha256 = hash.digest("hex");
  const it = dimacsChunks(formula)[Symbol.iterator]();
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  await t.layout.formulas.put({ name: sha256, description: "test formula" }, stream);
  return sha256;
}

function solverSpec(s: Partial<SolverSpec> = {}): SolverSpec {
  return { solver: s.solver ?? "kissat", timeLimitSec: s.timeLimitSec ?? 0, conflictLimit: s.conflictLimit ?? 0, seed: s.seed ?? 0, searchMs: s.searchMs ?? 0, firstTimeLimitSec: s.firstTimeLimitSec ?? 0, objective: s.objective ?? "" };
}

/** Puts a run: formula, record, consumer. */
export async function createTestRun(t: TestNats, options: TestRunOptions): Promise<TestRun> {
  const formula = encode(options.encoding ?? "heule-all", options.puzzle);
  let formulaSha256: string;
  if (options.uploadFormula === false) {
    const hash = createHash("sha256");
    for (const c of dimacsChunks(formula)) hash.update(c);
    formulaSha256 = hash.digest("hex");
  } else {
    formulaSha256 = await uploadFormula(t, formula);
  }
  const puzzleText = writeCanonical(options.puzzle);
  const spec: RunSpec = {
    runId: options.id,
    name: options.id,
    puzzleText,
    encoding: options.encoding ?? "heule-all",
    order: "",
    cubing: undefined,
    solver: solverSpec(options.solver),
    resplit: undefined,
    priority: options.priority ?? 0,
    mode: 1,
    createdUnixMs: Date.now(),
    puzzleSha256: sha256Hex(puzzleText),
    formulaSha256,
    numVars: formula.numVars,
    numClauses: formula.clauses.count,
    certify: false,
  };
  await ensureRunConsumer(t.jsm, t.names, options.id, { ackWaitMs: options.ackWaitMs ?? 30_000, maxDeliver: options.maxDeliver ?? 5 });
  const run: TestRun = { id: options.id, puzzle: options.puzzle, puzzleText, puzzleSha256: spec.puzzleSha256, formula, formulaSha256, numVars: formula.numVars, spec };
  await setRunState(t, run, options.state ?? RunState.RUN_STATE_RUNNING, { priority: options.priority });
  return run;
}

/** Writes the run's record with this state (and priority). */
export async function setRunState(t: TestNats, run: TestRun, state: RunState, extra: { priority?: number } = {}): Promise<void> {
  const record: RunRecord = {
    spec: run.spec,
    status: RunStatus.fromPartial({
      runId: run.id,
      state,
      etaSeconds: -1,
      startedUnixMs: run.spec.createdUnixMs,
      updatedUnixMs: Date.now(),
      priority: extra.priority ?? run.spec.priority,
    }),
  };
  await t.layout.runs.put(run.id, RunRecord.encode(record).finish());
}

/** A cube task of the run: units from the placements through the formula's variable map (plus `extraUnits`). */
export function cubeTask(run: TestRun, cubeId: string, options: { placements?: readonly Placement[]; extraUnits?: number[]; solver?: Partial<SolverSpec>; lease?: string; engineOrder?: string } = {}): CubeTask {
  const placements = options.placements ?? [];
  const units: number[] = [];
  for (const p of placements) units.push(...run.formula.varMap.placementLiterals(p));
  units.push(...(options.extraUnits ?? []));
  return {
    runId: run.id,
    cubeId,
    formulaSha256: run.formulaSha256,
    numVars: run.numVars,
    units,
    placements: placements.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })),
    solver: solverSpec(options.solver),
    generation: 0,
    puzzleSha256: run.puzzleSha256,
    lease: options.lease ?? `lease-${cubeId}`,
    certify: false,
    notWorker: "",
    engineOrder: options.engineOrder ?? "",
    engineMirror: false,
    engineCorner: 0,
  };
}

/** Publishes tasks on the run's subject (msg id `<run>:<cube>`); returns their stream sequences. */
export async function publishTasks(t: TestNats, tasks: readonly CubeTask[]): Promise<number[]> {
  const seqs: number[] = [];
  for (const task of tasks) {
    const ack = await t.layout.js.publish(t.names.cubesSubject(task.runId), CubeTask.encode(task).finish(), { msgID: `${task.runId}:${task.cubeId}` });
    seqs.push(ack.seq);
  }
  return seqs;
}

/** Publishes raw bytes on a subject of the cube stream (malformed-message tests). */
export async function publishRaw(t: TestNats, subject: string, data: Uint8Array): Promise<number> {
  return (await t.layout.js.publish(subject, data)).seq;
}

/**
 * Reads and acks verdicts from the verdict stream's `coordinator` consumer, created if missing (a coordinator that
 * takes the lead deletes it for its own, so do not run one at the same time) until `count` arrived or `timeoutMs` passed; returns what arrived.
 */
export async function readVerdicts(t: TestNats, count: number, timeoutMs = 20_000): Promise<Verdict[]> {
  const out: Verdict[] = [];
  const deadline = Date.now() + timeoutMs;
  let consumer: Awaited<ReturnType<typeof t.layout.js.consumers.get>> | null = null;
  while (out.length < count) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    // Tolerates NATS restarts: the consumer is looked up again until it answers.
    consumer ??= await ensureVerdictConsumer(t.jsm, t.names, t.names.verdictsConsumer)
      .then(() => t.layout.js.consumers.get(t.names.verdictsStream, t.names.verdictsConsumer)).catch(() => null);
    if (consumer === null) {
      await sleep(Math.min(200, left));
      continue;
    }
    const m = await consumer.next({ expires: Math.max(1000, Math.min(left, 5000)) }).catch(() => null);
    if (!m) continue;
    out.push(Verdict.decode(m.data));
    m.ack();
  }
  return out;
}

/** Waits `quietMs` and fails if any verdict arrives meanwhile; returns those that did. */
export async function verdictsWithin(t: TestNats, quietMs: number): Promise<Verdict[]> {
  return readVerdicts(t, Number.MAX_SAFE_INTEGER, quietMs);
}

/** Broadcasts a cancel for the whole run (cube empty) or one cube. */
export function publishCancel(t: TestNats, run: string, cube: string, reason: string): void {
  t.nc.publish(t.names.cancelSubject(run, cube || undefined), Cancel.encode({ runId: run, cubeId: cube, reason }).finish());
}

/** The run consumer's info (pending, ack pending, redelivered). */
export function runConsumerInfo(t: TestNats, run: string) {
  return t.jsm.consumers.info(t.names.cubesStream, t.names.runConsumer(run));
}

/** Polls `check` every 50 ms until it returns true or `timeoutMs` passes; returns the last result. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}
