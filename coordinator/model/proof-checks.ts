/**
 * Checker slots, the decisions of a certified run's proof checks (docs/operations.md "Certificates"; the state is the
 * certification part's, coordinator/model/run-certification.ts). A proof is checked by an identity other than the
 * one that produced it, so that checking grows with the cluster:
 *
 * - **Held.** A worker's UNSAT with a proof is not taken at once: a "sent" ProofCheck entry holds it (its producer and
 *   what its verdict said) while the cube stays open.
 * - **Sent to a checker.** With another live, trusted worker (`opts.checkers`, as spot checks, run-trust.ts), the cube
 *   goes out again as a check task (CubeTask.check: the proof's SHA-256; the units come from the run's own table)
 *   with `not_worker` naming the producer, whose worker hands it back; on the front queue, which workers take first. Without one (a one-worker cluster), the
 *   coordinator checks the proof itself (the "check-proof" effect), so every run still ends; and so it does while a
 *   check slot of its own for the run is free (`opts.ownCheckFree`, `--own-proof-checks`, default 2): a check task
 *   waits for a worker's slot to come free, which made a 2-worker run 1.22x slower, so the workers take the checks
 *   the coordinator cannot start at once, and checking grows with the cluster past it.
 * - **Verified by a worker.** The finding is recorded under the checker's identity, with its CPU and wall time, and
 *   the cube closes as the producer's refutation, certified; unless the proof is in the coordinator's sample
 *   (`sampled(run, cube, percent)`, as spot checks choose, the run's spot-check percent): then the coordinator
 *   checks it too before the cube closes, so a checker that says "verified" of a bad proof is caught with known
 *   probability.
 * - **Rejected by a worker, or not checked.** The coordinator checks the proof itself and decides. A checker whose
 *   finding the coordinator's contradicts lied: it is distrusted as a spot check distrusts a liar (a "distrusted"
 *   note: its verdicts are no longer taken, the coordinator's views and metrics show it). A proof the coordinator
 *   rejects is a rejected proof (run-certification.ts rejectProof): the cube runs again.
 * - **The producer's own answer** to the check of its proof is never taken: the check goes out again.
 *
 * Pure: the entries and tasks are effects, and the state changes only by `apply`.
 */

import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { ProofCheck } from "../../proto/gen/cubist/v1/ledger.js";
import { isSha256Hex } from "../../core/sha256.js";
import { isOpen, type CubeEntry } from "./cube-entry.js";
import type { PublishEffect, RunSteps } from "./run-effects.js";
import { recordVerdicts, type VerdictsRun } from "./record-verdicts.js";
import { COORDINATOR_CHECKER, rejectProof, type CertifiedRun, type PendingProof } from "./run-certification.js";
import { DISTRUSTED_NOTE, sampled } from "./run-trust.js";

/** The actor of the notes proof checks write (RunNote.actor). */
export const PROOF_CHECK_ACTOR = "proof-check";

/** What proof checks read of a run. */
export interface ProofChecksRun extends Omit<VerdictsRun, "certification">, CertifiedRun {
  /** The share of workers' verified proofs the coordinator checks again, percent. */
  readonly proofSamplePercent: number;
}

/** What the coordinator's own check of a proof found (coordinator/shell/certify.ts). */
export interface OwnCheck {
  readonly verified: boolean;
  readonly detail: string;
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Not checked at all (the proof not downloaded, no checker to run): the proof is rejected, no checker disproved. */
  readonly unchecked?: boolean;
}

function proofCheck(fields: Partial<ProofCheck> & Pick<ProofCheck, "cubeId" | "outcome" | "proofSha256" | "producer">): ProofCheck {
  return { checker: "", detail: "", cpuMs: 0, wallMs: 0, producerWallMs: 0, producerConflicts: 0, producerSearchNodes: 0, ...fields };
}

/** The producer's UNSAT verdict as the "sent" entry kept it: what closes the cube once its proof is verified. */
function producerVerdict(run: ProofChecksRun, sent: ProofCheck): Verdict {
  return {
    runId: run.spec.runId, cubeId: sent.cubeId, kind: VerdictKind.VERDICT_KIND_UNSAT, model: Buffer.alloc(0), numVars: run.spec.numVars,
    stats: { conflicts: sent.producerConflicts, decisions: 0, propagations: 0, solverSeconds: 0, wallMs: sent.producerWallMs, cpuMs: 0, maxRssBytes: 0, searchNodes: sent.producerSearchNodes, engine: "", estNodes: 0, estNodesStderr: 0 },
    workerId: sent.producer, host: "", delivery: 0, reason: "", fault: 0, generation: 0, board: [], taskSeq: 0, lease: "", proofSha256: sent.proofSha256, best: [],
  };
}

/** Whether the run takes no verdict of `worker` (a spot check or a proof check disproved it, here or elsewhere). */
function distrusted(run: ProofChecksRun, worker: string): boolean {
  return run.trust.distrusted.has(worker) || run.opts.distrustedElsewhere?.(worker) !== undefined;
}

/**
 * Sends the check of a held proof to a worker other than its producer, or has the coordinator check it: when no other
 * worker can, or while one of the coordinator's own check slots for the run is free (it starts at once, where a check
 * task waits for a worker's slot).
 */
function* sendCheck(run: ProofChecksRun, e: CubeEntry, sent: ProofCheck): RunSteps {
  const other = run.opts.checkers?.(sent.producer) ?? false;
  if (!other || (run.opts.ownCheckFree?.() ?? false)) {
    run.log.debug(other ? "proof checked by the coordinator: a check slot of its own is free" : "proof checked by the coordinator: no other live, trusted worker", { cube: e.id, producer: sent.producer });
    yield { type: "check-proof", cube: e.id };
    return;
  }
  const attempt = e.unknowns + e.errors + 1;
  const task = run.recorder.task(e, attempt);
  task.task.notWorker = sent.producer;
  task.task.check = { proofSha256: sent.proofSha256, producer: sent.producer };
  // To the front queue: a check is short and closes a cube already refuted, so workers take it before new cubes.
  const publish: PublishEffect = { type: "publish", tasks: [task], seqs: [], front: true };
  yield* run.recorder.publishAndRecord(publish, () => ({ $case: "requeued", value: { id: e.id, attempt, seq: publish.seqs[0] ?? 0, lease: publish.tasks[0].task.lease } }));
}

/** A worker's UNSAT with a proof in a certified run: held, and its proof sent to be checked (the module comment). */
export function* holdProof(run: ProofChecksRun, v: Verdict): RunSteps {
  const e = run.cubes.table.get(v.cubeId);
  if (run.life.ended || !e || !isOpen(e) || run.certification.pending.has(v.cubeId)) return;
  if (!isSha256Hex(v.proofSha256)) return yield* rejectProof(run, v, v.proofSha256 === "" ? "UNSAT without a proof" : "the proof name is not a SHA-256");
  const sent = proofCheck({
    cubeId: v.cubeId, outcome: "sent", proofSha256: v.proofSha256, producer: v.workerId,
    producerWallMs: v.stats?.wallMs ?? 0, producerConflicts: v.stats?.conflicts ?? 0, producerSearchNodes: v.stats?.searchNodes ?? 0,
  });
  yield* run.recorder.applyAndRecord({ $case: "proofCheck", value: sent });
  yield* sendCheck(run, e, sent);
}

/** A verdict of a cube whose proof is held: a checker's answer (the module comment). */
export function* answerCheck(run: ProofChecksRun, v: Verdict, pending: PendingProof): RunSteps {
  const { sent } = pending;
  const e = run.cubes.table.get(v.cubeId);
  if (run.life.ended || !e || !isOpen(e)) return;
  if (v.workerId === sent.producer) {
    run.log.warn("a producer answered the check of its own proof: not taken, the check goes out again", { cube: v.cubeId, worker: v.workerId });
    return yield* sendCheck(run, e, sent);
  }
  const c = v.checked;
  if (c !== undefined && c.proofSha256 === sent.proofSha256 && !distrusted(run, v.workerId)) {
    const verified = c.verified && v.kind === VerdictKind.VERDICT_KIND_UNSAT;
    yield* run.recorder.applyAndRecord({ $case: "proofCheck", value: proofCheck({
      cubeId: v.cubeId, outcome: verified ? "verified" : "rejected", proofSha256: sent.proofSha256, producer: sent.producer, checker: v.workerId,
      detail: c.detail.slice(0, 1000), cpuMs: v.stats?.cpuMs ?? 0, wallMs: v.stats?.wallMs ?? 0,
    }) });
    if (verified && !sampled(run.spec.runId, v.cubeId, run.proofSamplePercent)) return yield* recordVerdicts(run, [producerVerdict(run, sent)]);
    run.log.info(verified ? "proof verified by a worker, in the coordinator's sample: checked again" : "proof rejected by a worker: the coordinator checks it",
      { cube: v.cubeId, producer: sent.producer, checker: v.workerId });
  } else {
    run.log.info("proof not checked by a worker: the coordinator checks it", { cube: v.cubeId, worker: v.workerId, why: v.reason || (c ? "another proof" : "no finding") });
  }
  yield { type: "check-proof", cube: v.cubeId };
}

/** A checker whose finding on a proof the coordinator's contradicts: distrusted in the run (the module comment). */
function* distrustChecker(run: ProofChecksRun, report: ProofCheck, verified: boolean): RunSteps {
  if (run.trust.distrusted.has(report.checker)) return;
  const said = report.outcome === "verified" ? "verified" : "rejected";
  const message = `said the proof of cube ${report.cubeId} of run ${run.spec.runId} (from ${report.producer}) was ${said}; the coordinator's check ${verified ? "verified" : "rejected"} it`;
  run.log.error("a proof checker lied: distrusted", { worker: report.checker, cube: report.cubeId, said });
  yield* run.recorder.applyAndRecord({ $case: "note", value: { kind: DISTRUSTED_NOTE, message, actor: PROOF_CHECK_ACTOR, worker: report.checker, cubeId: report.cubeId } });
}

/** The coordinator checked a held proof itself: the cube closes certified or its proof is rejected, and liars are distrusted. */
export function* recordOwnCheck(run: ProofChecksRun, cube: string, proofSha256: string, r: OwnCheck): RunSteps {
  const pending = run.certification.pending.get(cube);
  if (run.life.ended || !pending || pending.sent.proofSha256 !== proofSha256) return;
  const { sent } = pending;
  yield* run.recorder.applyAndRecord({ $case: "proofCheck", value: proofCheck({
    cubeId: cube, outcome: r.verified ? "verified" : "rejected", proofSha256, producer: sent.producer, checker: COORDINATOR_CHECKER,
    detail: r.detail.slice(0, 1000), cpuMs: r.cpuMs, wallMs: r.wallMs,
  }) });
  for (const report of pending.reports) {
    if (r.unchecked) break;
    if (report.checker !== COORDINATOR_CHECKER && (report.outcome === "verified") !== r.verified) yield* distrustChecker(run, report, r.verified);
  }
  if (r.verified) yield* recordVerdicts(run, [producerVerdict(run, sent)]);
  else yield* rejectProof(run, producerVerdict(run, sent), r.detail);
}

/**
 * A certified run's batch of verdicts: a held proof's answers to its check, UNSATs held for their proofs' checks, and
 * the rest recorded as usual.
 */
export function* recordCertifiedVerdicts(run: ProofChecksRun, verdicts: readonly Verdict[]): RunSteps {
  const rest: Verdict[] = [];
  for (const v of verdicts) {
    const pending = run.certification.pending.get(v.cubeId);
    // A solution is verified like any other (it closes the cube, and the held UNSAT with it).
    if (pending && v.kind !== VerdictKind.VERDICT_KIND_SAT) yield* answerCheck(run, v, pending);
    else if (v.kind === VerdictKind.VERDICT_KIND_UNSAT) yield* holdProof(run, v);
    else rest.push(v);
  }
  if (rest.length > 0) yield* recordVerdicts(run, rest);
}
