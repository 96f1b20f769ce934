/**
 * Leases and identities: which verdicts the coordinator believes. A worker is never trusted; a verdict counts only
 * when it answers a task that was actually delivered, and comes from the worker that says it sent it.
 *
 * - **Lease.** Every task message the coordinator publishes (the initial split, a re-split's children, every
 *   requeue) carries a fresh random lease token (`CubeTask.lease`, 128 bits: coordinator/shell/lease-tokens.ts), and the coordinator records it in the
 *   ledger with the cube (`CubeDef.lease`, `CubeRequeued.lease`), so a restarted coordinator knows it too. Only the
 *   worker that pulled the message sees the token: workers may pull from a run's consumer but may not read the cube
 *   stream, the ledger or another worker's inbox (deploy/nats, `cubist nats-users`). A verdict must carry the
 *   lease of its cube's *current* attempt: a verdict for a cube it was never given, or for an attempt that was
 *   replaced (re-published by the stall check, requeued after an error), is dropped.
 * - **Redelivery keeps the lease.** JetStream redelivers the same message (a worker died, was cut off, or handed the
 *   task back at shutdown), so the new holder has the same token as the old one; both did receive the cube, and the
 *   first verdict closes it. The coordinator cannot see redeliveries and does not need to.
 * - **Identity.** A worker publishes its verdicts on `<p>.verdicts.<run>.<worker>` with its own id in the payload.
 *   Each worker has its own NATS user whose permissions allow publishing only on its own verdict and heartbeat
 *   subjects, so the subject names the sender; a verdict whose subject's worker differs from its `worker_id` (or
 *   with no worker in the subject) is dropped.
 * - **Open cube.** Each cube closes once; verdicts for closed or unknown cubes are dropped too (a redelivered copy,
 *   a stale worker), and counted like the others.
 *
 * Every dropped verdict is acked (never redelivered), logged (the first of each kind, then every 100th) and counted
 * in `cubist_coordinator_rejected_messages_total{kind="verdict_..."}` (coordinator/shell/heartbeats.ts Rejections). Cubes recorded before leases existed (an empty recorded
 * lease) accept a verdict without one, so a run started by an older coordinator still finishes.
 */

import { WORKER_ID_RE, type Names } from "../../proto/contract.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeTableView } from "./cube-table.js";
import type { InFlightTasks } from "./in-flight.js";

/** Why a verdict was dropped: its `kind` label in `cubist_coordinator_rejected_messages_total` (coordinator/shell/heartbeats.ts). */
export type VerdictRejection =
  /** The subject names no worker, or another worker than the payload's `worker_id`. */
  | "verdict_identity"
  /** The run has no cube of that id. */
  | "verdict_unknown_cube"
  /** The cube is already closed (sat, unsat, failed, re-split). */
  | "verdict_closed_cube"
  /** The lease is not the cube's current attempt's. */
  | "verdict_lease";

/**
 * The worker id in a verdict subject `<p>.verdicts.<run>.<worker>`, or null when the subject is not that run's or
 * names no well-formed worker.
 */
export function workerOfVerdictSubject(names: Names, run: string, subject: string): string | null {
  const prefix = names.verdictsSubject(run, "");
  if (!subject.startsWith(prefix)) return null;
  const worker = subject.slice(prefix.length);
  return WORKER_ID_RE.test(worker) ? worker : null;
}

/** Null when the verdict may be recorded; else why it is dropped. */
export function checkVerdict(names: Names, table: CubeTableView, v: Verdict, subject: string): VerdictRejection | null {
  const worker = workerOfVerdictSubject(names, v.runId, subject);
  if (worker === null || worker !== v.workerId) return "verdict_identity";
  const m = table.member(v.cubeId);
  if (m) return !m.open ? "verdict_closed_cube" : m.lease !== v.lease ? "verdict_lease" : null;
  const e = table.get(v.cubeId);
  if (!e) return "verdict_unknown_cube";
  if (e.state !== "queued" && e.state !== "unknown") return "verdict_closed_cube";
  if (e.lease !== "" && e.lease !== v.lease) return "verdict_lease";
  return null;
}

/**
 * A dropped verdict that may yet be taken: its lease is that of a task in flight (published, not yet recorded:
 * coordinator/model/in-flight.ts), or its cube is unknown while the run's initial split is still being recorded (a
 * coordinator that took over a run mid-split publishes the split again, and records each cube once JetStream
 * answers). The coordinator holds such a verdict and looks at it again once the run has recorded more.
 */
export function awaitsRecord(rejection: VerdictRejection, v: Verdict, run: { readonly inFlight: Pick<InFlightTasks, "has">; readonly table: CubeTableView }): boolean {
  if (rejection !== "verdict_unknown_cube" && rejection !== "verdict_lease") return false;
  if (run.inFlight.has(v.cubeId, v.lease)) return true;
  return rejection === "verdict_unknown_cube" && !run.table.initialSplitDone && v.lease !== "";
}
