/**
 * One run's lifecycle in the coordinator: encode and upload the formula, split into cubes and publish them,
 * record verdicts (each cube closes once), re-split cubes that come back unknown, accept only verified
 * solutions, and decide SAT / UNSAT / FAILED. Every change is written to the run's ledger (coordinator/ledger.ts)
 * after the fact it records is durable, so `RunController.resume` rebuilds the same state from the ledger.
 *
 * States: SPLITTING -> RUNNING <-> PAUSED -> SAT | UNSAT | FAILED | CANCELLED (terminal).
 */

import { EventEmitter } from "node:events";
import type { JetStreamManager } from "@nats-io/jetstream";
import { acceptBoard, acceptModel, bitsetValue } from "../core/accept.js";
import { dimacsChunks, encode, type VarMap, type VariableOrder } from "../core/encode/index.js";
import { parsePuzzle } from "../core/formats/index.js";
import { resplitCube, streamCubes } from "../core/cubes/split.js";
import type { CellOrder, Cube, SplitSolution } from "../core/cubes/types.js";
import { boardFromPlacements, type Board, type Placement, type Puzzle } from "../core/puzzle.js";
import { ensureRunConsumer, deleteRunConsumer, type Layout } from "../cluster/layout.js";
import type { Logger } from "../cluster/log.js";
import type { Names } from "../proto/contract.js";
import { Cancel, CubeTask, VerdictKind, type Verdict } from "../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, CubeDef, LedgerEntry } from "../proto/gen/cubist/v1/ledger.js";
import { RunMode, RunRecord, RunState, type RunSpec, type RunStatus, type Solution } from "../proto/gen/cubist/v1/run.js";
import type { CoordinatorSettings } from "./config.js";
import { CubeTable, type CubeEntry } from "./cube-table.js";
import type { Ledger, LedgerBody } from "./ledger.js";
import { publishTasks } from "./task-publisher.js";
import { uploadFormula } from "./formula-upload.js";
import { RateTracker } from "./rate.js";

export type { CoordinatorSettings };

export interface RunDeps {
  readonly layout: Layout;
  readonly jsm: JetStreamManager;
  readonly ledger: Ledger;
  readonly names: Names;
  readonly settings: CoordinatorSettings;
  readonly log: Logger;
  readonly publishCancel: (run: string, cube: string, reason: string) => void;
}

export const TERMINAL: ReadonlySet<RunState> = new Set([
  RunState.RUN_STATE_SAT, RunState.RUN_STATE_UNSAT, RunState.RUN_STATE_FAILED, RunState.RUN_STATE_CANCELLED,
]);

export function stateName(s: RunState): string {
  return RunState[s].replace("RUN_STATE_", "").toLowerCase();
}

/** Events for watchers (the gRPC WatchRun stream, the dashboard). */
export interface RunEvents {
  status: [RunStatus];
  verdict: [Verdict];
  solution: [Solution];
}

export class RunController extends EventEmitter<RunEvents> {
  readonly id: string;
  readonly table = new CubeTable();
  readonly solutions: Solution[] = [];
  state: RunState = RunState.RUN_STATE_SPLITTING;
  rejected = 0;
  message = "";
  startedAt = 0;
  finishedAt = 0;
  /** cube id -> worker and start time, from worker heartbeats. */
  readonly running = new Map<string, { worker: string; since: number }>();
  private varMap!: VarMap;
  private readonly rate = new RateTracker();
  private splitting: Promise<void> | null = null;
  private dirty = true;
  private readonly log: Logger;

  private constructor(
    private readonly deps: RunDeps,
    public spec: RunSpec,
    readonly puzzle: Puzzle,
  ) {
    super();
    this.id = spec.runId;
    this.log = deps.log.child({ run: spec.runId });
  }

  // ---- creation and resume ---------------------------------------------------------------------------------

  /** A new run: encode, upload, record, then split and publish in the background. */
  static async create(deps: RunDeps, spec: RunSpec, puzzle: Puzzle, now = Date.now()): Promise<RunController> {
    const run = new RunController(deps, spec, puzzle);
    const formula = encode(spec.encoding, puzzle, spec.order ? { order: spec.order as VariableOrder } : {});
    run.varMap = formula.varMap;
    const upload = await uploadFormula(deps.layout.formulas, () => dimacsChunks(formula));
    spec.formulaSha256 = upload.sha256;
    spec.numVars = formula.numVars;
    spec.numClauses = formula.clauses.count;
    run.startedAt = now;
    await ensureRunConsumer(deps.jsm, deps.names, spec.runId, { ackWaitMs: deps.settings.ackWaitMs, maxDeliver: deps.settings.maxDeliver });
    await deps.ledger.append(spec.runId, [{ $case: "started", value: spec }]);
    run.log.info("run created", { puzzle: spec.name, encoding: spec.encoding, vars: spec.numVars, clauses: spec.numClauses, bytes: upload.bytes, rssMB: rssMB() });
    await run.setState(RunState.RUN_STATE_RUNNING, "");
    run.splitting = run.splitInitial().catch((err) => run.fail(`split failed: ${(err as Error).message}`));
    return run;
  }

  /** Rebuilds a run from its ledger and continues where it stopped. */
  static async resume(deps: RunDeps, entries: readonly LedgerEntry[]): Promise<RunController | null> {
    const first = entries[0]?.entry;
    if (!first || first.$case !== "started") return null;
    const spec = first.value;
    const puzzle = parsePuzzle(spec.puzzleText, `<run ${spec.runId}>`, "canonical");
    const run = new RunController(deps, spec, puzzle);
    run.startedAt = entries[0].atUnixMs;
    for (const e of entries.slice(1)) run.apply(e);
    const formula = encode(spec.encoding, puzzle, spec.order ? { order: spec.order as VariableOrder } : {});
    run.varMap = formula.varMap;
    if (formula.numVars !== spec.numVars) throw new Error(`run ${spec.runId}: re-encoding gives ${formula.numVars} variables, the ledger says ${spec.numVars}`);
    run.log.info("run resumed from ledger", { entries: entries.length, state: stateName(run.state), cubes: run.table.size, open: run.table.open });
    if (TERMINAL.has(run.state)) return run;
    await ensureRunConsumer(deps.jsm, deps.names, spec.runId, { ackWaitMs: deps.settings.ackWaitMs, maxDeliver: deps.settings.maxDeliver });
    if (!run.table.initialSplitDone) {
      run.splitting = run.splitInitial().catch((err) => run.fail(`split failed: ${(err as Error).message}`));
    } else {
      await run.followUpUnknowns([...run.table.unknowns()]);
      await run.checkComplete();
    }
    run.dirty = true;
    return run;
  }

  /** Applies one ledger entry (replay). Must mirror what the live paths record. */
  private apply(e: LedgerEntry): void {
    const b = e.entry;
    if (!b) return;
    switch (b.$case) {
      case "added": {
        const v = b.value;
        this.table.addCubes(v.parent === "" ? undefined : v.parent, v.cubes, { count: v.refutedCount, weight: v.refutedWeight });
        if (v.parent === "" && v.last) this.table.initialSplitDone = true;
        break;
      }
      case "closed":
        for (const c of b.value.cubes) this.table.recordVerdict(c.id, kindName(c.kind), { worker: c.workerId, wallMs: c.wallMs, reason: c.reason });
        break;
      case "requeued":
        this.table.requeue(b.value.id, b.value.seq);
        break;
      case "failed":
        this.table.markFailed(b.value.id, b.value.reason);
        break;
      case "solution":
        this.solutions.push(b.value);
        break;
      case "state":
        this.state = b.value.state;
        this.message = b.value.message;
        if (TERMINAL.has(this.state)) this.finishedAt = e.atUnixMs;
        break;
      case "rejectedModel":
        this.rejected += b.value;
        break;
      default:
        break;
    }
  }

  // ---- splitting and publishing ----------------------------------------------------------------------------

  private taskFor(cube: { id: string; placements: readonly Placement[] }, attempt: number): { task: CubeTask; msgId: string } {
    const units: number[] = [];
    for (const p of cube.placements) units.push(...this.varMap.placementLiterals(p));
    const s = this.spec.solver!;
    const task: CubeTask = {
      runId: this.id,
      cubeId: cube.id,
      formulaSha256: this.spec.formulaSha256,
      numVars: this.spec.numVars,
      units,
      placements: cube.placements.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })),
      solver: { ...s, seed: (s.seed + attempt) % 2147483647 },
      generation: 0,
      puzzleSha256: this.spec.puzzleSha256,
    };
    // Attempt 0 is de-duplicated across coordinator restarts; later attempts are always new messages.
    return { task, msgId: attempt === 0 ? `${this.id}:${cube.id}` : `${this.id}:${cube.id}:a${attempt}:${Date.now()}` };
  }

  /**
   * Publishes cubes (skipping ids already recorded) and records them, in batches. Each batch's entries in `cubes`
   * are released once recorded, so a 200,000-cube split is not held twice.
   */
  private async publishCubes(parent: string | undefined, cubes: Array<{ id: string; cube: Cube } | null>, reason: string,
    last: boolean, refuted: { count: number; weight: number }, extra: Partial<{ depth: number; targetChildren: number }> = {}): Promise<void> {
    const fresh: number[] = [];
    for (let i = 0; i < cubes.length; i++) if (cubes[i] && !this.table.get(cubes[i]!.id)) fresh.push(i);
    const batch = this.deps.settings.batchSize;
    for (let start = 0; start < Math.max(1, fresh.length); start += batch) {
      const part = fresh.slice(start, start + batch).map((i) => cubes[i]!);
      const seqs = await publishTasks(this.deps.layout.js, this.deps.names.cubesSubject(this.id), part.map((c) => this.taskFor({ id: c.id, placements: c.cube.placements }, 0)));
      const isLast = last && start + batch >= fresh.length;
      const defs: CubeDef[] = part.map((c, i) => ({ id: c.id, placements: c.cube.placements, branching: c.cube.branching, seq: seqs[i] }));
      const ref = isLast ? refuted : { count: 0, weight: 0 };
      await this.deps.ledger.append(this.id, [{
        $case: "added",
        value: { parent: parent ?? "", cubes: defs, last: isLast, refutedCount: ref.count, refutedWeight: ref.weight, reason, depth: extra.depth ?? 0, targetChildren: extra.targetChildren ?? 0 },
      }]);
      this.table.addCubes(parent, defs, ref);
      for (let k = start; k < Math.min(fresh.length, start + batch); k++) cubes[fresh[k]] = null;
      this.dirty = true;
    }
  }

  private async splitInitial(): Promise<void> {
    const c = this.spec.cubing!;
    const t0 = performance.now();
    const ids: Array<{ id: string; cube: Cube } | null> = [];
    let refuted = { count: 0, weight: 0 };
    const solutions: SplitSolution[] = [];
    for (const ev of streamCubes(this.puzzle, {
      targetCubes: c.targetCubes,
      maxDepth: c.maxDepth > 0 ? c.maxDepth : undefined,
      cellOrder: c.cellOrder as CellOrder,
      pruning: "full",
    })) {
      if (ev.kind === "cube") ids.push({ id: String(ids.length), cube: ev.cube });
      else if (ev.kind === "solution") solutions.push(ev.solution);
      else refuted = { count: ev.refuted.count, weight: ev.refuted.weight };
    }
    this.log.info("split done", { cubes: ids.length, refuted: refuted.count, solutions: solutions.length, ms: Math.round(performance.now() - t0), rssMB: rssMB() });
    for (const s of solutions) {
      if (await this.offerBoard(s.board, "split", "coordinator")) return;
    }
    const t1 = performance.now();
    await this.publishCubes(undefined, ids, "initial", true, refuted);
    const ms = performance.now() - t1;
    this.log.info("cubes dispatched", { cubes: ids.length, ms: Math.round(ms), perSecond: Math.round(ids.length / Math.max(ms, 1) * 1000), rssMB: rssMB() });
    this.table.initialSplitDone = true;
    await this.checkComplete();
  }

  // ---- verdicts --------------------------------------------------------------------------------------------

  /**
   * Records a batch of verdicts for this run (already validated as well-formed by the coordinator). Resolves once
   * everything they caused is published and written to the ledger; the caller acks the messages afterwards.
   */
  async handleVerdicts(verdicts: readonly Verdict[]): Promise<void> {
    if (TERMINAL.has(this.state)) return;
    const closed: CubeClosed[] = [];
    const unknowns: CubeEntry[] = [];
    const retries: CubeEntry[] = [];
    const failed: Array<{ entry: CubeEntry; reason: string }> = [];
    for (const v of verdicts) {
      this.emit("verdict", v);
      const entry = this.table.get(v.cubeId);
      if (!entry) {
        this.log.warn("verdict for an unknown cube ignored", { cube: v.cubeId, worker: v.workerId });
        continue;
      }
      const info = { worker: v.workerId, wallMs: v.stats?.wallMs ?? 0, reason: v.reason };
      if (v.kind === VerdictKind.VERDICT_KIND_SAT) {
        const found = this.boardOfVerdict(v);
        if (found === null) continue;
        const accepted = found.kind === "model" ? acceptModel(this.puzzle, this.varMap, bitsetValue(found.bits)) : acceptBoard(this.puzzle, found.board);
        if (!accepted.ok) {
          // Never a solution. The worker acked its task, so the cube is sent out again (or given up).
          this.rejected++;
          this.log.error("SAT answer rejected by the verifier: not a solution", { cube: v.cubeId, worker: v.workerId, violation: accepted.reason });
          await this.deps.ledger.append(this.id, [{ $case: "rejectedModel", value: 1 }]);
          const reason = `rejected answer: ${accepted.reason}`;
          const out = this.table.recordVerdict(v.cubeId, "error", { ...info, reason });
          if (out.kind !== "error") continue;
          closed.push(closedOf(v, VerdictKind.VERDICT_KIND_ERROR, reason));
          if (out.errors >= this.deps.settings.maxDeliver) failed.push({ entry, reason: "the verifier rejected its answers" });
          else retries.push(entry);
          continue;
        }
        const out = this.table.recordVerdict(v.cubeId, "sat", info);
        if (out.kind !== "closed") continue;
        closed.push(closedOf(v, v.kind, ""));
        await this.flushClosed(closed);
        if (await this.acceptSolution(accepted.board, v.cubeId, v.workerId)) return;
        continue;
      }
      const out = this.table.recordVerdict(v.cubeId, kindName(v.kind), info);
      if (out.kind === "ignored") continue;
      closed.push(closedOf(v, v.kind, v.reason));
      if (out.kind === "unknown") unknowns.push(entry);
      // An error verdict comes with a nak: JetStream redelivers the task itself, up to max_deliver.
      if (out.kind === "error" && out.errors >= this.deps.settings.maxDeliver) failed.push({ entry, reason: `solver errors: ${v.reason}` });
    }
    await this.flushClosed(closed);
    for (const f of failed) await this.failCube(f.entry, f.reason);
    for (const e of retries) if (e.state === "queued") await this.requeue(e, e.unknowns + e.errors);
    await this.followUpUnknowns(unknowns);
    await this.checkComplete();
    this.dirty = true;
  }

  private async flushClosed(closed: CubeClosed[]): Promise<void> {
    if (closed.length === 0) return;
    const cubes = closed.splice(0);
    await this.deps.ledger.append(this.id, [{ $case: "closed", value: { cubes } }]);
    const now = Date.now();
    // The initial split's refuted weight arrives all at once; the rate follows the steady part.
    this.rate.sample(now, this.table.refutedWeight - this.table.initialRefutedWeight, cubes.length);
  }

  private boardOfVerdict(v: Verdict): { kind: "model"; bits: Uint8Array } | { kind: "board"; board: Board } | null {
    if (v.board.length > 0) {
      const cells = this.puzzle.rows * this.puzzle.cols;
      if (v.board.length !== cells) return { kind: "board", board: boardFromPlacements(this.puzzle, []) };
      return { kind: "board", board: boardFromPlacements(this.puzzle, v.board) };
    }
    if (v.numVars !== this.spec.numVars || v.model.length !== (this.spec.numVars + 7) >> 3) {
      this.log.warn("SAT verdict with a model of the wrong size ignored", { cube: v.cubeId, worker: v.workerId, vars: v.numVars, bytes: v.model.length });
      return null;
    }
    return { kind: "model", bits: v.model };
  }

  /** Cubes that came back unknown: another attempt, or a re-split after `after_budgets` unknowns. */
  private async followUpUnknowns(entries: CubeEntry[]): Promise<void> {
    const policy = this.spec.resplit!;
    for (const e of entries) {
      if (TERMINAL.has(this.state)) return;
      if (e.state !== "unknown") continue;
      if (e.unknowns >= policy.afterBudgets) {
        await this.resplit(e, { depth: policy.targetChildren > 0 ? undefined : policy.depth, targetChildren: policy.targetChildren || undefined }, "unknown");
      } else {
        await this.requeue(e, e.unknowns + e.errors);
      }
    }
  }

  private async requeue(e: CubeEntry, attempt: number): Promise<void> {
    const [seq] = await publishTasks(this.deps.layout.js, this.deps.names.cubesSubject(this.id), [this.taskFor(e, attempt)]);
    await this.deps.ledger.append(this.id, [{ $case: "requeued", value: { id: e.id, attempt, seq } }]);
    this.table.requeue(e.id, seq);
  }

  /** Replaces a cube by its children (their weights sum to its weight minus what the splitter refuted). */
  async resplit(e: CubeEntry, opts: { depth?: number; targetChildren?: number }, reason: string): Promise<number> {
    const depth = opts.targetChildren ? 64 : opts.depth ?? 1;
    const result = resplitCube(this.puzzle, { placements: e.placements, branching: [...e.branching], weight: e.weight }, {
      depth,
      targetChildren: opts.targetChildren,
      cellOrder: this.spec.cubing!.cellOrder as CellOrder,
    });
    for (const s of result.solutions) {
      if (await this.offerBoard(s.board, e.id, "coordinator")) return 0;
    }
    const children = result.cubes.map((cube, k) => ({ id: `${e.id}.${k}`, cube }));
    const wasQueued = e.state === "queued";
    // Records the parent as resplit even when every child was refuted (an empty batch).
    await this.publishCubes(e.id, children, reason, true, { count: result.refuted.count, weight: result.refuted.weight }, { depth, targetChildren: opts.targetChildren ?? 0 });
    if (wasQueued) {
      this.deps.publishCancel(this.id, e.id, "resplit");
      await this.deleteTask(e.seq);
    }
    this.log.info("cube re-split", { cube: e.id, reason, children: children.length, refuted: result.refuted.count });
    return children.length;
  }

  private async deleteTask(seq: number): Promise<void> {
    if (seq <= 0) return;
    try {
      await this.deps.jsm.streams.deleteMessage(this.deps.names.cubesStream, seq, false);
    } catch {
      // Already consumed or gone.
    }
  }

  /** Gives up on a cube; the run can then end FAILED, never UNSAT. */
  async failCube(e: CubeEntry, reason: string): Promise<void> {
    if (!this.table.markFailed(e.id, reason)) return;
    await this.deps.ledger.append(this.id, [{ $case: "failed", value: { id: e.id, reason } }]);
    await this.deleteTask(e.seq);
    this.log.warn("cube failed", { cube: e.id, reason });
    this.dirty = true;
  }

  /** JetStream gave up delivering the task with this stream sequence (MAX_DELIVERIES advisory). */
  async onMaxDeliveries(cubeId: string): Promise<void> {
    const e = this.table.get(cubeId);
    if (!e || e.state !== "queued") return;
    await this.failCube(e, `not answered after ${this.deps.settings.maxDeliver} deliveries`);
    await this.checkComplete();
  }

  // ---- solutions and completion ----------------------------------------------------------------------------

  /** A board found without a model (by a splitter): verified, then accepted. */
  private async offerBoard(board: Board, cube: string, worker: string): Promise<boolean> {
    const accepted = acceptBoard(this.puzzle, board);
    if (!accepted.ok) {
      this.rejected++;
      this.log.error("a board from the splitter failed verification", { cube, violation: accepted.reason });
      return false;
    }
    return this.acceptSolution(accepted.board, cube, worker);
  }

  /** Records a verified solution; in first-solution mode, stops the run. Returns true when the run ended. */
  private async acceptSolution(board: Board, cube: string, worker: string): Promise<boolean> {
    const solution: Solution = {
      runId: this.id,
      index: this.solutions.length,
      rows: this.puzzle.rows,
      cols: this.puzzle.cols,
      cells: board.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: c!.rot })),
      cubeId: cube,
      workerId: worker,
      foundUnixMs: Date.now(),
    };
    await this.deps.ledger.append(this.id, [{ $case: "solution", value: solution }]);
    this.solutions.push(solution);
    this.emit("solution", solution);
    this.log.info("solution verified", { cube, worker, index: solution.index });
    if (this.spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS) {
      await this.finish(RunState.RUN_STATE_SAT, `solution found in cube ${cube}`);
      return true;
    }
    return false;
  }

  private async checkComplete(): Promise<void> {
    if (TERMINAL.has(this.state) || !this.table.complete) return;
    const counts = this.table.snapshotCounts();
    if (counts.failed > 0) {
      await this.finish(RunState.RUN_STATE_FAILED, `${counts.failed} cube(s) failed; the rest is closed: no verdict`);
    } else if (this.solutions.length > 0) {
      await this.finish(RunState.RUN_STATE_SAT, `search complete: ${this.solutions.length} solution(s)`);
    } else {
      const w = this.table.refutedWeight;
      if (Math.abs(w - 1) > 1e-6) {
        await this.finish(RunState.RUN_STATE_FAILED, `every cube refuted but the closed weights sum to ${w}, not 1 (a bookkeeping bug)`);
        return;
      }
      await this.finish(RunState.RUN_STATE_UNSAT, "every cube refuted; closed weights sum to 1");
    }
  }

  private async fail(message: string): Promise<void> {
    this.log.error(message);
    await this.finish(RunState.RUN_STATE_FAILED, message);
  }

  /** Ends the run: records the state, purges its queued cubes and stops running solvers. */
  async finish(state: RunState, message: string): Promise<void> {
    if (TERMINAL.has(this.state)) return;
    this.finishedAt = Date.now();
    await this.setState(state, message);
    try {
      await this.deps.jsm.streams.purge(this.deps.names.cubesStream, { filter: this.deps.names.cubesSubject(this.id) });
    } catch (err) {
      this.log.warn("purging queued cubes failed", { err: (err as Error).message });
    }
    this.deps.publishCancel(this.id, "", stateName(state));
    await deleteRunConsumer(this.deps.jsm, this.deps.names, this.id).catch(() => undefined);
    this.log.info(`run ${stateName(state)}`, { message, cubes: this.table.size, progress: this.table.refutedWeight });
  }

  async setState(state: RunState, message: string): Promise<void> {
    await this.deps.ledger.append(this.id, [{ $case: "state", value: { state, message } }]);
    this.state = state;
    this.message = message;
    this.dirty = true;
    await this.publishRecord();
  }

  /** Publishes every queued cube again (the stall check found them in no consumer). */
  async republishQueued(): Promise<void> {
    const queued = [...this.table.queued()];
    this.log.warn("queued cubes are held by no consumer; publishing them again", { cubes: queued.length });
    for (const e of queued) await this.requeue(e, e.unknowns + e.errors + 1);
  }

  // ---- control ---------------------------------------------------------------------------------------------

  async pause(now: boolean): Promise<void> {
    await this.setState(RunState.RUN_STATE_PAUSED, now ? "paused (running cubes stopped)" : "paused");
    if (now) this.deps.publishCancel(this.id, "", "pause-now");
  }

  async resume(): Promise<void> {
    await this.setState(RunState.RUN_STATE_RUNNING, "");
  }

  async cancel(reason: string): Promise<void> {
    await this.finish(RunState.RUN_STATE_CANCELLED, reason || "cancelled");
  }

  /** Waits for the initial split (tests, the embedded cluster). */
  async splitDone(): Promise<void> {
    await this.splitting;
  }

  // ---- status ----------------------------------------------------------------------------------------------

  status(now = Date.now()): RunStatus {
    const c = this.table.snapshotCounts();
    let running = 0;
    for (const id of this.running.keys()) if (this.table.get(id)?.state === "queued") running++;
    let purged = 0;
    if (TERMINAL.has(this.state)) {
      // The run is over: cubes still open were purged (a solution was found, or the run was cancelled).
      purged = c.queued + c.unknown;
      c.queued = 0;
      c.unknown = 0;
      running = 0;
    }
    const progress = Math.min(1, this.table.refutedWeight);
    const eta = TERMINAL.has(this.state) ? 0 : this.rate.eta(now, progress - this.table.initialRefutedWeight, 1 - this.table.initialRefutedWeight);
    return {
      runId: this.id,
      state: this.state,
      cubes: {
        queued: c.queued - running,
        running,
        sat: c.sat,
        unsat: c.unsat,
        unknown: c.unknown,
        failed: c.failed,
        resplit: c.resplit,
        refutedBySplit: c.refutedBySplit,
        purged,
      },
      progress,
      etaSeconds: eta,
      cubesPerSecond: this.rate.cubesPerSecond(now),
      solutions: this.solutions.length,
      rejectedModels: this.rejected,
      startedUnixMs: this.startedAt,
      finishedUnixMs: this.finishedAt,
      updatedUnixMs: now,
      priority: this.spec.priority,
      message: this.message,
      generation: 0,
    };
  }

  record(): RunRecord {
    return { spec: this.spec, status: this.status() };
  }

  /** Writes the run record to the KV bucket if something changed since the last write. */
  async publishRecord(force = true): Promise<void> {
    if (!force && !this.dirty) return;
    this.dirty = false;
    const status = this.status();
    await this.deps.layout.runs.put(this.id, RunRecord.encode({ spec: this.spec, status }).finish());
    this.emit("status", status);
  }

  markDirty(): void {
    this.dirty = true;
  }
}

function rssMB(): number {
  return Math.round(process.memoryUsage().rss / 2 ** 20);
}

function copyPlacement(p: Placement): Placement {
  return { cell: p.cell, piece: p.piece, rot: p.rot };
}

function kindName(k: VerdictKind): "sat" | "unsat" | "unknown" | "error" {
  switch (k) {
    case VerdictKind.VERDICT_KIND_SAT: return "sat";
    case VerdictKind.VERDICT_KIND_UNSAT: return "unsat";
    case VerdictKind.VERDICT_KIND_UNKNOWN: return "unknown";
    default: return "error";
  }
}

function closedOf(v: Verdict, kind: VerdictKind, reason: string): CubeClosed {
  return { id: v.cubeId, kind, workerId: v.workerId, wallMs: v.stats?.wallMs ?? 0, conflicts: v.stats?.conflicts ?? 0, reason };
}

export type { LedgerBody };
export { Cancel };
