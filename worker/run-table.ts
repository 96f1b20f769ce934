/**
 * What the worker knows about runs: the latest valid RunRecord of each run in the runs KV bucket, reduced to what
 * a worker needs (state, priority, formula, variable count, parsed puzzle; a score run has no formula). Records are never trusted: one that
 * does not decode or does not hold together is logged and ignored (the previous good record of that run stays).
 *
 * Runnable runs are those in state RUNNING, highest priority first (ties: the older run first). A run that leaves
 * RUNNING/PAUSED for a final state (SAT, UNSAT, FAILED, CANCELLED), or is deleted, is reported to `onStopped`
 * listeners so running cubes of it can be stopped.
 */

import { createHash } from "node:crypto";
import { parseAnyPuzzle } from "../core/formats/index.js";
import type { Puzzle } from "../core/puzzle.js";
import type { TrianglePuzzle } from "../core/triangle/puzzle.js";
import { isFormulaEncoding, parseFormulaPuzzle, type FormulaPuzzle } from "../core/cnf/run-formula.js";
import { RUN_ID_RE } from "../proto/contract.js";
import { RunRecord, RunState, type RunSpec } from "../proto/gen/cubist/v1/run.js";
import type { SolverSpec } from "../proto/gen/cubist/v1/cube.js";
import { isTerminal, runStateName } from "../proto/vocabulary.js";
import { isSha256Hex } from "../core/sha256.js";
import type { Logger } from "../cluster/log.js";

/** A run as the worker sees it. */
export interface WorkerRun {
  readonly id: string;
  readonly state: RunState;
  readonly priority: number;
  readonly createdUnixMs: number;
  readonly formulaSha256: string;
  readonly puzzleSha256: string;
  readonly numVars: number;
  /** The run's canonical puzzle, square or triangle, or its formula (for validating placements and the placement search). */
  readonly puzzle: Puzzle | TrianglePuzzle | FormulaPuzzle;
  readonly puzzleText: string;
  /** The run's solver spec (the tasks carry their own copy, which is what is used). */
  readonly solver: SolverSpec | undefined;
  /** The base formula's encoding and variable order (a certified cube's prover numbers placements as it does). */
  readonly encoding: string;
  readonly order: string;
  /** The cubing's cell order ("scan": cubes cut from the engine's own scan, searched with its symmetry rule). */
  readonly cellOrder: string;
  /** KV revision of the record. */
  readonly revision: number;
  /**
   * The run's best board's score as its record says (score runs: what every score search must beat, the shared bound;
   * docs/cluster.md "Score runs"), or null before one. Trusted only as a bound: a forged better score makes the
   * searches look for better boards still, nothing worse.
   */
  readonly best: { score: number; maxScore: number } | null;
}


/** Largest puzzle text accepted from a record (an Eternity II puzzle is ~5 KB). */
const MAX_PUZZLE_TEXT = 4 << 20;
/** Variable counts beyond this are not a formula a worker can hold. */
const MAX_VARS = 2 ** 31 - 1;

/** A record as WorkerRun, or the reason it is not acceptable. `previous` lets an unchanged puzzle skip re-parsing. */
export function workerRunFromRecord(
  key: string,
  value: Uint8Array,
  revision: number,
  previous?: WorkerRun,
): { ok: true; run: WorkerRun } | { ok: false; reason: string } {
  let record: RunRecord;
  try {
    record = RunRecord.decode(value);
  } catch (err) {
    return { ok: false, reason: `does not decode as RunRecord: ${(err as Error).message}` };
  }
  const spec = record.spec;
  if (!spec) return { ok: false, reason: "no spec" };
  if (!RUN_ID_RE.test(key)) return { ok: false, reason: "key is not a valid run id" };
  if (spec.runId !== key) return { ok: false, reason: `spec.run_id "${spec.runId.slice(0, 80)}" differs from the key` };
  const formula = formulaProblem(spec);
  if (formula !== null) return { ok: false, reason: formula };
  const state = record.status?.state ?? RunState.RUN_STATE_UNSPECIFIED;
  if (!(state in RunState) || state === RunState.RUN_STATE_UNSPECIFIED) return { ok: false, reason: `bad state ${state}` };
  if (spec.puzzleText.length > MAX_PUZZLE_TEXT) return { ok: false, reason: "puzzle text too large" };
  let puzzle: Puzzle | TrianglePuzzle | FormulaPuzzle;
  if (previous && previous.puzzleText === spec.puzzleText && previous.puzzleSha256 === spec.puzzleSha256) {
    puzzle = previous.puzzle;
  } else {
    const sha = createHash("sha256").update(spec.puzzleText).digest("hex");
    if (spec.puzzleSha256 !== "" && sha !== spec.puzzleSha256) return { ok: false, reason: "puzzle text does not hash to puzzle_sha256" };
    try {
      const label = `<run ${key}>`;
      puzzle = isFormulaEncoding(spec.encoding) ? parseFormulaPuzzle(spec.puzzleText, label, spec.encoding) : parseAnyPuzzle(spec.puzzleText, label, "canonical");
    } catch (err) {
      return { ok: false, reason: `puzzle text: ${(err as Error).message}` };
    }
  }
  // The status carries the current priority (a run's priority may change); the spec the one it was submitted with.
  const priority = record.status ? record.status.priority : spec.priority;
  return {
    ok: true,
    run: {
      id: key,
      state,
      priority: Number.isFinite(priority) ? priority : 0,
      createdUnixMs: Number.isFinite(spec.createdUnixMs) ? spec.createdUnixMs : 0,
      formulaSha256: spec.formulaSha256,
      puzzleSha256: spec.puzzleSha256,
      numVars: spec.numVars,
      puzzle,
      puzzleText: spec.puzzleText,
      solver: spec.solver,
      encoding: spec.encoding,
      order: spec.order,
      cellOrder: spec.cubing?.cellOrder ?? "",
      revision,
      best: bestOf(record),
    },
  };
}

/**
 * Why the spec's formula is not one a worker can fetch, or null. A score run may have none (no SHA-256, 0 variables:
 * the coordinator encodes nothing for it, docs/cluster.md "Score runs"); its tasks are the engine's alone
 * (validate-task.ts checkLimits), so no cube of it asks for a formula.
 */
function formulaProblem(spec: RunSpec): string | null {
  if (spec.solver?.objective === "score" && spec.formulaSha256 === "" && spec.numVars === 0) return null;
  if (!isSha256Hex(spec.formulaSha256)) return "formula_sha256 is not a SHA-256";
  if (!Number.isInteger(spec.numVars) || spec.numVars < 1 || spec.numVars > MAX_VARS) return `bad num_vars ${spec.numVars}`;
  return null;
}

/** The record's best score, when it is a sane one. */
function bestOf(record: RunRecord): WorkerRun["best"] {
  const b = record.status?.best;
  if (!b || !Number.isInteger(b.score) || !Number.isInteger(b.maxScore) || b.score < 0 || b.score > b.maxScore) return null;
  return { score: b.score, maxScore: b.maxScore };
}

export type RunStopped = { run: string; reason: string };

export class RunTable {
  private readonly runs = new Map<string, WorkerRun>();
  private readonly rejected = new Map<string, number>();
  private waiters: Array<() => void> = [];
  private rankWaiters: Array<() => void> = [];
  private readonly stoppedListeners: Array<(e: RunStopped) => void> = [];
  private readonly resumedListeners: Array<(run: string) => void> = [];
  private sorted: WorkerRun[] | null = null;

  constructor(private readonly log: Logger) {}

  get(id: string): WorkerRun | undefined {
    return this.runs.get(id);
  }

  get size(): number {
    return this.runs.size;
  }

  /** RUNNING runs, highest priority first, then the oldest. */
  runnable(): readonly WorkerRun[] {
    if (this.sorted === null) {
      this.sorted = [...this.runs.values()]
        .filter((r) => r.state === RunState.RUN_STATE_RUNNING)
        .sort((a, b) => b.priority - a.priority || a.createdUnixMs - b.createdUnixMs || (a.id < b.id ? -1 : 1));
    }
    return this.sorted;
  }

  /** Resolves at the next change of any run, after `timeoutMs`, or when `signal` aborts, whichever comes first. */
  changed(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.wait(this.waiters, timeoutMs, signal);
  }

  /**
   * Like `changed`, but only for changes of which runs are runnable or in what order (a run seen, deleted, or its
   * state or priority changed), not for the status updates a running run's record gets every second.
   */
  rankingChanged(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return this.wait(this.rankWaiters, timeoutMs, signal);
  }

  private wait(list: Array<() => void>, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const i = list.indexOf(done);
        if (i >= 0) list.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      list.push(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  onStopped(listener: (e: RunStopped) => void): void {
    this.stoppedListeners.push(listener);
  }

  /** Called with a run's id when it leaves a final state (a FAILED run resumed). */
  onResumed(listener: (run: string) => void): void {
    this.resumedListeners.push(listener);
  }

  /** A KV PUT of `key`. Returns false when the record was rejected. */
  put(key: string, value: Uint8Array, revision: number): boolean {
    const previous = this.runs.get(key);
    if (previous && revision <= previous.revision) return true; // a replay after a watcher restart
    const result = workerRunFromRecord(key, value, revision, previous);
    if (!result.ok) {
      if (this.rejected.get(key) !== revision) {
        this.rejected.set(key, revision);
        this.log.warn("run record ignored", { run: key.slice(0, 80), revision, why: result.reason });
      }
      return false;
    }
    this.rejected.delete(key);
    const run = result.run;
    this.runs.set(key, run);
    const ranking = !previous || previous.state !== run.state || previous.priority !== run.priority;
    if (ranking) {
      this.log.info(previous ? "run changed" : "run seen", { run: key, state: runStateName(run.state), priority: run.priority });
    }
    if (previous && isTerminal(previous.state) && !isTerminal(run.state)) for (const l of this.resumedListeners) l(key);
    if (isTerminal(run.state) && !(previous && isTerminal(previous.state))) {
      this.emitStopped({ run: key, reason: `run ${runStateName(run.state)}` });
    }
    this.touch(ranking);
    return true;
  }

  /** A KV DEL or PURGE of `key`. */
  delete(key: string): void {
    const previous = this.runs.get(key);
    this.rejected.delete(key);
    if (!previous) return;
    this.runs.delete(key);
    this.log.info("run deleted", { run: key });
    if (!isTerminal(previous.state)) this.emitStopped({ run: key, reason: "run deleted" });
    this.touch(true);
  }

  private emitStopped(e: RunStopped): void {
    for (const l of this.stoppedListeners) l(e);
  }

  private touch(ranking: boolean): void {
    this.sorted = null;
    for (const w of [...this.waiters, ...(ranking ? this.rankWaiters : [])]) w();
  }
}
