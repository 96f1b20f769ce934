/**
 * Work left in a run, from the size of the search trees rather than from closed weight.
 *
 * Before its search, the placement engine estimates the cube's whole tree with Knuth's random-probe estimator
 * (engine/search.c `--estimate`), and every verdict carries that estimate (placements, with its standard error) and
 * the placements made. Remaining work = the estimates of the open cubes that have one, plus the open weight without
 * one times the placements per unit weight seen in the estimated cubes (re-split children start unestimated and are
 * extrapolated from their weight until a worker runs them). A cube runs from scratch on every attempt, so an open
 * cube's remaining work is its whole tree. Seconds = remaining / the run's placement rate over the last 10 minutes.
 *
 * Knuth's estimator is unbiased but heavy-tailed: with a few hundred probes it tends to underestimate (measured in
 * BENCHMARKS.md "Work estimates"), so the standard error is reported beside it and the CLI shows a range.
 */

import type { CubeEntry } from "./cube-entry.js";

const WINDOW_MS = 10 * 60 * 1000;

export interface WorkView {
  placements: number;
  placementsPerSecond: number;
  /** Placements left (-1: no estimate yet), its standard error, and seconds at the current rate (-1: unknown). */
  remainingNodes: number;
  remainingNodesStderr: number;
  workEtaSeconds: number;
}

/** The estimate as the run's readers see it (only the cubes part records into it: coordinator/model/run-cubes.ts). */
export type WorkEstimateView = Pick<WorkEstimate, "placements" | "rate" | "view">;

export class WorkEstimate {
  private made = 0;
  private readonly estimates = new Map<string, { nodes: number; stderr: number }>();
  private samples: Array<{ t: number; placements: number }> = [];

  /** A closed verdict's numbers (live and on replay). */
  record(cube: string, atUnixMs: number, searchNodes: number, estNodes: number, estStderr: number): void {
    if (Number.isFinite(searchNodes) && searchNodes > 0) this.made += searchNodes;
    if (Number.isFinite(estNodes) && estNodes > 0) this.estimates.set(cube, { nodes: estNodes, stderr: Number.isFinite(estStderr) && estStderr > 0 ? estStderr : 0 });
    const last = this.samples[this.samples.length - 1];
    if (last && atUnixMs - last.t < 2500) last.placements = this.made;
    else this.samples.push({ t: atUnixMs, placements: this.made });
    while (this.samples.length > 2 && atUnixMs - this.samples[0].t > WINDOW_MS) this.samples.shift();
  }

  /** Placements made for the run by every verdict. */
  get placements(): number {
    return this.made;
  }

  rate(now: number): number {
    if (this.samples.length < 2) return 0;
    const first = this.samples[0], last = this.samples[this.samples.length - 1];
    const dt = Math.max(now, last.t) - first.t;
    return dt > 0 ? ((last.placements - first.placements) * 1000) / dt : 0;
  }

  /**
   * The view for RunStatus, over the cube table's entries. `decided`: the run ended SAT or UNSAT (nothing is left);
   * a cancelled or failed run keeps its estimate of the work left (what a resume would face), at no rate.
   */
  view(entries: Iterable<CubeEntry>, now: number, decided: boolean, ended = decided): WorkView {
    const placementsPerSecond = ended ? 0 : this.rate(now);
    let estWeight = 0, estNodes = 0, openNodes = 0, openVar = 0, openUnestimated = 0;
    for (const e of entries) {
      const est = this.estimates.get(e.id);
      const open = e.state === "queued" || e.state === "unknown";
      if (est) {
        estWeight += e.weight;
        estNodes += est.nodes;
        if (open) { openNodes += est.nodes; openVar += est.stderr * est.stderr; }
      } else if (open) {
        openUnestimated += e.weight;
      }
    }
    const none = { placements: this.placements, placementsPerSecond, remainingNodes: -1, remainingNodesStderr: 0, workEtaSeconds: -1 };
    if (decided) return { ...none, remainingNodes: 0, workEtaSeconds: 0 };
    if (estWeight <= 0) return none;
    // Unestimated open weight at the density of the estimated cubes; its error scales with the estimated ones'.
    const density = estNodes / estWeight;
    const extrapolated = openUnestimated * density;
    const relErr = estNodes > 0 ? Math.sqrt([...this.estimates.values()].reduce((s, x) => s + x.stderr * x.stderr, 0)) / estNodes : 0;
    const remainingNodes = openNodes + extrapolated;
    const remainingNodesStderr = Math.sqrt(openVar + (extrapolated * relErr) ** 2);
    const workEtaSeconds = placementsPerSecond > 0 ? remainingNodes / placementsPerSecond : -1;
    return { placements: this.placements, placementsPerSecond, remainingNodes, remainingNodesStderr, workEtaSeconds };
  }
}
