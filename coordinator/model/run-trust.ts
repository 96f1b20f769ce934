/**
 * Spot checks, a part of the run model (coordinator/model/run-model.ts): a share of a run's refuted cubes is solved
 * again by another worker before the cube closes, so that a worker that refutes satisfiable cubes (a lying engine or
 * solver, a broken build) is caught and its refutations are undone. docs/operations.md "Spot checks" says what they
 * catch and cost.
 *
 * - **Which cubes.** An UNSAT verdict of cube C is checked when `sampled(run, C, percent)`: a hash of the run id and
 *   the cube id, so the choice is the same on every coordinator and on replay, and a worker cannot tell a checked
 *   cube from another before it answers. Not in certified runs (their proofs are checked), counting or score runs.
 * - **The check.** The verdict is not taken: a "spot-check" note records the cube and its refuter, and the cube is
 *   sent again (a new lease) with `not_worker` naming the refuter, whose worker hands it back (a nak) so that another
 *   worker takes it. An answer of the refuter itself is never taken for its own check: the cube is sent again.
 *   Without another live, trusted worker (`opts.checkers`) the verdict is taken unchecked, so a one-worker cluster
 *   still finishes.
 * - **Agreement.** Another worker's UNSAT closes the cube (the check agreed); an unknown or error is followed up as
 *   any other, the check still pending.
 * - **Disagreement.** A SAT answer of the cube, verified like every solution, disproves the refuter: a "distrusted"
 *   note records it, every cube the refuter closed as UNSAT in the run is queued again, its verdicts are no longer
 *   taken (each is answered by sending the cube again, away from it), and the solution is recorded. A SAT answer that
 *   the verifier rejects is the checker's lie: the cube is sent again (a third solve), as for any rejected answer.
 * - **In every run.** A worker distrusted in one run is distrusted in every run the coordinator holds: the others
 *   record a "distrusted" note without a cube (its message says why) and queue its refutations again, at once
 *   (`distrustFromElsewhere`, called by the coordinator) or at its next verdict (`opts.distrustedElsewhere`).
 *
 * - **The whole board.** A scan run's portfolio member that reports the whole board exhausted refutes every cube at
 *   once. Its claim is sampled like a cube's (by the member's id): when checked, it counts as the member giving up,
 *   and the cubes, solved by all the workers, decide the run.
 *
 * Pure: the notes and requeues are effects, and the state changes only by `apply` of the notes and closed records.
 */

import type { CubeClosed, RunNote } from "../../proto/gen/cubist/v1/ledger.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import type { CubeEntry } from "./cube-entry.js";
import type { PublishEffect, RunSteps } from "./run-effects.js";
import type { CubesRun } from "./run-cubes.js";

/** Note kinds of spot checks (RunNote.kind). */
export const SPOT_CHECK_NOTE = "spot-check";
export const DISTRUSTED_NOTE = "distrusted";

/** FNV-1a of the run and cube ids, in 0..9999: which cubes a share of `percent` checks. */
export function sampled(runId: string, cubeId: string, percent: number): boolean {
  if (percent <= 0) return false;
  if (percent >= 100) return true;
  let h = 0x811c9dc5;
  const s = `${runId}:${cubeId}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % 10_000 < percent * 100;
}

export class RunTrust {
  /** Cubes whose UNSAT waits for its check, and the worker that refuted them. */
  private readonly pendingChecks = new Map<string, string>();
  /** Workers a check disproved, and the cube that did ("" when a check of another run did). */
  private readonly distrustedWorkers = new Map<string, string>();
  /** Why a worker is distrusted when another run's check disproved it (its note's message). */
  private readonly distrustedElsewhere = new Map<string, string>();
  /** Checks sent, agreed and disproved so far (from the ledger, so also after a replay). */
  readonly counts = { sent: 0, agreed: 0, disproved: 0 };

  /** Workers whose verdicts the run does not take, and the cube whose check disproved them ("" for another run's). */
  get distrusted(): ReadonlyMap<string, string> {
    return this.distrustedWorkers;
  }

  /** Why the run distrusts `worker`, for people; undefined when it does not. */
  reasonOf(worker: string, runId: string): string | undefined {
    const cube = this.distrustedWorkers.get(worker);
    if (cube === undefined) return undefined;
    const why = this.distrustedElsewhere.get(worker);
    return cube !== "" && why === undefined ? `refuted cube ${cube} of run ${runId}, which another worker solved` : why;
  }

  /** The refuter of a cube whose check is pending. */
  refuterOf(cubeId: string): string | undefined {
    return this.pendingChecks.get(cubeId);
  }

  applyNote(n: RunNote): void {
    if (n.kind === SPOT_CHECK_NOTE) {
      if (!this.pendingChecks.has(n.cubeId)) this.counts.sent++;
      this.pendingChecks.set(n.cubeId, n.worker);
    } else if (n.kind === DISTRUSTED_NOTE && !this.distrustedWorkers.has(n.worker)) {
      this.distrustedWorkers.set(n.worker, n.cubeId);
      if (n.cubeId !== "") this.counts.disproved++;
      // A proof checker's lie (coordinator/model/proof-checks.ts) and another run's check say why in their message.
      if (n.cubeId === "" || n.actor === "proof-check") this.distrustedElsewhere.set(n.worker, n.message);
    }
  }

  /** A cube closed: a pending check of it ended (agreed when by an UNSAT). */
  applyClosed(c: CubeClosed): void {
    const label = verdictLabel(c.kind);
    if (label !== "unsat" && label !== "sat") return;
    if (this.pendingChecks.delete(c.id) && label === "unsat") this.counts.agreed++;
  }
}

/** What spot checks read of a run. */
export interface TrustRun extends CubesRun {
  readonly trust: RunTrust;
  /** The share of refuted cubes checked, percent (0 in certified, counting and score runs). */
  readonly spotCheckPercent: number;
}

/** Sends a cube again as a new attempt that `notWorker` hands back (a spot check, or away from a distrusted worker). */
function* sendAway(run: TrustRun, e: CubeEntry, notWorker: string): RunSteps {
  const attempt = e.unknowns + e.errors + 1;
  const task = run.recorder.task(e, attempt);
  task.task.notWorker = notWorker;
  const publish: PublishEffect = { type: "publish", tasks: [task], seqs: [] };
  yield* run.recorder.publishAndRecord(publish, () => ({ $case: "requeued", value: { id: e.id, attempt, seq: publish.seqs[0] ?? 0, lease: publish.tasks[0].task.lease } }));
}

/** The cubes `worker` closed as UNSAT in the run (what a distrust sends out again). */
function refutedBy(run: TrustRun, worker: string): CubeEntry[] {
  return [...run.cubes.table.entries()].filter((e) => e.state === "unsat" && e.worker === worker);
}

function note(kind: string, worker: string, cubeId: string, message: string): { $case: "note"; value: RunNote } {
  return { $case: "note", value: { kind, message, actor: "spot-check", worker, cubeId } };
}

/**
 * Before a cube's verdict is recorded: "taken" when spot checks took it (a distrusted worker's, the refuter's answer
 * to its own check, or an UNSAT that starts a check), "record" when it is recorded as usual.
 */
export function* screenVerdict(run: TrustRun, v: Verdict, e: CubeEntry): RunSteps<"taken" | "record"> {
  // A verified solution is a proof whoever sends it; so is a certified run's UNSAT, which arrives here only once a
  // checker other than its producer verified its proof (coordinator/model/proof-checks.ts).
  if (v.kind === VerdictKind.VERDICT_KIND_SAT || (run.spec.certify && v.kind === VerdictKind.VERDICT_KIND_UNSAT)) return "record";
  const worker = v.workerId;
  const elsewhere = run.opts.distrustedElsewhere?.(worker);
  if (elsewhere !== undefined) yield* distrustFromElsewhere(run, worker, elsewhere);
  if (run.trust.distrusted.has(worker) || run.trust.refuterOf(e.id) === worker) {
    run.log.info("verdict not taken: the cube goes to another worker", { cube: e.id, worker, why: run.trust.distrusted.has(worker) ? "distrusted" : "own spot check" });
    yield* sendAway(run, e, worker);
    return "taken";
  }
  if (v.kind !== VerdictKind.VERDICT_KIND_UNSAT || run.trust.refuterOf(e.id) !== undefined) return "record";
  if (!sampled(run.spec.runId, e.id, run.spotCheckPercent)) return "record";
  if (!(run.opts.checkers?.(worker) ?? false)) {
    run.log.debug("refutation not spot-checked: no other live worker", { cube: e.id, worker });
    return "record";
  }
  run.log.info("spot check: the refuted cube goes to another worker", { cube: e.id, worker });
  yield* run.recorder.applyAndRecord(note(SPOT_CHECK_NOTE, worker, e.id, `cube ${e.id} refuted by ${worker}: solved again by another worker`));
  yield* sendAway(run, e, worker);
  return "taken";
}

/**
 * A verified solution of cube `cubeId`: when its check was pending, the refuter lied. It is distrusted and every cube
 * it closed as UNSAT in the run is queued again (the solution is recorded by the caller afterwards).
 */
export function* disproveRefuter(run: TrustRun, cubeId: string, solver: string): RunSteps {
  const liar = run.trust.refuterOf(cubeId);
  if (liar === undefined || liar === solver || run.trust.distrusted.has(liar)) return;
  const refuted = refutedBy(run, liar);
  run.log.error("spot check disproved a worker: its refutation of a satisfiable cube is undone, and all its others",
    { worker: liar, cube: cubeId, by: solver, requeued: refuted.length });
  yield* run.recorder.applyAndRecord(note(DISTRUSTED_NOTE, liar, cubeId,
    `worker ${liar} refuted cube ${cubeId}, which ${solver} solved (verified): its verdicts are no longer taken; ${refuted.length} cube(s) it refuted are queued again`));
  for (const e of refuted) yield* sendAway(run, e, liar);
}

/**
 * A worker that a check of another run disproved (`why` says where): distrusted in this run too, and every cube it
 * closed as UNSAT here queued again. Not in a certified run, whose refutations are proved.
 */
export function* distrustFromElsewhere(run: TrustRun, worker: string, why: string): RunSteps {
  if (run.spec.certify || run.trust.distrusted.has(worker)) return;
  const refuted = refutedBy(run, worker);
  run.log.error("a worker distrusted in another run is distrusted here: its refutations are undone", { worker, why, requeued: refuted.length });
  yield* run.recorder.applyAndRecord(note(DISTRUSTED_NOTE, worker, "", why));
  for (const e of refuted) yield* sendAway(run, e, worker);
}

/**
 * A portfolio member's verdict as the run takes it: a sampled whole-board UNSAT counts as giving up, so that the cubes
 * check it (one worker's word would refute every cube at once).
 */
export function screenMemberVerdict(run: TrustRun, v: Verdict): Verdict {
  if (v.kind !== VerdictKind.VERDICT_KIND_UNSAT || !sampled(run.spec.runId, v.cubeId, run.spotCheckPercent)) return v;
  if (!(run.opts.checkers?.(v.workerId) ?? false)) return v;
  run.log.info("spot check: the portfolio member's exhausted board is not taken; the cubes decide", { worker: v.workerId });
  return { ...v, kind: VerdictKind.VERDICT_KIND_UNKNOWN, reason: "whole-board refutation spot-checked by the cubes", partNext: undefined };
}

/**
 * JetStream gave up delivering a cube's task (the MAX_DELIVERIES advisory): "handled" when it was a spot check. Its
 * refuter handed it back each time while no other worker took it (all busy): it goes out again; with no other live,
 * trusted worker left, the refutation is taken unchecked, so that the run still ends.
 */
export function* giveUpCheck(run: TrustRun, e: CubeEntry): RunSteps<"handled" | "not-a-check"> {
  const refuter = run.trust.refuterOf(e.id);
  if (refuter === undefined) return "not-a-check";
  if (run.opts.checkers?.(refuter) ?? false) {
    yield* sendAway(run, e, refuter);
    return "handled";
  }
  run.log.warn("spot check not done: no other live worker; the refutation is taken unchecked", { cube: e.id, worker: refuter });
  const closed: CubeClosed = {
    id: e.id, kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: refuter, wallMs: 0, conflicts: 0, reason: "spot check not done: no other worker",
    searchNodes: 0, estNodes: 0, estNodesStderr: 0, proofSha256: "",
  };
  yield* run.recorder.applyAndRecord({ $case: "closed", value: { cubes: [closed] } });
  return "handled";
}
