/**
 * Worker views: each live worker as the dashboard lists it (its last heartbeat, coordinator/shell/heartbeats.ts), with its
 * solver speed over the last minute measured from the verdicts the coordinator receives (`WorkerSpeeds`).
 */

import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import type { CoordinatorView } from "./coordinator-view.js";

/** Per-worker solver speed over the last minute, from the verdicts the coordinator receives. */
export class WorkerSpeeds {
  private readonly recent = new Map<string, Array<{ t: number; conflicts: number; propagations: number; solverSeconds: number; kind: string }>>();
  private readonly totals = new Map<string, { cubes: number; conflicts: number }>();

  constructor(private readonly windowMs = 60_000) {}

  record(v: Verdict, now = Date.now()): void {
    const w = v.workerId;
    let list = this.recent.get(w);
    if (!list) this.recent.set(w, (list = []));
    const s = v.stats;
    list.push({ t: now, conflicts: s?.conflicts ?? 0, propagations: s?.propagations ?? 0, solverSeconds: s?.solverSeconds ?? 0, kind: verdictLabel(v.kind) });
    this.trim(list, now);
    const tot = this.totals.get(w) ?? { cubes: 0, conflicts: 0 };
    tot.cubes++;
    tot.conflicts += s?.conflicts ?? 0;
    this.totals.set(w, tot);
    if (this.recent.size > 10_000) this.recent.delete(this.recent.keys().next().value!);
  }

  private trim(list: Array<{ t: number }>, now: number): void {
    while (list.length > 0 && now - list[0].t > this.windowMs) list.shift();
  }

  /** Conflicts per solver second and cubes per minute over the window. */
  speed(worker: string, now = Date.now()): { conflictsPerSec: number; propagationsPerSec: number; cubesPerMin: number; verdicts: number } {
    const list = this.recent.get(worker) ?? [];
    this.trim(list, now);
    let c = 0;
    let p = 0;
    let s = 0;
    for (const x of list) {
      c += x.conflicts;
      p += x.propagations;
      s += x.solverSeconds;
    }
    return {
      conflictsPerSec: s > 0 ? c / s : 0,
      propagationsPerSec: s > 0 ? p / s : 0,
      cubesPerMin: (list.length * 60_000) / this.windowMs,
      verdicts: this.totals.get(worker)?.cubes ?? 0,
    };
  }
}

export interface WorkerView {
  workerId: string;
  host: string;
  solver: string;
  slots: number;
  busy: number;
  cubesDone: number;
  uptimeSec: number;
  seenSec: number;
  running: Array<{ runId: string; cubeId: string; ageSec: number }>;
  conflictsPerSec: number;
  propagationsPerSec: number;
  cubesPerMin: number;
  /**
   * Why the worker takes no cubes (worker/quarantine.ts), or why the coordinator takes none of its verdicts (a spot
   * check disproved one: coordinator/model/run-trust.ts); "" when neither.
   */
  quarantined: string;
  /** Running claims of its heartbeats for cubes not leased to it (coordinator/shell/heartbeats.ts). */
  falseClaims: number;
}

export function workersView(c: Pick<CoordinatorView, "liveWorkers" | "distrusted">, speeds: WorkerSpeeds, now = Date.now()): WorkerView[] {
  return c.liveWorkers(now)
    .map((w) => {
      const s = w.status;
      const sp = speeds.speed(s.workerId, now);
      return {
        workerId: s.workerId, host: s.host, solver: s.solver, slots: s.slots, busy: s.busy, cubesDone: s.cubesDone, uptimeSec: s.uptimeSec,
        seenSec: (now - w.seenMs) / 1000,
        running: s.running.map((r) => ({ runId: r.runId, cubeId: r.cubeId, ageSec: Math.max(0, (now - r.startedUnixMs) / 1000) })),
        conflictsPerSec: sp.conflictsPerSec, propagationsPerSec: sp.propagationsPerSec, cubesPerMin: sp.cubesPerMin,
        quarantined: quarantineOf(s.quarantined, c.distrusted.get(s.workerId)),
        falseClaims: w.falseClaims,
      };
    })
    .sort((a, b) => a.workerId.localeCompare(b.workerId));
}

/** The worker's own quarantine reason, or the coordinator's distrust of it. */
function quarantineOf(own: string, distrusted: string | undefined): string {
  if (distrusted !== undefined) return `distrusted by a spot check: ${distrusted}`.slice(0, 400);
  return own.slice(0, 400);
}
