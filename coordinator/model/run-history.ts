/**
 * The run's cube counts over time, a part of the run model (coordinator/model/run-model.ts): the dashboard's
 * cubes-over-time chart, sampled at the ledger time of the entries as they are applied. Like every part it is rebuilt by
 * replaying the ledger, so a coordinator restart does not start the chart again; it needs no store of its own.
 *
 * At most MAX_SAMPLES points: the last point always holds the newest counts, a new point starts once `step` of ledger
 * time has passed since the one before it, and when the list is full every other point is dropped and the step doubles
 * (a week-long run keeps its whole shape at a coarser grain). The ledger knows a cube as open, not whether a worker
 * is on it now: `open` is queued and running together.
 */

import type { CubeEntryCounts } from "./cube-table.js";

/** One point of the chart: the cube counts by state at a ledger time, and the share of the space closed. */
export interface CubeCountsPoint {
  readonly t: number;
  /** Closed share of the space, 0..1. */
  readonly progress: number;
  /** Queued or running. */
  readonly open: number;
  readonly unsat: number;
  readonly sat: number;
  readonly unknown: number;
  readonly failed: number;
  readonly resplit: number;
}

export const MAX_SAMPLES = 600;
/** The first grain: one point a second of ledger time. */
const FIRST_STEP_MS = 1000;

export class RunHistory {
  private readonly list: CubeCountsPoint[] = [];
  private step = FIRST_STEP_MS;

  /** Every point, oldest first. */
  get points(): readonly CubeCountsPoint[] {
    return this.list;
  }

  /** The counts after an entry applied at ledger time `t`. */
  sample(t: number, c: CubeEntryCounts, progress: number): void {
    const p: CubeCountsPoint = { t, progress: Math.min(1, progress), open: c.queued, unsat: c.unsat, sat: c.sat, unknown: c.unknown, failed: c.failed, resplit: c.resplit };
    const n = this.list.length;
    const last = this.list[n - 1];
    if (last && sameCounts(last, p)) return;
    if (n >= 2 && t - this.list[n - 2].t < this.step) this.list[n - 1] = p;
    else this.list.push(p);
    if (this.list.length > MAX_SAMPLES) this.thin();
  }

  /** Halves the points (keeping the first and the last) and doubles the grain. */
  private thin(): void {
    const last = this.list.length - 1;
    let w = 0;
    for (let i = 0; i <= last; i++) if (i % 2 === 0 || i === last) this.list[w++] = this.list[i];
    this.list.length = w;
    this.step *= 2;
  }
}

function sameCounts(a: CubeCountsPoint, b: CubeCountsPoint): boolean {
  return a.progress === b.progress && a.open === b.open && a.unsat === b.unsat && a.sat === b.sat && a.unknown === b.unknown && a.failed === b.failed && a.resplit === b.resplit;
}
