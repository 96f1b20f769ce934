/**
 * Throughput and ETA of a run from samples of its closed weight over time: the rate over a sliding window (the
 * last ten minutes, at most 240 samples), so the ETA follows the run's current speed rather than its history.
 */

import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

/** Cubes a ledger "closed" batch really closed: unsat and sat (unknown and error verdicts leave the cube open). */
export function decidedCount(closed: ReadonlyArray<{ kind: VerdictKind }>): number {
  let n = 0;
  for (const c of closed) if (c.kind === VerdictKind.VERDICT_KIND_UNSAT || c.kind === VerdictKind.VERDICT_KIND_SAT) n++;
  return n;
}

const WINDOW_MS = 10 * 60 * 1000;
const MAX_SAMPLES = 240;

export class RateTracker {
  private samples: Array<{ t: number; weight: number; cubes: number }> = [];
  private cubes = 0;

  /** Records that `closedCubes` more cubes closed and the closed weight is now `weight`. */
  sample(t: number, weight: number, closedCubes: number): void {
    this.cubes += closedCubes;
    const last = this.samples[this.samples.length - 1];
    if (last && t - last.t < WINDOW_MS / MAX_SAMPLES) {
      last.weight = weight;
      last.cubes = this.cubes;
    } else {
      this.samples.push({ t, weight, cubes: this.cubes });
    }
    while (this.samples.length > 2 && t - this.samples[0].t > WINDOW_MS) this.samples.shift();
  }

  private span(now: number): { dt: number; dw: number; dc: number } | null {
    if (this.samples.length < 2) return null;
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    const dt = Math.max(now, last.t) - first.t;
    if (dt <= 0) return null;
    return { dt, dw: last.weight - first.weight, dc: last.cubes - first.cubes };
  }

  /** Cubes closed per second over the window. */
  cubesPerSecond(now: number): number {
    const s = this.span(now);
    return s ? (s.dc * 1000) / s.dt : 0;
  }

  /** Seconds until the sampled weight reaches `total` (1 by default) at the current rate; -1 when unknown. */
  eta(now: number, progress: number, total = 1): number {
    const s = this.span(now);
    if (!s || s.dw <= 0) return -1;
    return (Math.max(0, total - progress) * s.dt) / s.dw / 1000;
  }
}
