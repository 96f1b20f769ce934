/**
 * The coordinator's metric families of verdicts (serve/metrics.ts registers them): the counts of verdict messages it
 * kept (read at scrape time), the messages it dropped by kind, and what the accepted verdicts report, accumulated as
 * they arrive (`verdictTap`): the solve-time histogram and the solvers' and the engine's statistics.
 */

import { Counter, Histogram, type Registry } from "prom-client";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { VERDICT_LABELS, verdictLabel } from "../../proto/vocabulary.js";
import { REJECT_KINDS } from "../shell/heartbeats.js";
import type { CoordinatorCounters } from "../shell/verdict-router.js";
import type { CoordinatorView } from "./coordinator-view.js";

/** Buckets of solve and cube times, in seconds: from trivial cubes to hour-long ones. */
export const SOLVE_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];

/** The coordinator's own counts of verdict messages, each a counter read at scrape time. */
const MESSAGE_FAMILIES: ReadonlyArray<{ name: string; help: string; counter: keyof CoordinatorCounters }> = [
  { name: "cubist_verdict_messages_total", help: "Messages read from the verdict stream.", counter: "verdicts" },
  { name: "cubist_verdicts_malformed_total", help: "Verdict messages terminated as malformed.", counter: "badVerdicts" },
  { name: "cubist_verdicts_foreign_total", help: "Well-formed verdicts for runs the coordinator does not hold.", counter: "foreignVerdicts" },
  {
    name: "cubist_verdicts_held_total", help: "Verdicts that arrived before their task was recorded: held until it was, then taken (coordinator/model/in-flight.ts).",
    counter: "heldVerdicts",
  },
];

/** A counter of the coordinator's own count `counter`, read at scrape time. */
export function registerCount(registers: Registry[], c: Pick<CoordinatorView, "counters">, name: string, help: string, counter: keyof CoordinatorCounters): void {
  new Counter({
    name, help, registers,
    collect() {
      this.reset();
      this.inc(c.counters[counter]);
    },
  });
}

/** The families of verdicts, in their order on /metrics; returns what stops following the verdicts. */
export function registerVerdictMetrics(registers: Registry[], c: Pick<CoordinatorView, "counters" | "rejections" | "verdictTap">): () => void {
  for (const f of MESSAGE_FAMILIES) registerCount(registers, c, f.name, f.help, f.counter);
  new Counter({
    name: "cubist_coordinator_rejected_messages_total", help: "Messages dropped as forged or impossible (coordinator/shell/heartbeats.ts, coordinator/model/leases.ts), by kind.", labelNames: ["kind"], registers,
    collect() {
      this.reset();
      for (const kind of REJECT_KINDS) this.inc({ kind }, c.rejections.count(kind));
    },
  });
  const onVerdict = followVerdicts(registers);
  c.verdictTap.on("verdict", onVerdict);
  return () => c.verdictTap.off("verdict", onVerdict);
}

/** The families accumulated from accepted verdicts; returns what records one. */
function followVerdicts(registers: Registry[]): (v: Verdict) => void {
  const verdicts = new Counter({ name: "cubist_verdicts_total", help: "Verdicts accepted (well-formed, with their cube's lease, from the worker their subject names), by kind.", labelNames: ["kind"], registers });
  const solveSeconds = new Histogram({
    name: "cubist_cube_solve_seconds", help: "Wall time workers spent on a cube (search + solver), from the verdicts, by kind.",
    labelNames: ["kind"], buckets: SOLVE_SECONDS_BUCKETS, registers,
  });
  const conflicts = new Counter({ name: "cubist_solver_conflicts_total", help: "Solver conflicts reported in verdicts.", registers });
  const decisions = new Counter({ name: "cubist_solver_decisions_total", help: "Solver decisions reported in verdicts.", registers });
  const propagations = new Counter({ name: "cubist_solver_propagations_total", help: "Solver propagations reported in verdicts.", registers });
  const solverSeconds = new Counter({ name: "cubist_solver_seconds_total", help: "Solver run time reported in verdicts.", registers });
  const searchNodes = new Counter({ name: "cubist_search_nodes_total", help: "Placements made by the workers' native placement engine, from verdicts (rate() = placements/s).", registers });
  for (const k of VERDICT_LABELS) verdicts.inc({ kind: k }, 0);
  const add = (counter: Counter, n: number): void => {
    if (Number.isFinite(n) && n > 0) counter.inc(n);
  };
  return (v) => {
    const kind = verdictLabel(v.kind);
    verdicts.inc({ kind });
    const s = v.stats;
    if (!s) return;
    if (Number.isFinite(s.wallMs) && s.wallMs >= 0) solveSeconds.observe({ kind }, s.wallMs / 1000);
    add(conflicts, s.conflicts);
    add(decisions, s.decisions);
    add(propagations, s.propagations);
    add(solverSeconds, s.solverSeconds);
    add(searchNodes, s.searchNodes);
  };
}
