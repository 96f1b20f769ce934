/**
 * The JetStream shell of one run: creates or resumes the run's model (coordinator/model/run-model.ts), carries out the
 * effects of its decisions (coordinator/shell/run-effect.ts carries each out against NATS), and serves its status to
 * watchers. Every decision about the run is the model's; this file only talks to NATS.
 */

import { EventEmitter } from "node:events";
import { dimacsChunks } from "../../core/encode/index.js";
import type { Puzzle } from "../../core/puzzle.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { ensureRunConsumer, type Layout } from "../../cluster/layout.js";
import type { Logger } from "../../cluster/log.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunRecord, RunState, type RunSpec, type RunStatus, type Solution } from "../../proto/gen/cubist/v1/run.js";
import { runStateName } from "../../proto/vocabulary.js";
import type { CubeEntry } from "../model/cube-entry.js";
import type { CubeTableView } from "../model/cube-table.js";
import type { BestPoint } from "../model/run-best.js";
import type { CubeCountsPoint } from "../model/run-history.js";
import type { RunTimeline } from "../model/run-timeline.js";
import { runStatus } from "../model/run-status.js";
import { performEffect, type EffectHost } from "./run-effect.js";
import { RunDecisions } from "./run-decisions.js";
import { RunCertifier } from "./certify.js";
import { uploadFormula } from "./formula-upload.js";
import { decidedCount, RateTracker } from "../model/rate.js";
import { SteadyEta } from "../model/steady-eta.js";
import type { RunEffect, RunSteps } from "../model/run-effects.js";
import { RunModel } from "../model/run-model.js";
import type { RunShape } from "../model/shape.js";
import type { BestBoard } from "../../proto/gen/cubist/v1/run.js";
import { checkFormulaSize, formulaBytes } from "../../core/limits.js";
import { NotLeaderError } from "../errors.js";
import { LedgerFencedError } from "./ledger.js";
import { DISTRUSTED_NOTE } from "../model/run-trust.js";
import { runModelOf, type RunDeps } from "./run-deps.js";
import type { RunCertification } from "../model/run-certification.js";
import type { FormulaPuzzle } from "../../core/cnf/run-formula.js";

/** Ledger entries applied between two turns of the event loop on a replay (an entry holds up to 1000 cubes). */
const REPLAY_SLICE = 16;

/** The terminal run states (proto/vocabulary.ts), under the name the embedded cluster and the benchmarks use. */

/** Events for watchers (the gRPC WatchRun stream, the dashboard). */
export interface RunEvents {
  status: [RunStatus];
  verdict: [Verdict];
  solution: [Solution];
  /** The run's end is carried out (after its final state was written): see `endCarriedOut`. */
  ended: [];
  /** A spot check of this run disproved a worker (worker, why): the coordinator tells its other runs. */
  distrusted: [string, string];
}

/** A cube a worker reports running (from the RunningCube entries of its heartbeats): who runs it and since when. */
export interface WorkerOnCube {
  readonly worker: string;
  readonly since: number;
}

export class RunController extends EventEmitter<RunEvents> {
  readonly id: string;
  private runningCubes: ReadonlyMap<string, WorkerOnCube> = new Map();
  private waitingFor = "";
  private readonly rate = new RateTracker();
  private readonly eta = new SteadyEta();
  private splitting: Promise<void> | null = null;
  private dirty = true;
  private readonly log: Logger;
  /** Certified runs: checks proofs and the coverage (coordinator/shell/certify.ts). */
  readonly certifier: RunCertifier | null;
  /**
   * True once the run's end is carried out: queued cubes purged, solvers told to stop, its consumer deleted and the
   * certifier's working files removed. The final state is written (and `status` emitted) before that, so a reader
   * that goes on to the certificate (cli/local-cluster.ts) waits for this, not for the state.
   */
  endCarriedOut = false;
  private readonly effectHost: EffectHost;
  private readonly decisions: RunDecisions;

  private constructor(
    private readonly deps: RunDeps,
    readonly model: RunModel,
  ) {
    super();
    this.id = model.id;
    this.log = deps.log.child({ run: model.id });
    this.certifier = model.spec.certify ? new RunCertifier(model.spec.formulaSha256, deps.layout, this.log) : null;
    this.effectHost = this.makeEffectHost();
    this.decisions = new RunDecisions(model, (effect) => this.perform(effect), this.log, () => { this.dirty = true; });
  }

  // ---- the run's state, read-only (the model owns it) ------------------------------------------------------

  get spec(): RunSpec { return this.model.spec; }
  /** Spot checks sent, agreed and disproved (coordinator/model/run-trust.ts). */
  get spotChecks(): Readonly<{ sent: number; agreed: number; disproved: number }> { return this.model.trust.counts; }
  /** Certified run: proof checks and their checkers' time, workers' apart from the coordinator's (model/run-certification.ts). */
  get proofCheckers(): RunCertification["checkers"] { return this.model.certification.checkers; }
  /** The run's puzzle, square or triangle, as the coordinator handles it (coordinator/model/shape.ts). */
  get shape(): RunShape { return this.model.shape; }
  get table(): CubeTableView { return this.model.table; }
  get solutions(): readonly Solution[] { return this.model.solutions.list; }
  get state(): RunState { return this.model.state; }
  get message(): string { return this.model.message; }
  get rejected(): number { return this.model.solutions.rejected; }
  /** Counting run: solutions counted so far (exact counts of closed cubes). */
  get counted(): number { return this.model.count.counted; }
  /** The closed weight: refuted, plus counted cubes in a counting run. */
  get coveredWeight(): number { return this.model.coveredWeight; }
  get best(): BestBoard | null { return this.model.best.board; }
  get bestHistory(): readonly BestPoint[] { return this.model.best.history; }
  /** What happened to the run, from its ledger (coordinator/model/run-timeline.ts). */
  get timeline(): RunTimeline { return this.model.timeline; }
  /** Its cube counts over time, from its ledger (coordinator/model/run-history.ts). */
  get cubeHistory(): readonly CubeCountsPoint[] { return this.model.history.points; }
  get startedAt(): number { return this.model.startedAt; }
  get finishedAt(): number { return this.model.finishedAt; }
  /** The Object Stores of formulas and proofs (certificate bundles). */
  get stores(): Pick<Layout, "formulas" | "proofs"> { return this.deps.layout; }

  /** Cube id -> worker and start time, from worker heartbeats. */
  get running(): ReadonlyMap<string, WorkerOnCube> {
    return this.runningCubes;
  }

  get priority(): number { return this.model.priority; }

  /** Why queued cubes wait (coordinator/model/waiting.ts), set with the running cubes once a status interval. */
  setWaiting(reason: string): void {
    this.waitingFor = reason;
  }

  /** The cubes workers report running now (the coordinator's heartbeat table, once a status interval). */
  setRunning(running: ReadonlyMap<string, WorkerOnCube>): void {
    this.runningCubes = running;
  }

  // ---- creation and resume ---------------------------------------------------------------------------------

  /**
   * A new run: encode, upload, record, then split and publish in the background. A run without a base formula (a
   * score run: coordinator/model/run-shape.ts needsFormula) uploads nothing; its spec keeps no formula, 0 variables.
   */
  static async create(deps: RunDeps, spec: RunSpec, puzzle: Puzzle | TrianglePuzzle | FormulaPuzzle): Promise<RunController> {
    const { model, formula } = runModelOf(deps, spec, puzzle);
    let bytes = 0;
    if (formula) {
      checkFormulaSize(formulaBytes(formula), deps.settings.limits);
      const upload = await uploadFormula(deps.layout.formulas, () => dimacsChunks(formula));
      spec.formulaSha256 = upload.sha256;
      spec.numVars = formula.numVars;
      spec.numClauses = formula.clauses.count;
      bytes = upload.bytes;
    }
    const run = new RunController(deps, model);
    await ensureRunConsumer(deps.jsm, deps.names, spec.runId, { ackWaitMs: deps.settings.ackWaitMs, maxDeliver: deps.settings.maxDeliver });
    run.log.info("run created", { puzzle: spec.name, encoding: formula ? spec.encoding : "none", vars: spec.numVars, clauses: spec.numClauses, bytes, rssMB: Math.round(process.memoryUsage().rss / 2 ** 20) });
    await run.carryOut(model.start());
    run.splitInBackground();
    return run;
  }

  /**
   * Rebuilds a run from its ledger and continues where it stopped. With `takeover` (a coordinator taking the lead), an
   * open run first gets a takeover note: the entry that fences the coordinator before this one out of its ledger.
   */
  static async resume(deps: RunDeps, entries: AsyncIterable<LedgerEntry>, takeover?: { actor: string; term: number }): Promise<RunController | null> {
    let model: RunModel | null = null;
    let count = 0;
    // Applied as read, a slice at a time, so that the API and heartbeats are answered throughout.
    for await (const entry of entries) {
      if (!model) {
        const first = entry.entry;
        if (!first || first.$case !== "started") return null;
        const spec = first.value;
        const built = runModelOf(deps, spec);
        // A run without a formula (a score run) is not encoded again: there is nothing to compare.
        if (built.formula && built.formula.numVars !== spec.numVars) throw new Error(`run ${spec.runId}: re-encoding gives ${built.formula.numVars} variables, the ledger says ${spec.numVars}`);
        model = built.model;
      }
      model.apply(entry);
      if (++count % REPLAY_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (!model) return null;
    const spec = model.spec;
    const run = new RunController(deps, model);
    run.log.info("run resumed from ledger", { entries: count, state: runStateName(model.state), cubes: model.table.size, open: model.table.open });
    if (model.ended) return run;
    if (takeover) await run.carryOut(model.recordNote("takeover", `coordinator ${takeover.actor} took the run over (term ${takeover.term})`, takeover.actor));
    await ensureRunConsumer(deps.jsm, deps.names, spec.runId, { ackWaitMs: deps.settings.ackWaitMs, maxDeliver: deps.settings.maxDeliver });
    if (!model.table.initialSplitDone) run.splitInBackground();
    else await run.carryOut(model.recover());
    return run;
  }

  private splitInBackground(): void {
    this.splitting = this.carryOut(this.model.splitInitial(this.deps.liveSlots?.() ?? 1))
      .catch((err) => {
        // A coordinator that no longer leads leaves the split to the next leader (it publishes it again).
        if (err instanceof NotLeaderError || err instanceof LedgerFencedError) return;
        return this.carryOut(this.model.fail(`split failed: ${(err as Error).message}`));
      })
      .catch((err) => this.log.warn("the split's failure was not recorded", { err: (err as Error).message }));
  }

  // ---- carrying out the model's effects --------------------------------------------------------------------

  private carryOut<T>(steps: RunSteps<T>): Promise<T> {
    return this.decisions.carryOut(steps);
  }

  private perform(effect: RunEffect): Promise<void> {
    return performEffect(this.effectHost, effect);
  }

  /** The run-side half of its effects (coordinator/shell/run-effect.ts). */
  private makeEffectHost(): EffectHost {
    const { layout, jsm, ledger, names, publishCancel, fence } = this.deps;
    return {
      id: this.id, layout, jsm, ledger, names, log: this.log, publishCancel, fence,
      appended: (entries) => {
        for (const e of entries) {
          // The initial split's refuted weight arrives all at once; the rate follows the steady part.
          if (e.entry?.$case === "closed") this.rate.sample(Date.now(), this.model.coveredWeight - this.table.initialRefutedWeight, decidedCount(e.entry.value.cubes));
          const n = e.entry?.$case === "note" ? e.entry.value : null;
          if (n?.kind === DISTRUSTED_NOTE && n.cubeId !== "") this.emit("distrusted", n.worker, this.model.trust.reasonOf(n.worker, this.id) ?? n.message);
        }
      },
      ended: async () => {
        // The run is over: the checker's files go (a certificate bundle downloads the formula again).
        await this.certifier?.close();
        this.endCarriedOut = true;
        this.emit("ended");
      },
      writeRecord: () => {
        this.dirty = true;
        return this.publishRecord();
      },
      solution: (solution) => this.emit("solution", solution),
      checkProof: (cube) => this.checkProof(cube),
      checkCoverage: () => {
        void this.certifier!.proveCoverage(this.model.refutedCubes().map((c) => c.units))
          .then((r) => this.carryOut(this.model.recordCoverage(r)))
          .catch((err) => this.log.error("recording the coverage check failed", { err: (err as Error).message }));
      },
    };
  }

  // ---- inputs ----------------------------------------------------------------------------------------------

  /**
   * Records a batch of verdicts for this run (already validated as well-formed by the coordinator). Resolves once
   * everything they caused is published and written to the ledger; the caller acks the messages afterwards.
   */
  async handleVerdicts(verdicts: readonly Verdict[]): Promise<void> {
    if (this.model.ended) return;
    for (const v of verdicts) this.emit("verdict", v);
    // Certified: an UNSAT is held until a checker other than its producer verified its proof (model/proof-checks.ts).
    await this.carryOut(this.model.recordVerdicts(verdicts));
  }

  /** The coordinator checks a held proof itself in the background, then the model decides (model/proof-checks.ts). */
  private checkProof(cube: string): void {
    const certifier = this.certifier;
    const pending = this.model.certification.pending.get(cube);
    const units = this.model.unitsOf(cube);
    if (certifier === null || !pending || units === null || certifier.isChecking(cube)) return;
    const sha = pending.sent.proofSha256;
    this.markDirty();
    void certifier.checkCube(cube, units, sha)
      .then((r) => this.carryOut(this.model.recordOwnCheck(cube, sha, r)))
      .catch((err) => this.log.error("recording a proof check failed", { cube, err: (err as Error).message }));
  }

  /** Replaces a cube by its children; returns how many there are. */
  resplit(e: CubeEntry, opts: { depth?: number; targetChildren?: number }, reason: string): Promise<number> {
    return this.carryOut(this.model.resplit(e, opts, reason));
  }

  /** JetStream gave up delivering this cube's task (MAX_DELIVERIES advisory). */
  onMaxDeliveries(cubeId: string): Promise<void> {
    return this.carryOut(this.model.giveUpCube(cubeId));
  }

  /** Publishes every queued cube again (the stall check found them in no consumer). */
  republishQueued(): Promise<void> {
    return this.carryOut(this.model.republishQueued());
  }

  pause(now: boolean): Promise<void> {
    return this.carryOut(this.model.pause(now));
  }

  /** Resumes a PAUSED run, or a FAILED one (its consumer was deleted when it ended: created again first). */
  async resume(): Promise<void> {
    if (this.model.ended) {
      await ensureRunConsumer(this.deps.jsm, this.deps.names, this.id, { ackWaitMs: this.deps.settings.ackWaitMs, maxDeliver: this.deps.settings.maxDeliver });
    }
    await this.carryOut(this.model.resume());
    if (!this.model.ended && !this.table.initialSplitDone && this.splitting === null) this.splitInBackground();
  }

  /** A cube (or score slot) whose worker's process is gone: sent out again at once (coordinator/model/run-model.ts). */
  requeueOrphan(cubeId: string): Promise<void> {
    return this.carryOut(this.model.requeueOrphan(cubeId));
  }

  /** A scan run's stopped members go on once within their share (no-op for other runs and before the split). */
  async continueMembers(): Promise<void> {
    if (this.model.ended || this.splitting === null || this.spec.cubing?.cellOrder !== "scan") return;
    await this.splitting;
    await this.carryOut(this.model.continueMembers());
  }

  /** A score run keeps as many score slots going as the live workers have solver slots (no-op for other runs). */
  async growScoreSlots(liveSlots: number): Promise<void> {
    if (this.model.ended || this.splitting === null || this.spec.solver?.objective !== "score") return;
    await this.splitting;
    await this.carryOut(this.model.growScoreSlots(liveSlots));
  }

  /** Records a note for the run's timeline: who asked for a manual action, a worker quarantined (RunNote). */
  note(kind: string, message: string, actor: string): Promise<void> {
    return this.carryOut(this.model.recordNote(kind, message, actor));
  }

  /** A worker another run's spot check disproved (`why` says where): distrusted in this run too. */
  distrust(worker: string, why: string): Promise<void> {
    return this.carryOut(this.model.distrustFromElsewhere(worker, why));
  }

  setPriority(priority: number): Promise<void> {
    return this.carryOut(this.model.setPriority(priority));
  }

  /**
   * Ends the run for good; its base formula and (certified run) its proofs are deleted from the Object Store unless
   * another open run shares them.
   */
  async cancel(reason: string): Promise<void> {
    await this.carryOut(this.model.cancel(reason));
    await this.deps.releaseFormula?.(this.spec.formulaSha256, this.id);
    const proofs = this.model.certification.proofs;
    if (proofs.size > 0) await this.deps.releaseProofs?.(proofs.values(), this.id);
  }

  /** Waits for the initial split (tests, the embedded cluster). */
  async splitDone(): Promise<void> {
    await this.splitting;
  }

  // ---- status ----------------------------------------------------------------------------------------------

  status(now = Date.now()): RunStatus {
    return runStatus(this.model, { running: this.running, rate: this.rate, eta: this.eta, waiting: this.waitingFor, proofsPending: this.model.certification.pending.size }, now);
  }

  record(): RunRecord {
    return { spec: this.spec, status: this.status() };
  }

  /** Writes the run record to the KV bucket if something changed since the last write. */
  async publishRecord(force = true): Promise<void> {
    if (!force && !this.dirty) return;
    this.dirty = false;
    const status = this.status();
    try {
      await this.deps.layout.runs.put(this.id, RunRecord.encode({ spec: this.spec, status }).finish());
    } catch (err) {
      // Written again by the next status round (coordinator/shell/run-upkeep.ts).
      this.dirty = true;
      throw err;
    }
    this.emit("status", status);
  }

  markDirty(): void {
    this.dirty = true;
  }
}

