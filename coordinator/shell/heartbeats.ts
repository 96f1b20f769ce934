/**
 * Checking worker heartbeats (WorkerStatus on `<p>.workers.<worker>`) before the coordinator believes them. Anyone
 * who can publish on the subject can send one, so nothing in it is trusted:
 *
 * - the whole heartbeat is dropped when it does not decode, its worker id does not match WORKER_ID_RE, the subject
 *   is not that worker's own subject (with per-worker NATS users the subject is what binds the id to an identity),
 *   or a number is impossible (non-finite or negative uptime, more busy slots than slots, more running entries
 *   than twice the slots: each solver slot may run a check task beside it, worker/slot.ts);
 * - one running entry is dropped when its run is unknown, its cube is not a cube of that run, or its start time is
 *   impossible: in the future, before the worker started (now - uptime), or before the run was created, each with
 *   CLOCK_SKEW_MS of tolerance for the worker's clock;
 * - one running entry is dropped when the coordinator did not lease that cube to that worker: the cube is closed
 *   (`running_closed_cube`: a worker still stopping a cube that another closed, not suspicious), or the entry's
 *   `lease_proof` is not the proof of the lease the coordinator recorded for the cube's current attempt with this
 *   worker's id (proto/lease-proof.ts; `running_not_leased`: a false claim, counted against the worker too). Only the
 *   worker that pulled the task knows the lease, so a running cube in every view comes from the coordinator's own
 *   leases. An honest worker can make one such claim when the stall check sent its cube again while it still ran.
 *
 * Every drop is counted by kind (Rejections: `cubist_coordinator_rejected_messages_total{kind}`). A dropped entry
 * leaves the cube queued in every view, so `cubes list --stuck` never lists a cube on a forged start time.
 */

import { CUBE_ID_RE, RUN_ID_RE, WORKER_ID_RE, type Names } from "../../proto/contract.js";
import { WorkerStatus, type RunningCube } from "../../proto/gen/cubist/v1/cube.js";
import type { Logger } from "../../cluster/log.js";
import { leaseProof } from "../../proto/lease-proof.js";

/** How far a worker's clock may be off the coordinator's before its start times count as impossible. */
export const CLOCK_SKEW_MS = 120_000;
/** More slots than any worker has (worker/config.ts MAX_CONCURRENCY). */
const MAX_SLOTS = 1024;

/** Why a message was dropped: the `kind` label of `cubist_coordinator_rejected_messages_total`. */
export const REJECT_KINDS = [
  "heartbeat_undecodable",
  "heartbeat_bad_worker_id",
  "heartbeat_wrong_subject",
  "heartbeat_bad_numbers",
  "running_unknown_run",
  "running_unknown_cube",
  "running_future_start",
  "running_start_before_worker",
  "running_start_before_run",
  "running_closed_cube",
  "running_not_leased",
  // Verdicts without a lease or identity (coordinator/model/leases.ts).
  "verdict_identity",
  "verdict_unknown_cube",
  "verdict_closed_cube",
  "verdict_lease",
] as const;
export type RejectKind = (typeof REJECT_KINDS)[number];

/** Counts of dropped messages by kind, with a warning for the first of each kind and then every 100th. */
export class Rejections {
  private readonly counts = new Map<RejectKind, number>(REJECT_KINDS.map((k) => [k, 0]));

  constructor(private readonly log: Logger) {}

  add(kind: RejectKind, fields: Record<string, unknown>): void {
    const n = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, n);
    if (n === 1 || n % 100 === 0) this.log.warn("message dropped", { kind, count: n, ...fields });
  }

  count(kind: RejectKind): number {
    return this.counts.get(kind) ?? 0;
  }
}

/** What the check needs of a run. */
export interface RunFacts {
  readonly createdUnixMs: number;
  /** The lease of the cube's current attempt; null when the cube is closed; undefined when the run has no such cube. */
  leaseOf(cubeId: string): string | null | undefined;
}

/** Printable, short: ids in log fields are attacker-chosen. */
function quote(s: string): string {
  return JSON.stringify(s.slice(0, 80));
}

/**
 * The heartbeat with only its believable running entries, or null when the whole heartbeat is dropped. Every drop
 * is added to `rejections`.
 */
export function checkHeartbeat(
  data: Uint8Array,
  subject: string,
  opts: { names: Names; now: number; runOf: (runId: string) => RunFacts | undefined; rejections: Rejections; falseClaim?: (worker: string) => void },
): WorkerStatus | null {
  const { now, rejections } = opts;
  let s: WorkerStatus;
  try {
    s = WorkerStatus.decode(data);
  } catch {
    rejections.add("heartbeat_undecodable", { subject: quote(subject), bytes: data.length });
    return null;
  }
  if (!WORKER_ID_RE.test(s.workerId)) {
    rejections.add("heartbeat_bad_worker_id", { subject: quote(subject), worker: quote(s.workerId) });
    return null;
  }
  if (subject !== opts.names.workerSubject(s.workerId)) {
    rejections.add("heartbeat_wrong_subject", { subject: quote(subject), worker: s.workerId });
    return null;
  }
  if (!Number.isFinite(s.uptimeSec) || s.uptimeSec < 0 || s.slots > MAX_SLOTS || s.busy > s.slots || s.running.length > Math.max(2 * s.slots, 1)) {
    rejections.add("heartbeat_bad_numbers", { worker: s.workerId, slots: s.slots, busy: s.busy, running: s.running.length, uptimeSec: s.uptimeSec });
    return null;
  }
  const workerStart = now - s.uptimeSec * 1000;
  const running: RunningCube[] = [];
  for (const r of s.running) {
    const drop = (kind: RejectKind): void => rejections.add(kind, { worker: s.workerId, run: quote(r.runId), cube: quote(r.cubeId), startedUnixMs: r.startedUnixMs });
    const run = RUN_ID_RE.test(r.runId) ? opts.runOf(r.runId) : undefined;
    const lease = run && CUBE_ID_RE.test(r.cubeId) ? run.leaseOf(r.cubeId) : undefined;
    if (!run) drop("running_unknown_run");
    else if (lease === undefined) drop("running_unknown_cube");
    else if (!Number.isFinite(r.startedUnixMs) || r.startedUnixMs > now + CLOCK_SKEW_MS) drop("running_future_start");
    else if (r.startedUnixMs < workerStart - CLOCK_SKEW_MS) drop("running_start_before_worker");
    else if (r.startedUnixMs < run.createdUnixMs - CLOCK_SKEW_MS) drop("running_start_before_run");
    else if (lease === null) drop("running_closed_cube");
    else if (r.leaseProof !== leaseProof(lease, s.workerId)) {
      drop("running_not_leased");
      opts.falseClaim?.(s.workerId);
    } else running.push(r);
  }
  return {
    ...s,
    host: s.host.slice(0, 128),
    solver: s.solver.slice(0, 64),
    running,
  };
}
