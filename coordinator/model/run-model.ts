/**
 * The pure model of one run: its ledger-backed state and every decision about it, with no NATS, no clock of its
 * own and no I/O. Verdicts, re-splits and control calls go in; effects come out (ledger entries to append, tasks to
 * publish, cancels, task deletions, purges), which the JetStream shell (coordinator/shell/run.ts) carries out.
 *
 * One RunModel is composed of one part per concern, each owning its state: the run's life (state, times, priority:
 * run-life.ts), its cubes and weights (run-cubes.ts), its solutions (run-solutions.ts), counting (run-count.ts),
 * certification (run-certification.ts), the best board (run-best.ts) and a scan run's portfolio member
 * (scan-member.ts), with its timeline and cube counts over time read from the same entries (run-timeline.ts,
 * run-history.ts). State changes only through `apply(ledgerEntry)`, which hands each entry to the parts it concerns,
 * on replay and on the live paths alike (the recorder applies what it records: run-recorder.ts), so a replayed run
 * equals the live one by construction.
 *
 * Decisions are generators of effects (`RunSteps`, coordinator/model/run-effects.ts): the shell runs each effect before
 * asking for the next, so a decision that continues after a publish sees the stream sequences the publish returned,
 * and the model's state is current at every step. Entries are recorded after what they describe is durable (cubes
 * after JetStream stored their tasks), so a crash between the two repeats work and never loses it. Every task
 * published carries a fresh lease, recorded with its cube (coordinator/model/leases.ts). The decisions live beside the
 * part they concern; this file routes the calls and holds the run-wide ones (start, pause, resume, cancel, priority).
 */

import type { Logger } from "../../cluster/log.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunMode, RunState, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { CubeEntry } from "./cube-entry.js";
import type { CubeTableView } from "./cube-table.js";
import type { InFlightTasks } from "./in-flight.js";
import { recordVerdicts, type VerdictsRun } from "./record-verdicts.js";
import { RunBest } from "./run-best.js";
import { cubeUnits, recordCoverage, refutedCubes, rejectProof, RunCertification, type CertifiedRun } from "./run-certification.js";
import { RunCount } from "./run-count.js";
import { failCube, followUpUnknowns, requeue, resplit, RunCubes } from "./run-cubes.js";
import type { RunSteps } from "./run-effects.js";
import { fail, finish, RunLife, setState } from "./run-life.js";
import { checkComplete } from "./run-outcome.js";
import { RunRecorder, type RunModelOptions } from "./run-recorder.js";
import { RunHistory } from "./run-history.js";
import { RunSolutions } from "./run-solutions.js";
import { RunTimeline } from "./run-timeline.js";
import { continueMember, ScanMember } from "./scan-member.js";
import type { RunShape } from "./shape.js";
import { splitRun, type SplitRun } from "./split-run.js";
import { distrustFromElsewhere, giveUpCheck, RunTrust } from "./run-trust.js";
import { recordCertifiedVerdicts, recordOwnCheck, type OwnCheck, type ProofChecksRun } from "./proof-checks.js";
import { DEFAULT_SPOT_CHECK_PERCENT } from "./run-defaults.js";
import { growSlots, isScoreRun, isScoreSlot, openSlots, republishSlot, republishSlots, resendSlots, ScoreSlots, startScore } from "./score-slots.js";

export class RunModel implements VerdictsRun, SplitRun, CertifiedRun, ProofChecksRun {
  readonly life: RunLife;
  readonly cubes = new RunCubes();
  readonly solutions = new RunSolutions();
  readonly count = new RunCount();
  readonly certification = new RunCertification();
  readonly best = new RunBest();
  readonly member = new ScanMember();
  readonly slots = new ScoreSlots();
  /** What happened to the run, for `cubist run events` and its page (coordinator/model/run-timeline.ts). */
  readonly timeline = new RunTimeline();
  /** Its cube counts over time, for its page's chart (coordinator/model/run-history.ts). */
  readonly history = new RunHistory();
  readonly trust = new RunTrust();
  readonly recorder: RunRecorder;
  readonly log: Logger;
  private appliedCount = 0;

  constructor(
    readonly spec: RunSpec,
    /** The run's puzzle, square or triangle, and its base formula (coordinator/model/shape.ts). */
    readonly shape: RunShape,
    readonly opts: RunModelOptions,
  ) {
    this.log = opts.log;
    this.life = new RunLife(spec.priority);
    this.recorder = new RunRecorder(spec, shape, opts, (e) => this.apply(e));
  }

  // ---- reads of the whole run -----------------------------------------------------------------------------------

  get id(): string {
    return this.spec.runId;
  }

  get state(): RunState {
    return this.life.state;
  }

  get message(): string {
    return this.life.message;
  }

  get ended(): boolean {
    return this.life.ended;
  }

  /** The current priority: the spec's, until changed (`setPriority`). */
  get priority(): number {
    return this.life.priority;
  }

  get startedAt(): number {
    return this.life.startedAt;
  }

  get finishedAt(): number {
    return this.life.finishedAt;
  }

  get table(): CubeTableView {
    return this.cubes.table;
  }

  /** Tasks published but not yet recorded: their verdicts are held, not dropped (coordinator/model/in-flight.ts). */
  get inFlight(): Pick<InFlightTasks, "has" | "size"> {
    return this.recorder.inFlight;
  }

  /** Ledger entries applied so far (the stall check sees whether the run recorded anything, coordinator/model/stall.ts). */
  get applied(): number {
    return this.appliedCount;
  }

  /** A counting run (RUN_MODE_ALL_SOLUTIONS: objective "count" on every cube). */
  get counting(): boolean {
    return this.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS;
  }

  /** The closed weight: refuted, plus (counting run) counted cubes. 0..1. */
  get coveredWeight(): number {
    return this.cubes.table.refutedWeight + this.count.countedWeight;
  }

  /** Counting run: true when the whole space was counted (the run ended with every cube closed, none failed). */
  get countComplete(): boolean {
    const state = this.life.state;
    return (state === RunState.RUN_STATE_SAT || state === RunState.RUN_STATE_UNSAT) && this.cubes.table.complete && this.cubes.table.snapshotCounts().failed === 0;
  }

  /** The unit literals of a cube, from the run's own table (never from a verdict). */
  unitsOf(cube: string): number[] | null {
    return cubeUnits(this.cubes.table, this.shape, cube);
  }

  /** Every cube closed UNSAT, as unit literals: the cubes the coverage proof negates. */
  refutedCubes(): Array<{ id: string; units: number[] }> {
    return refutedCubes(this.cubes.table, this.shape);
  }

  // ---- the one way state changes --------------------------------------------------------------------------------

  /** Applies one ledger entry (on replay for every stored entry, live for every entry recorded) to the parts it concerns. */
  apply(e: LedgerEntry): void {
    const b = e.entry;
    if (!b) return;
    this.appliedCount++;
    switch (b.$case) {
      case "started": case "state": case "priority":
        this.life.apply(b, e.atUnixMs);
        break;
      case "added": case "requeued": case "failed":
        this.cubes.apply(b, e.atUnixMs);
        break;
      case "closed":
        for (const c of b.value.cubes) {
          const closed = this.cubes.applyClosed(c, e.atUnixMs);
          // Each cube closes once, so its count is added once (also on replay).
          if (closed.kind === "closed" && closed.state === "sat") this.count.applyCounted(c, this.cubes.table.get(c.id)!.weight);
          this.certification.applyClosed(c);
          this.trust.applyClosed(c);
        }
        break;
      case "solution": case "rejectedModel":
        this.solutions.apply(b);
        break;
      case "rejectedProof": case "coverage": case "proofCheck":
        this.certification.apply(b);
        break;
      case "best":
        this.best.apply(b, e.atUnixMs);
        break;
      case "member":
        this.cubes.apply(b, e.atUnixMs);
        this.member.apply(b);
        break;
      case "slot":
        this.cubes.apply(b, e.atUnixMs);
        this.slots.apply(b);
        break;
      case "note":
        // For the run's timeline; spot checks keep theirs (coordinator/model/run-trust.ts).
        this.trust.applyNote(b.value);
        break;
      default:
        break;
    }
    this.timeline.apply(e);
    if (b.$case !== "note" && b.$case !== "best" && b.$case !== "priority") this.history.sample(e.atUnixMs, this.cubes.table.snapshotCounts(), this.coveredWeight);
  }

  /** The share of refuted cubes spot-checked, percent: none where proofs are checked, solutions counted or scores kept. */
  get spotCheckPercent(): number {
    const objective = this.spec.solver?.objective ?? "";
    if (this.spec.certify || this.counting || (objective !== "" && objective !== "sat")) return 0;
    return this.spec.spotCheckPercent ?? 0;
  }

  /** Certified run: the share of workers' verified proofs the coordinator checks again, percent (the run's spot-check percent). */
  get proofSamplePercent(): number {
    return this.spec.certify ? this.spec.spotCheckPercent ?? DEFAULT_SPOT_CHECK_PERCENT : 0;
  }

  // ---- decisions -------------------------------------------------------------------------------------------------

  /** A new run: records its spec and starts it. */
  *start(): RunSteps {
    yield* this.recorder.record({ $case: "started", value: this.spec });
    yield* setState(this, RunState.RUN_STATE_RUNNING, "");
  }

  /**
   * The initial split (coordinator/model/split-run.ts); a score run starts its score slots instead
   * (coordinator/model/score-slots.ts), as many as `liveSlots` (the live workers' solver slots) unless the run says.
   */
  splitInitial(liveSlots = 1): RunSteps {
    return isScoreRun(this.spec) ? startScore(this, liveSlots) : splitRun(this);
  }

  /**
   * A scan run's stopped members go on once within their share (coordinator/model/scan-member.ts), also between
   * verdicts: the shell asks with each status round, as the cubes' running time grows.
   */
  continueMembers(): RunSteps {
    return continueMember(this);
  }

  /** A score run keeps as many slots going as the live workers have solver slots (more workers joined). */
  growScoreSlots(liveSlots: number): RunSteps {
    return growSlots(this, liveSlots);
  }

  /**
   * After a replay: check the held proofs, follow up the cubes waiting in state unknown, end the run if nothing is open, and send the
   * portfolio member on if it had stopped (this coordinator has no worker time of its own to weigh it against yet).
   */
  *recover(): RunSteps {
    // Held proofs (coordinator/model/proof-checks.ts): a check this coordinator's predecessor ran itself is lost with
    // it, so this one checks them all (a worker's answer to a check task still out is taken as well).
    for (const cube of this.certification.pending.keys()) yield { type: "check-proof", cube };
    yield* followUpUnknowns(this, [...this.cubes.table.unknowns()]);
    yield* checkComplete(this);
    yield* continueMember(this);
    yield* resendSlots(this);
  }

  /**
   * Records a batch of verdicts for this run (already validated as well-formed: coordinator/model/record-verdicts.ts).
   * When it is done, everything they caused is published and recorded; the caller acks the messages afterwards.
   */
  recordVerdicts(verdicts: readonly Verdict[]): RunSteps {
    return this.spec.certify ? recordCertifiedVerdicts(this, verdicts) : recordVerdicts(this, verdicts);
  }

  /** Certified run: the coordinator's own check of a held proof (coordinator/model/proof-checks.ts). */
  recordOwnCheck(cube: string, proofSha256: string, r: OwnCheck): RunSteps {
    return recordOwnCheck(this, cube, proofSha256, r);
  }

  /** Replaces a cube by its children (a manual re-split, or the API's); returns how many there are. */
  resplit(e: CubeEntry, opts: { depth?: number; targetChildren?: number }, reason: string): RunSteps<number> {
    return resplit(this, e, opts, reason);
  }

  /** Gives up on a cube; the run can then end FAILED, never UNSAT. */
  failCube(e: CubeEntry, reason: string): RunSteps {
    return failCube(this, e, reason);
  }

  /** JetStream gave up delivering the cube's task (the MAX_DELIVERIES advisory). */
  *giveUpCube(cubeId: string): RunSteps {
    const e = this.cubes.table.get(cubeId);
    if (!e || e.state !== "queued") return;
    // A proof check its producer kept handing back while no other worker took it: the coordinator checks it.
    if (this.certification.pending.has(cubeId)) {
      yield { type: "check-proof", cube: cubeId };
      return;
    }
    // A spot check its refuter kept handing back is sent again (coordinator/model/run-trust.ts), never failed.
    if ((yield* giveUpCheck(this, e)) === "not-a-check") yield* failCube(this, e, `not answered after ${this.opts.maxDeliver} deliveries`);
    yield* checkComplete(this);
  }

  /** A score run: its slots in flight (the stall check's "queued"); 0 for other runs. */
  get openSlots(): number {
    return openSlots(this);
  }

  /** Publishes every queued cube again (the stall check found them in no consumer); a score run's slots in flight. */
  *republishQueued(): RunSteps {
    if (isScoreRun(this.spec)) {
      this.log.warn("score slots are held by no consumer; sending them again", { slots: openSlots(this) });
      return yield* republishSlots(this);
    }
    const queued = [...this.cubes.table.queued()];
    this.log.warn("queued cubes are held by no consumer; publishing them again", { cubes: queued.length });
    for (const e of queued) {
      // Each publish waits for NATS and the fence: a cube closed meanwhile (a verdict, the portfolio member's whole
      // board) stays closed. (A requeue of a refuted cube undoes the refutation: that is for distrusted workers only.)
      if (this.life.ended || this.cubes.table.get(e.id)?.state !== "queued") continue;
      yield* requeue(this, e, e.unknowns + e.errors + 1);
    }
  }

  /**
   * A cube (or a score run's slot) held by a worker process that is gone (its worker started again): sent out again
   * as a new attempt at once, its old task deleted so that JetStream does not hand it out after ack_wait as well.
   */
  *requeueOrphan(cubeId: string): RunSteps {
    if (this.life.ended || this.life.state !== RunState.RUN_STATE_RUNNING) return;
    if (isScoreSlot(cubeId)) return yield* republishSlot(this, cubeId);
    const e = this.cubes.table.get(cubeId);
    if (!e || e.state !== "queued") return;
    const seq = e.seq;
    yield* requeue(this, e, e.unknowns + e.errors + 1);
    if (seq > 0) yield { type: "delete-task", seq };
  }

  /** An UNSAT answer whose proof is missing or did not check (coordinator/model/run-certification.ts). */
  rejectProof(v: Verdict, reason: string): RunSteps {
    return rejectProof(this, v, reason);
  }

  /** A worker another run's spot check disproved: distrusted here too (coordinator/model/run-trust.ts). */
  distrustFromElsewhere(worker: string, why: string): RunSteps {
    return distrustFromElsewhere(this, worker, why);
  }

  /** The coverage proof was checked (or not): the run ends UNSAT or FAILED. */
  recordCoverage(r: { ok: boolean; proofSha256: string; message: string }): RunSteps {
    return recordCoverage(this, r);
  }

  /** Records what was applied and not recorded, after a decision that a failed effect stopped (coordinator/model/run-recorder.ts). */
  *recordOwed(): RunSteps {
    yield* this.recorder.recordOwed();
  }

  /** Something for the run's timeline that its other entries do not say (a takeover, a manual action and who asked). */
  *recordNote(kind: string, message: string, actor: string): RunSteps {
    yield* this.recorder.record({ $case: "note", value: { kind, message: message.slice(0, 1000), actor: actor.slice(0, 200), worker: "", cubeId: "" } });
  }

  /** A new priority: recorded, then the run record is written so workers pick by it on their next pull. */
  *setPriority(priority: number): RunSteps {
    if (priority === this.life.priority) return;
    yield* this.recorder.record({ $case: "priority", value: priority });
    yield { type: "write-record" };
    this.log.info("priority changed", { priority });
  }

  *pause(now: boolean): RunSteps {
    yield* setState(this, RunState.RUN_STATE_PAUSED, now ? "paused (running cubes stopped)" : "paused");
    if (now) yield { type: "cancel", cube: "", reason: "pause-now" };
  }

  /** Resumes a PAUSED run, or a FAILED one: its failed cubes are sent again with a fresh error budget. */
  *resume(): RunSteps {
    const failed = this.life.state === RunState.RUN_STATE_FAILED ? [...this.cubes.table.failed()] : [];
    yield* setState(this, RunState.RUN_STATE_RUNNING, failed.length > 0 ? `resumed: ${failed.length} failed cube(s) sent again` : "");
    for (const e of failed) yield* requeue(this, e, e.unknowns);
    if (failed.length > 0) this.log.info("failed run resumed", { cubes: failed.length });
    yield* resendSlots(this);
    yield* checkComplete(this);
  }

  cancel(reason: string): RunSteps {
    return finish(this, RunState.RUN_STATE_CANCELLED, reason || "cancelled");
  }

  /** Ends the run FAILED (the split threw). */
  fail(message: string): RunSteps {
    return fail(this, message);
  }
}
