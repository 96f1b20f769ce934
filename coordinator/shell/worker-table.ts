/**
 * The workers the coordinator has heard from: each one's last heartbeat (WorkerStatus, believed only as far as
 * coordinator/shell/heartbeats.ts finds it possible), who is live, and which cubes of which run live workers report
 * running. Standbys keep it too, so their views show the workers.
 */

import { WORKER_FORGET_MS, WORKER_SILENCE_MS, type Names } from "../../proto/contract.js";
import type { WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";
import { checkHeartbeat, type Rejections } from "./heartbeats.js";
import type { WorkerOnCube } from "./run.js";

/** A worker's last heartbeat. */
export interface WorkerInfo {
  status: WorkerStatus;
  seenMs: number;
}

/** The cubes a worker's previous process reported running, when a heartbeat shows it started again. */
export interface Orphans {
  readonly workerId: string;
  readonly cubes: ReadonlyArray<{ runId: string; cubeId: string }>;
}

/**
 * How much later a worker's start (its heartbeat's time minus its uptime) must be than the start its previous
 * heartbeat gave, to count as a new process: clocks and heartbeat delays move the computed start by far less.
 */
export const RESTART_SLACK_MS = 2000;

/** When `next` comes from a new process of the worker that sent `prev`: the cubes the old one held. Pure. */
export function orphansOf(prev: WorkerInfo | undefined, next: WorkerStatus, now: number): Orphans | null {
  if (!prev) return null;
  const startedBefore = prev.seenMs - prev.status.uptimeSec * 1000;
  const startedNow = now - next.uptimeSec * 1000;
  if (startedNow - startedBefore < RESTART_SLACK_MS || prev.status.running.length === 0) return null;
  return { workerId: next.workerId, cubes: prev.status.running.map((r) => ({ runId: r.runId, cubeId: r.cubeId })) };
}

/** What the table needs to know of a run to believe a heartbeat's running entries. */
export type RunOf = (id: string) => { createdUnixMs: number; hasCube(cube: string): boolean } | undefined;

export class WorkerTable {
  readonly workers = new Map<string, WorkerInfo>();

  constructor(private readonly names: Names, private readonly rejections: Rejections) {}

  /**
   * A heartbeat on `subject`; dropped (and counted) unless possible. Returns the cubes a previous process of the same
   * worker held when this heartbeat shows a new one (a worker killed and started again): nobody works on them now.
   * Returns the heartbeat as believed too, or null when it was dropped.
   */
  record(data: Uint8Array, subject: string, runOf: RunOf, now = Date.now()): { status: WorkerStatus; orphans: Orphans | null } | null {
    const s = checkHeartbeat(data, subject, { names: this.names, now, runOf, rejections: this.rejections });
    if (!s) return null;
    const orphans = orphansOf(this.workers.get(s.workerId), s, now);
    this.workers.set(s.workerId, { status: s, seenMs: now });
    return { status: s, orphans };
  }

  /** Workers heard from in the last WORKER_SILENCE_MS (proto/contract.ts). */
  live(now = Date.now()): WorkerInfo[] {
    return [...this.workers.values()].filter((w) => now - w.seenMs < WORKER_SILENCE_MS);
  }

  /** Per run, the cubes live workers report running; forgets workers silent for WORKER_FORGET_MS. */
  runningByRun(now = Date.now()): Map<string, Map<string, WorkerOnCube>> {
    const byRun = new Map<string, Map<string, WorkerOnCube>>();
    for (const [id, w] of this.workers) {
      if (now - w.seenMs > WORKER_FORGET_MS) {
        this.workers.delete(id);
        continue;
      }
      if (now - w.seenMs > WORKER_SILENCE_MS) continue;
      for (const r of w.status.running) {
        let cubes = byRun.get(r.runId);
        if (!cubes) byRun.set(r.runId, (cubes = new Map()));
        cubes.set(r.cubeId, { worker: w.status.workerId, since: r.startedUnixMs });
      }
    }
    return byRun;
  }
}
