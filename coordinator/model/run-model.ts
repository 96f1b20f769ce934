/**
 * The pure model of one run: its ledger-backed state and every decision about it, with no NATS, no clock of its
 * own and no I/O. Verdicts, re-splits and control calls go in; effects come out (ledger entries to append, tasks to
 * publish, cancels, task deletions, purges), which the JetStream shell (coordinator/shell/run.ts) carries out.
 *
 * State changes only through `apply(ledgerEntry)`, on replay and on the live paths alike, so a replayed run equals
 * the live one by construction (the state and `apply`: coordinator/model/run-ledger-state.ts; the steps every decision
uses: coordinator/model/run-core.ts).
 *
 * Decisions are generators of effects (`RunSteps`, coordinator/model/run-effects.ts): the shell runs each effect before asking for the next, so a
 * decision that continues after a publish sees the stream sequences the publish returned, and the model's state is
 * current at every step. Entries are recorded after what they describe is durable (cubes after JetStream stored
 * their tasks), so a crash between the two repeats work and never loses it.
 *
 * Every task published carries a fresh lease, recorded with its cube (coordinator/model/leases.ts). Error verdicts: the
 * worker acks its task and the cube is sent again as a new attempt, so one bad worker cannot use up its deliveries;
 * it fails once CUBE_FAIL_WORKERS distinct workers reported errors on it, or after max_deliver errors in all.
 *
 * States: SPLITTING -> RUNNING <-> PAUSED -> SAT | UNSAT | FAILED | CANCELLED (terminal); FAILED -> RUNNING on resume
 * (its failed cubes are sent again).
 */

import type { Cube } from "../../core/cubes/types.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState, type Solution } from "../../proto/gen/cubist/v1/run.js";
import { verdictLabel, verdictReason } from "../../proto/vocabulary.js";
import type { CubeEntry } from "./cube-table.js";
import type { RunSteps } from "./run-effects.js";
import { answerOfVerdict, closedOf, progressOf } from "./run-answers.js";
import type { SplitBoard } from "./shape.js";
import { isOpen, solutionKey } from "./run-ledger-state.js";
import { RunMemberCore, SCAN_MEMBER_ID, SCAN_MEMBER_SEC, workerMs } from "./run-member.js";
import { checkCount } from "./count-intake.js";

export { SCAN_MEMBER_ID, SCAN_MEMBER_SEC };

/** Counting run without every_board: the boards recorded (and shown by `solution list`); the rest are counted only. */
export const KEPT_SOLUTIONS = 100;

/** Distinct workers whose errors on one cube make it fail (errors from one worker only retry it). */
export const CUBE_FAIL_WORKERS = 2;

/**
 * One run's decisions, over its state, `apply`, the shared steps (RunCore, coordinator/model/run-core.ts) and a scan run's
 * portfolio member (RunMemberCore, coordinator/model/run-member.ts).
 */
export class RunModel extends RunMemberCore {
  // ---- start, split, publish ----------------------------------------------------------------------------------

  /** A new run: records its spec and starts it. */
  *start(): RunSteps {
    yield* this.record({ $case: "started", value: this.spec });
    yield* this.setState(RunState.RUN_STATE_RUNNING, "");
  }

  /** The initial split: cubes published and recorded in batches; boards the splitter finds are offered first. */
  *splitInitial(): RunSteps {
    if (this.spec.cubing!.cellOrder === "scan") return yield* this.splitScan();
    const c = this.spec.cubing!;
    const t0 = this.opts.clock();
    const ids: Array<{ id: string; cube: Cube } | null> = [];
    let refuted = { count: 0, weight: 0 };
    const solutions: SplitBoard[] = [];
    for (const ev of this.shape.split(c)) {
      if (ev.kind === "cube") ids.push({ id: String(ids.length), cube: ev.cube });
      // Counting: a board the splitter filled is a cube like any other (its count, 1, comes back from a worker).
      else if (ev.kind === "solution" && this.counting) ids.push({ id: String(ids.length), cube: ev.solution });
      else if (ev.kind === "solution") solutions.push(ev.solution);
      else refuted = { count: ev.refuted.count, weight: ev.refuted.weight };
    }
    this.log.info("split done", { cubes: ids.length, refuted: refuted.count, solutions: solutions.length, ms: Math.round(this.opts.clock() - t0), rssMB: this.opts.memoryMB?.() });
    for (const s of solutions) {
      if (yield* this.offerBoard(s.cells, "split", "coordinator")) return;
    }
    const t1 = this.opts.clock();
    yield* this.publishCubes(undefined, ids, "initial", true, refuted);
    const ms = this.opts.clock() - t1;
    this.log.info("cubes dispatched", { cubes: ids.length, ms: Math.round(ms), perSecond: Math.round(ids.length / Math.max(ms, 1) * 1000), rssMB: this.opts.memoryMB?.() });
    yield* this.checkComplete();
  }

  /**
   * The initial split of a scan run: the engine's own scan tree cut at the first level with `targetCubes` partial
   * boards, the cubes published in scan order (so one worker replays the whole scan), and the portfolio member
   * second in the queue (first for a second worker), also with cube parts (core/cubes/parts.ts): where the long order
   * wins, it wins by up to 40x, and behind the first cube's parts it would wait for all of them (Brendan's 9x6 seed 2:
   * 3.3 s on two workers against 1.1 s). Certified and score runs and runs with a SAT solver get no member.
   */
  private *splitScan(): RunSteps {
    const c = this.spec.cubing!;
    const t0 = this.opts.clock();
    const r = { cubes: [] as Cube[], solutions: [] as SplitBoard[], refuted: { count: 0, weight: 0 } };
    for (const ev of this.shape.split(c)) {
      if (ev.kind === "cube") r.cubes.push(ev.cube);
      else if (ev.kind === "solution") r.solutions.push(ev.solution);
      else r.refuted = ev.refuted;
    }
    const depth = r.cubes.reduce((d, cube) => Math.max(d, cube.placements.length), 0);
    this.log.info("scan split done", { cubes: r.cubes.length, depth, refuted: r.refuted.count, solutions: r.solutions.length, ms: Math.round(this.opts.clock() - t0) });
    for (const s of r.solutions) {
      if (yield* this.offerBoard(s.cells, "split", "coordinator")) return;
    }
    const ids: Array<{ id: string; cube: Cube } | null> = r.cubes.map((cube, i) => ({ id: String(i), cube }));
    const refuted = { count: r.refuted.count, weight: r.refuted.weight };
    const s = this.spec.solver!;
    const member = !this.spec.certify && s.solver === "none" && s.objective !== "score" && ids.length > 1 && !this.table.member(SCAN_MEMBER_ID);
    if (!member) {
      yield* this.publishCubes(undefined, ids, "initial", true, refuted);
    } else {
      yield* this.publishCubes(undefined, ids.slice(0, 1), "initial", false, { count: 0, weight: 0 });
      const budget = s.timeLimitSec > 0 ? Math.min(s.timeLimitSec, SCAN_MEMBER_SEC) : SCAN_MEMBER_SEC;
      yield* this.publishMember(budget, 0, 0, false);
      yield* this.publishCubes(undefined, ids.slice(1), "initial", true, refuted);
      const early = this.memberUnsat;
      this.memberUnsat = null;
      if (early && !this.ended) yield* this.closeAllByMember(early);
    }
    yield* this.checkComplete();
  }

  /**
   * After a replay: follow up the cubes waiting in state unknown, end the run if nothing is open, and send the
   * portfolio member on if it had stopped (this coordinator has no worker time of its own to weigh it against yet).
   */
  *recover(): RunSteps {
    yield* this.followUpUnknowns([...this.table.unknowns()]);
    yield* this.checkComplete();
    yield* this.continueMember();
  }

  // ---- verdicts -------------------------------------------------------------------------------------------------

  /**
   * Records a batch of verdicts for this run (already validated as well-formed). When it is done, everything they
   * caused is published and recorded; the caller acks the messages afterwards.
   */
  *recordVerdicts(verdicts: readonly Verdict[]): RunSteps {
    if (this.ended) return;
    const closed: CubeClosed[] = [];
    const unknowns: CubeEntry[] = [];
    const retries: CubeEntry[] = [];
    const failed: Array<{ entry: CubeEntry; reason: string }> = [];
    for (const v of verdicts) {
      if (this.table.member(v.cubeId)) {
        yield* this.recordMember(v);
        if (this.ended) return;
        continue;
      }
      const entry = this.table.get(v.cubeId);
      if (!entry) {
        this.log.warn("verdict for an unknown cube ignored", { cube: v.cubeId, worker: v.workerId });
        continue;
      }
      if (isOpen(entry)) this.cubeMs += workerMs(v);
      if (this.counting && (v.kind === VerdictKind.VERDICT_KIND_SAT || v.kind === VerdictKind.VERDICT_KIND_UNSAT)) {
        const step = yield* this.recordCount(v, entry, closed, unknowns, retries, failed);
        if (step === "ended") return;
        continue;
      }
      if (v.kind === VerdictKind.VERDICT_KIND_SAT) {
        const accepted = answerOfVerdict(this.shape, this.spec, v, this.log);
        if (accepted === null) continue;
        if (!accepted.ok) {
          // Never a solution. The worker acked its task, so the cube is sent out again (or given up).
          this.log.error("SAT answer rejected by the verifier: not a solution", { cube: v.cubeId, worker: v.workerId, violation: accepted.reason });
          yield* this.applyAndRecord({ $case: "rejectedModel", value: 1 });
          if (!this.close(closedOf(v, VerdictKind.VERDICT_KIND_ERROR, `rejected answer: ${accepted.reason}`), closed)) continue;
          if (entry.errors >= this.opts.maxDeliver) failed.push({ entry, reason: "the verifier rejected its answers" });
          else retries.push(entry);
          continue;
        }
        if (!this.close(closedOf(v, v.kind, ""), closed)) continue;
        yield* this.flushClosed(closed);
        if (yield* this.acceptSolution(accepted.cells, v.cubeId, v.workerId)) return;
        continue;
      }
      const progress = progressOf(this.spec, entry, v, this.log);
      if (!this.close({ ...closedOf(v, v.kind, verdictReason(v)), ...(progress ? { partNext: progress } : {}) }, closed)) continue;
      if (v.best.length > 0) yield* this.considerBest(v);
      const label = verdictLabel(v.kind);
      if (label === "unknown") unknowns.push(entry);
      // The worker acked its task: the cube goes out again as a new attempt unless several workers failed it.
      if (label === "error") {
        const workers = entry.errorWorkers?.length ?? 0;
        if (workers >= CUBE_FAIL_WORKERS || entry.errors >= this.opts.maxDeliver) {
          failed.push({ entry, reason: `solver errors from ${workers} worker(s), ${entry.errors} in all: ${verdictReason(v)}` });
        } else {
          retries.push(entry);
        }
      }
    }
    yield* this.flushClosed(closed);
    for (const f of failed) yield* this.failCube(f.entry, f.reason);
    for (const e of retries) if (e.state === "queued") yield* this.requeue(e, e.unknowns + e.errors);
    yield* this.followUpUnknowns(unknowns);
    yield* this.checkComplete();
    yield* this.continueMember();
  }

  /**
   * A counted cube's verdict (coordinator/model/count-intake.ts checks it against the run's own puzzle and cube). Its
   * boards are recorded first (up to KEPT_SOLUTIONS, or all with every_board; a board recorded again after a crash
   * is kept once), then the cube closes with its count, which the ledger sums: a cube closes once, so a count is
   * added once, also on replay. A run with a limit ends once the sum reaches it.
   */
  private *recordCount(v: Verdict, entry: CubeEntry, closed: CubeClosed[], unknowns: CubeEntry[], retries: CubeEntry[],
    failed: Array<{ entry: CubeEntry; reason: string }>): RunSteps<"ended" | "next"> {
    if (!isOpen(entry)) return "next";
    const check = checkCount(this.shape, entry.placements, v, this.spec.solver!.countBoards ?? 0, this.spec.everyBoard === true);
    if (check.kind === "rejected") {
      this.log.error("count rejected: not a verified count of the cube", { cube: v.cubeId, worker: v.workerId, violation: check.reason });
      yield* this.applyAndRecord({ $case: "rejectedModel", value: 1 });
      if (!this.close(closedOf(v, VerdictKind.VERDICT_KIND_ERROR, `rejected count: ${check.reason}`), closed)) return "next";
      if (entry.errors >= this.opts.maxDeliver) failed.push({ entry, reason: "the coordinator rejected its counts" });
      else retries.push(entry);
      return "next";
    }
    if (check.kind === "too-many") {
      // Every board is to be recorded, and one verdict cannot carry them all: a cube over budget, re-split as usual.
      if (this.close(closedOf(v, VerdictKind.VERDICT_KIND_UNKNOWN, `count: ${check.solutions} solutions, more than a verdict carries`), closed)) unknowns.push(entry);
      return "next";
    }
    const fresh: Solution[] = [];
    for (const cells of check.boards) {
      if (!this.spec.everyBoard && this.solutions.length + fresh.length >= KEPT_SOLUTIONS) break;
      if (this.solutionKeys.has(solutionKey(cells))) continue;
      fresh.push({ runId: this.id, index: this.solutions.length + fresh.length, rows: this.shape.rows, cols: this.shape.cols, cells, cubeId: v.cubeId, workerId: v.workerId, foundUnixMs: this.opts.clock() });
    }
    if (fresh.length > 0) {
      const entries = fresh.map((s) => this.entry({ $case: "solution", value: s }));
      yield { type: "append", entries };
      for (const e of entries) this.apply(e);
      for (const solution of fresh) yield { type: "solution", solution };
    }
    if (!this.close({ ...closedOf(v, v.kind, ""), solutionCount: check.solutions }, closed)) return "next";
    yield* this.flushClosed(closed);
    const limit = this.spec.solutionLimit ?? 0;
    if (limit > 0 && this.counted >= limit) {
      yield* this.finish(this.table.complete ? (this.counted > 0 ? RunState.RUN_STATE_SAT : RunState.RUN_STATE_UNSAT) : RunState.RUN_STATE_SAT,
        this.table.complete ? `count complete: exactly ${this.counted} solution(s); closed weights sum to 1` : `limit reached: at least ${this.counted} solution(s) counted`);
      return "ended";
    }
    return "next";
  }

  /** Something for the run's timeline that its other entries do not say (a takeover, a manual action and who asked). */
  *recordNote(kind: string, message: string, actor: string): RunSteps {
    yield* this.record({ $case: "note", value: { kind, message: message.slice(0, 1000), actor: actor.slice(0, 200) } });
  }

  /** A new priority: recorded, then the run record is written so workers pick by it on their next pull. */
  *setPriority(priority: number): RunSteps {
    if (priority === this.priority) return;
    yield* this.record({ $case: "priority", value: priority });
    yield { type: "write-record" };
    this.log.info("priority changed", { priority });
  }

  /** Gives up on a cube; the run can then end FAILED, never UNSAT. */
  *failCube(e: CubeEntry, reason: string): RunSteps {
    if (!isOpen(e)) return;
    yield* this.applyAndRecord({ $case: "failed", value: { id: e.id, reason } });
    if (e.seq > 0) yield { type: "delete-task", seq: e.seq };
    this.log.warn("cube failed", { cube: e.id, reason });
  }

  /** JetStream gave up delivering the cube's task (the MAX_DELIVERIES advisory). */
  *giveUpCube(cubeId: string): RunSteps {
    const e = this.table.get(cubeId);
    if (!e || e.state !== "queued") return;
    yield* this.failCube(e, `not answered after ${this.opts.maxDeliver} deliveries`);
    yield* this.checkComplete();
  }

  /** Publishes every queued cube again (the stall check found them in no consumer). */
  *republishQueued(): RunSteps {
    const queued = [...this.table.queued()];
    this.log.warn("queued cubes are held by no consumer; publishing them again", { cubes: queued.length });
    for (const e of queued) yield* this.requeue(e, e.unknowns + e.errors + 1);
  }

  // ---- certified runs (coordinator/shell/certify.ts checks; these record what it found) ------------------------------

  /** An UNSAT answer whose proof is missing or did not check: an error of the cube, which is sent out again or failed. */
  *rejectProof(v: Verdict, reason: string): RunSteps {
    if (this.ended) return;
    const entry = this.table.get(v.cubeId);
    if (!entry || !isOpen(entry)) return;
    this.log.warn("UNSAT answer rejected: no checked proof", { cube: v.cubeId, worker: v.workerId, reason });
    yield* this.applyAndRecord({ $case: "rejectedProof", value: 1 });
    const closed: CubeClosed[] = [];
    if (!this.close(closedOf(v, VerdictKind.VERDICT_KIND_ERROR, `rejected proof: ${reason}`), closed)) return;
    yield* this.flushClosed(closed);
    if (entry.errors >= this.opts.maxDeliver) yield* this.failCube(entry, `no checked proof after ${entry.errors} answers: ${reason}`);
    else if (entry.state === "queued") yield* this.requeue(entry, entry.unknowns + entry.errors);
    yield* this.checkComplete();
  }

  /** The coverage proof was checked (or not): the run ends UNSAT or FAILED. */
  *recordCoverage(r: { ok: boolean; proofSha256: string; message: string }): RunSteps {
    if (this.ended) return;
    yield* this.record({ $case: "coverage", value: r });
    yield* this.checkComplete();
  }

  // ---- control --------------------------------------------------------------------------------------------------

  *pause(now: boolean): RunSteps {
    yield* this.setState(RunState.RUN_STATE_PAUSED, now ? "paused (running cubes stopped)" : "paused");
    if (now) yield { type: "cancel", cube: "", reason: "pause-now" };
  }

  /** Resumes a PAUSED run, or a FAILED one: its failed cubes are sent again with a fresh error budget. */
  *resume(): RunSteps {
    const failed = this.state === RunState.RUN_STATE_FAILED ? [...this.table.failed()] : [];
    yield* this.setState(RunState.RUN_STATE_RUNNING, failed.length > 0 ? `resumed: ${failed.length} failed cube(s) sent again` : "");
    for (const e of failed) yield* this.requeue(e, e.unknowns);
    if (failed.length > 0) this.log.info("failed run resumed", { cubes: failed.length });
    yield* this.checkComplete();
  }

  *cancel(reason: string): RunSteps {
    yield* this.finish(RunState.RUN_STATE_CANCELLED, reason || "cancelled");
  }
}
