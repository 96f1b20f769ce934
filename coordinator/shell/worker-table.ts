/**
 * The workers the coordinator has heard from: each one's last heartbeat (WorkerStatus, believed only as far as
 * coordinator/shell/heartbeats.ts finds it possible), who is live, and which cubes of which run live workers report
 * running. Standbys keep it too, so their views show the workers.
 */

import { WORKER_FORGET_MS, WORKER_SILENCE_MS, type Names } from "../../proto/contract.js";
import type { WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";
import { checkHeartbeat, type Rejections, type RunFacts } from "./heartbeats.js";
import type { WorkerOnCube } from "./run.js";
import { isOpen } from "../model/cube-entry.js";
import type { CubeTableView } from "../model/cube-table.js";

/** A worker's last heartbeat, and what the coordinator holds against it. */
export interface WorkerInfo {
  status: WorkerStatus;
  seenMs: number;
  /** Running entries of its heartbeats that claimed cubes not leased to it (coordinator/shell/heartbeats.ts). */
  falseClaims: number;
}

/** The cubes a worker's previous process reported running, when a heartbeat shows it started again. */
export interface Orphans {
  readonly workerId: string;
  readonly cubes: ReadonlyArray<{ runId: string; cubeId: string }>;
}

/**
 * How much later than the previous heartbeat's arrival a worker's start (its heartbeat's time minus its uptime) must
 * be, to count as a new process when its uptime did not go back: clocks and heartbeat delays move it by far less.
 */
export const RESTART_SLACK_MS = 2000;

/** Workers whose false claims are counted one by one; ids are sender-chosen, so the table stays bounded. */
const MAX_SUSPECTS = 10_000;

/**
 * When `next` comes from a new process of the worker that sent `prev`: the cubes the old one held. Pure. A process's
 * uptime only grows, so a smaller uptime is a new process; so is one that started after the previous heartbeat
 * arrived. A heartbeat that merely arrived late (the coordinator's own event loop busy, say encoding a big puzzle) is
 * neither: its start computed on arrival moves later by the delay, which is why the start is not compared with the
 * previous heartbeat's start.
 */
export function orphansOf(prev: WorkerInfo | undefined, next: WorkerStatus, now: number): Orphans | null {
  if (!prev || prev.status.running.length === 0) return null;
  const uptimeWentBack = next.uptimeSec < prev.status.uptimeSec;
  const startedAfterLastSeen = now - next.uptimeSec * 1000 > prev.seenMs + RESTART_SLACK_MS;
  if (!uptimeWentBack && !startedAfterLastSeen) return null;
  return { workerId: next.workerId, cubes: prev.status.running.map((r) => ({ runId: r.runId, cubeId: r.cubeId })) };
}

/**
 * The lease a heartbeat must prove for `cube` (coordinator/shell/heartbeats.ts): its current attempt's while it is
 * open (a scan run's portfolio member and a score run's slots run like cubes), null once closed, undefined when the
 * run has no such cube. Pure.
 */
export function leaseOf(table: CubeTableView, cube: string): string | null | undefined {
  const m = table.member(cube);
  if (m) return m.open ? m.lease : null;
  const e = table.get(cube);
  if (!e) return undefined;
  return isOpen(e) ? e.lease : null;
}

/** What distrustedIn reads of a run. */
interface TrustedRun {
  readonly id: string;
  readonly model: { trust: { distrusted: ReadonlyMap<string, string>; reasonOf(worker: string, runId: string): string | undefined } };
}

/**
 * Why `worker` is distrusted by any of `runs` (coordinator/model/run-trust.ts), or undefined: the run whose check
 * disproved it names it, before the runs that took the distrust from it. Called for every verdict: it builds nothing.
 */
export function distrustReason(runs: Iterable<TrustedRun>, worker: string): string | undefined {
  let taken: string | undefined;
  for (const run of runs) {
    const cube = run.model.trust.distrusted.get(worker);
    if (cube === undefined) continue;
    const why = run.model.trust.reasonOf(worker, run.id) ?? "distrusted by another run";
    if (cube !== "") return why;
    taken ??= why;
  }
  return taken;
}

/** Every worker a spot check disproved in any of `runs`, and why (distrustReason). */
export function distrustedIn(runs: Iterable<TrustedRun>): Map<string, string> {
  const list = [...runs];
  const workers = new Set(list.flatMap((run) => [...run.model.trust.distrusted.keys()]));
  return new Map([...workers].map((worker) => [worker, distrustReason(list, worker)!]));
}

/** Some live worker other than `worker`, neither quarantined nor distrusted, can solve a spot check of its refutation. */
export function hasChecker(live: readonly WorkerInfo[], distrusted: ReadonlyMap<string, string>, worker: string): boolean {
  return live.some((w) => w.status.workerId !== worker && w.status.quarantined === "" && !distrusted.has(w.status.workerId));
}

/** What the table needs to know of a run to believe a heartbeat's running entries. */
export type RunOf = (id: string) => RunFacts | undefined;

export class WorkerTable {
  readonly workers = new Map<string, WorkerInfo>();
  /** False running claims per worker, kept while the worker is silent too (a forger need not send good heartbeats). */
  private readonly claims = new Map<string, number>();

  constructor(private readonly names: Names, private readonly rejections: Rejections) {}

  /** False running claims of `worker` so far. */
  falseClaims(worker: string): number {
    return this.claims.get(worker) ?? 0;
  }

  /**
   * A heartbeat on `subject`; dropped (and counted) unless possible. Returns the cubes a previous process of the same
   * worker held when this heartbeat shows a new one (a worker killed and started again): nobody works on them now.
   * Returns the heartbeat as believed too, or null when it was dropped.
   */
  record(data: Uint8Array, subject: string, runOf: RunOf, now = Date.now()): { status: WorkerStatus; orphans: Orphans | null } | null {
    const falseClaim = (worker: string): void => {
      if (this.claims.size < MAX_SUSPECTS || this.claims.has(worker)) this.claims.set(worker, this.falseClaims(worker) + 1);
    };
    const s = checkHeartbeat(data, subject, { names: this.names, now, runOf, rejections: this.rejections, falseClaim });
    if (!s) return null;
    const orphans = orphansOf(this.workers.get(s.workerId), s, now);
    this.workers.set(s.workerId, { status: s, seenMs: now, falseClaims: this.falseClaims(s.workerId) });
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
