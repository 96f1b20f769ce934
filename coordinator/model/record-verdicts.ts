/**
 * A batch of verdicts for one run (already checked as well-formed, with their cube's lease, by the shell), read by
 * the run model (coordinator/model/run-model.ts). Each verdict goes to the part it concerns: the portfolio member's to
 * the scan member, a counted cube's to counting, a SAT answer to the solutions once verified, every other verdict
 * closes its cube (an unknown one is followed up, an error retried or given up). When the batch is done, everything it
 * caused is published and recorded; the shell acks the messages afterwards.
 *
 * Error verdicts: the worker acks its task and the cube is sent again as a new attempt, so one bad worker cannot use up
 * its deliveries; it fails once CUBE_FAIL_WORKERS distinct workers reported errors on it, or after max_deliver errors
 * in all.
 */

import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { verdictLabel, verdictReason } from "../../proto/vocabulary.js";
import { isOpen, type CubeEntry } from "./cube-entry.js";
import type { RunSteps } from "./run-effects.js";
import { answerOfVerdict, closedOf, progressOf } from "./run-answers.js";
import { considerBest, type BestRun } from "./run-best.js";
import { recordCount, type CountRun } from "./run-count.js";
import { close, failCube, flushClosed, followUpUnknowns, newBatch, rejectInBatch, requeue, type VerdictBatch } from "./run-cubes.js";
import { checkComplete, type OutcomeRun } from "./run-outcome.js";
import { acceptSolution, rejectAnswer } from "./run-solutions.js";
import { continueMember, recordMember, workerMs, type MemberRun } from "./scan-member.js";
import { isScoreSlot, recordSlot, type ScoreRun } from "./score-slots.js";
import { disproveRefuter, screenMemberVerdict, screenVerdict, type TrustRun } from "./run-trust.js";

/** Distinct workers whose errors on one cube make it fail (errors from one worker only retry it). */
export const CUBE_FAIL_WORKERS = 2;

/** What reading verdicts touches: every part of the run a verdict can concern. */
export interface VerdictsRun extends CountRun, MemberRun, BestRun, OutcomeRun, ScoreRun, TrustRun {}

/** Records a batch of verdicts for this run. */
export function* recordVerdicts(run: VerdictsRun, verdicts: readonly Verdict[]): RunSteps {
  if (run.life.ended) return;
  const batch = newBatch();
  if (yield* recordEach(run, verdicts, batch)) return;
  yield* flushClosed(run, batch.closed);
  for (const f of batch.failed) yield* failCube(run, f.entry, f.reason);
  for (const e of batch.retries) if (e.state === "queued") yield* requeue(run, e, e.unknowns + e.errors);
  yield* followUpUnknowns(run, batch.unknowns);
  yield* checkComplete(run);
  yield* continueMember(run);
}

/**
 * Each verdict in turn, until one ends the run (then true). The cubes closed so far are recorded before a verdict
 * that can end the run (a member's, a score slot's, a solution: recordSat), so that they are recorded before its end.
 */
function* recordEach(run: VerdictsRun, verdicts: readonly Verdict[], batch: VerdictBatch): RunSteps<boolean> {
  for (const v of verdicts) {
    if (isScoreSlot(v.cubeId)) {
      yield* flushClosed(run, batch.closed);
      yield* recordSlot(run, v);
      if (run.life.ended) return true;
      continue;
    }
    // An improvement streamed while a task goes on is for score slots only.
    if (v.kind === VerdictKind.VERDICT_KIND_BEST) continue;
    if (run.cubes.table.member(v.cubeId)) {
      yield* flushClosed(run, batch.closed);
      yield* recordMember(run, screenMemberVerdict(run, v));
      if (run.life.ended) return true;
      continue;
    }
    const entry = run.cubes.table.get(v.cubeId);
    if (!entry) {
      run.log.warn("verdict for an unknown cube ignored", { cube: v.cubeId, worker: v.workerId });
      continue;
    }
    if (isOpen(entry)) run.member.addCubeTime(workerMs(v));
    if ((yield* recordCubeVerdict(run, v, entry, batch)) === "ended") return true;
  }
  return false;
}

/** One verdict of a cube: "ended" when it ended the run. */
function* recordCubeVerdict(run: VerdictsRun, v: Verdict, entry: CubeEntry, batch: VerdictBatch): RunSteps<"ended" | "next"> {
  if (run.counting && (v.kind === VerdictKind.VERDICT_KIND_SAT || v.kind === VerdictKind.VERDICT_KIND_UNSAT)) {
    return yield* recordCount(run, v, entry, batch);
  }
  // Spot checks (coordinator/model/run-trust.ts) may take the verdict: a check to send, a distrusted worker's answer.
  if ((yield* screenVerdict(run, v, entry)) === "taken") return "next";
  if (v.kind === VerdictKind.VERDICT_KIND_SAT) return yield* recordSat(run, v, entry, batch);
  yield* recordClosed(run, v, entry, batch);
  return "next";
}

/** A SAT answer: its board (or model) verified, then the cube closes and the solution is recorded. */
function* recordSat(run: VerdictsRun, v: Verdict, entry: CubeEntry, batch: VerdictBatch): RunSteps<"ended" | "next"> {
  const accepted = answerOfVerdict(run.shape, run.spec, v, run.log);
  if (accepted === null) return "next";
  if (!accepted.ok) {
    // Never a solution. The worker acked its task, so the cube is sent out again (or given up).
    run.log.error("SAT answer rejected by the verifier: not a solution", { cube: v.cubeId, worker: v.workerId, violation: accepted.reason });
    yield* rejectAnswer(run);
    rejectInBatch(run, v, entry, batch, `rejected answer: ${accepted.reason}`, "the verifier rejected its answers");
    return "next";
  }
  // A solution of a cube whose refutation waited for its check: the refuter lied.
  yield* flushClosed(run, batch.closed);
  yield* disproveRefuter(run, v.cubeId, v.workerId);
  if (!close(run, closedOf(v, v.kind, ""), batch.closed)) return "next";
  yield* flushClosed(run, batch.closed);
  return (yield* acceptSolution(run, accepted.cells, v.cubeId, v.workerId)) ? "ended" : "next";
}

/** An UNSAT, unknown or error verdict: the cube closes as it says; an unknown one is followed up, an error retried or failed. */
function* recordClosed(run: VerdictsRun, v: Verdict, entry: CubeEntry, batch: VerdictBatch): RunSteps {
  const progress = progressOf(run.spec, entry, v, run.log);
  if (!close(run, { ...closedOf(v, v.kind, verdictReason(v)), ...(progress ? { partNext: progress } : {}) }, batch.closed)) return;
  if (v.best.length > 0) yield* considerBest(run, v);
  const label = verdictLabel(v.kind);
  if (label === "unknown") batch.unknowns.push(entry);
  // The worker acked its task: the cube goes out again as a new attempt unless several workers failed it.
  if (label === "error") {
    const workers = entry.errorWorkers?.length ?? 0;
    if (workers >= CUBE_FAIL_WORKERS || entry.errors >= run.opts.maxDeliver) {
      batch.failed.push({ entry, reason: `solver errors from ${workers} worker(s), ${entry.errors} in all: ${verdictReason(v)}` });
    } else {
      batch.retries.push(entry);
    }
  }
}
