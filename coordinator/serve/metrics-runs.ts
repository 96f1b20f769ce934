/**
 * The coordinator's metric families of runs, cubes and solutions (serve/metrics.ts registers them), each read from
 * the runs at scrape time: one collector per family. A family labelled `run` shows only the runs that still have
 * series (`labelled`: not ended, or ended within the retention).
 */

import { Counter, Gauge, type Registry } from "prom-client";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import { CUBE_STATE_NAMES, RUN_STATE_NAMES, runStateName, runStateOf, type CubeStateName } from "../../proto/vocabulary.js";
import type { RunView } from "./coordinator-view.js";

/** Cube states as exported (queued splits into queued and running; purged cubes of ended runs are left out). */
export const CUBE_STATES = CUBE_STATE_NAMES.filter((s): s is Exclude<CubeStateName, "purged"> => s !== "purged");

/** Run states by their metric label. */
export const RUN_STATES: ReadonlyArray<[RunState, string]> = RUN_STATE_NAMES.map((s) => [runStateOf(s)!, s]);

/** What the run families read. */
export interface RunMetricsSource {
  /** Every run the coordinator holds. */
  runs(): RunView[];
  /** The runs that still have `run`-labelled series. */
  labelled(): RunView[];
}

/** A family with one series per labelled run: `value` undefined leaves the run out. */
interface PerRunFamily {
  readonly name: string;
  readonly help: string;
  /** A Counter (`_total`, its value set at each scrape) rather than a Gauge. */
  readonly counter?: boolean;
  value(r: RunView): number | undefined;
}

/** The runs' progress, answers and estimates (after the families by state). */
const RUN_FAMILIES: readonly PerRunFamily[] = [
  { name: "cubist_run_progress_ratio", help: "Closed weight of the run's search space (refuted, and counted in a counting run), 0..1.", value: (r) => Math.min(1, r.coveredWeight) },
  {
    name: "cubist_run_solutions_counted", help: "Counting run (mode all): solutions counted so far, the exact counts of the closed cubes summed (absent for other runs).",
    value: (r) => (r.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? r.counted : undefined),
  },
  { name: "cubist_run_best_score", help: "Matched inner edges of the run's best board so far (checked by the verifier; absent until a worker reports one).", value: (r) => r.best?.score },
  { name: "cubist_run_best_placed_cells", help: "Cells placed on the run's best board so far.", value: (r) => r.best?.placed },
  {
    name: "cubist_run_remaining_placements", help: "Placements left in the run by the tree estimates (Knuth's estimator per cube; absent until one arrives).",
    value: (r) => nonNegative(r.status().remainingNodes),
  },
  { name: "cubist_run_work_eta_seconds", help: "Seconds of work left by the tree estimates at the run's placement rate, unsmoothed (absent while unknown).", value: (r) => nonNegative(r.status().workEtaSeconds) },
  { name: "cubist_run_placements_per_second", help: "Placements per second of the workers' searches for the run (10-minute window).", value: (r) => r.status().placementsPerSecond },
  {
    name: "cubist_run_eta_seconds", help: "The run's one ETA: the tree estimates' time left, smoothed (before one, the closed weight's); absent while unknown, paused, or for a score run.",
    value: (r) => {
      const eta = r.status().etaSeconds;
      return eta >= 0 && Number.isFinite(eta) ? eta : undefined;
    },
  },
  { name: "cubist_run_started_timestamp_seconds", help: "When the run started (Unix time).", value: (r) => (r.startedAt > 0 ? r.startedAt / 1000 : undefined) },
];

/** The runs' cubes and answers as counts (after the cube families by state). */
const CUBE_FAMILIES: readonly PerRunFamily[] = [
  { name: "cubist_run_cubes_refuted_by_split", help: "Branches of the run the splitter refuted (never published as cubes).", value: (r) => r.table.snapshotCounts().refutedBySplit },
  {
    name: "cubist_run_cubes_closed_total", help: "Cubes of the run decided by a solver (unsat + sat).", counter: true,
    value: (r) => {
      const n = r.table.snapshotCounts();
      return n.unsat + n.sat;
    },
  },
  { name: "cubist_solutions_verified_total", help: "Solutions verified and accepted, per run.", counter: true, value: (r) => r.solutions.length },
  { name: "cubist_solutions_rejected_total", help: "SAT answers the verifier rejected (never solutions), per run.", counter: true, value: (r) => r.rejected },
];

function nonNegative(x: number): number | undefined {
  return x >= 0 ? x : undefined;
}

function registerPerRun(registers: Registry[], src: RunMetricsSource, f: PerRunFamily): void {
  const family = { name: f.name, help: f.help, labelNames: ["run"], registers };
  const each = (put: (run: string, v: number) => void): void => {
    for (const r of src.labelled()) {
      const v = f.value(r);
      if (v !== undefined) put(r.id, v);
    }
  };
  if (f.counter) {
    new Counter({ ...family, collect() { this.reset(); each((run, v) => this.inc({ run }, v)); } });
  } else {
    new Gauge({ ...family, collect() { this.reset(); each((run, v) => this.set({ run }, v)); } });
  }
}

/** Runs by state, and each run's state as 0/1 series. */
function registerRunStates(registers: Registry[], src: RunMetricsSource): void {
  new Gauge({
    name: "cubist_runs", help: "Runs held by the coordinator, by state.", labelNames: ["state"], registers,
    collect() {
      const n = new Map<string, number>(RUN_STATES.map(([, s]) => [s, 0]));
      for (const r of src.runs()) n.set(runStateName(r.state), (n.get(runStateName(r.state)) ?? 0) + 1);
      for (const [s, v] of n) this.set({ state: s }, v);
    },
  });
  new Gauge({
    name: "cubist_run_state", help: "1 for the run's current state, 0 for the others.", labelNames: ["run", "state"], registers,
    collect() {
      this.reset();
      for (const r of src.labelled()) for (const [s, label] of RUN_STATES) this.set({ run: r.id, state: label }, r.state === s ? 1 : 0);
    },
  });
}

/** Cubes by state: of every run, and of each labelled run. */
function registerCubeStates(registers: Registry[], src: RunMetricsSource): void {
  new Gauge({
    name: "cubist_cubes", help: "Cubes of every run the coordinator holds, by state.", labelNames: ["state"], registers,
    collect() {
      const n = new Map<string, number>(CUBE_STATES.map((s) => [s, 0]));
      for (const r of src.runs()) {
        const cubes = r.status().cubes!;
        for (const s of CUBE_STATES) n.set(s, n.get(s)! + cubes[s]);
      }
      for (const [s, v] of n) this.set({ state: s }, v);
    },
  });
  new Gauge({
    name: "cubist_run_cubes", help: "Cubes of the run by state (running = queued cubes a worker reports working on; a score run: its busy slots).", labelNames: ["run", "state"], registers,
    collect() {
      this.reset();
      for (const r of src.labelled()) {
        const cubes = r.status().cubes!;
        for (const s of CUBE_STATES) this.set({ run: r.id, state: s }, cubes[s]);
      }
    },
  });
}

/** The families of runs, cubes and solutions, in their order on /metrics. */
export function registerRunMetrics(registers: Registry[], src: RunMetricsSource): void {
  registerRunStates(registers, src);
  for (const f of RUN_FAMILIES) registerPerRun(registers, src, f);
  registerCubeStates(registers, src);
  for (const f of CUBE_FAMILIES) registerPerRun(registers, src, f);
}
