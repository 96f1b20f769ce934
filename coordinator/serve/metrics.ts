/**
 * The coordinator's Prometheus metrics (prom-client, one Registry per process, served on `/metrics`).
 *
 * Two kinds of values:
 * - read from the coordinator's state at scrape time (runs and cubes by state, progress, ETA, solutions, live
 *   workers and their slots, and JetStream consumer lag, which is asked of the server at scrape time with a short
 *   timeout and cached for a moment so that a slow or absent server never stalls a scrape);
 * - accumulated from the verdicts as they arrive (`Coordinator.verdictTap`): solve-time histogram, solver
 *   conflicts, decisions, propagations and seconds.
 * Counters read from state (`*_total` over runs) can go down when the coordinator restarts with fewer runs in
 * memory; Prometheus treats that as a counter reset, as it does for a process restart.
 *
 * Labels: `run` (bounded by the runs the coordinator holds), `state`, `kind` (the verdict kind, the same label name
 * as the workers'). Never a cube or worker id. A run's `run`-labelled series are retired `finishedRetentionMs`
 * after it ended (they are rebuilt at each scrape, so a retired run simply stops appearing); `run delete` removes
 * the run altogether.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import type { Coordinator } from "../shell/coordinator.js";
import { CUBE_STATE_NAMES, isTerminal, RUN_STATE_NAMES, runStateName, runStateOf, VERDICT_LABELS, verdictLabel, type CubeStateName } from "../../proto/vocabulary.js";
import type { RunController } from "../shell/run.js";
import { REJECT_KINDS } from "../shell/heartbeats.js";

/** Cube states as exported (queued splits into queued and running; purged cubes of ended runs are left out). */
export const CUBE_STATES = CUBE_STATE_NAMES.filter((s): s is Exclude<CubeStateName, "purged"> => s !== "purged");

/** Run states by their metric label. */
export const RUN_STATES: ReadonlyArray<[RunState, string]> = RUN_STATE_NAMES.map((s) => [runStateOf(s)!, s]);

/** How long an ended run keeps its `run`-labelled series. */
export const DEFAULT_FINISHED_RETENTION_MS = 3_600_000;

/** Buckets of solve and cube times, in seconds: from trivial cubes to hour-long ones. */
export const SOLVE_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];

export interface CoordinatorMetricsOptions {
  coordinator: Coordinator;
  jsm: JetStreamManager;
  names: Names;
  log: Logger;
  /** How long a consumer-info answer is reused. @default 2000 */
  consumerCacheMs?: number;
  /** Timeout of one consumer-info request at scrape time. @default 1000 */
  consumerTimeoutMs?: number;
  /** How long an ended run keeps its `run`-labelled series. @default 3600000 (one hour) */
  finishedRetentionMs?: number;
  /** Also export the default process and Node.js metrics. @default true */
  defaultMetrics?: boolean;
}

export interface CoordinatorMetrics {
  readonly registry: Registry;
  /** The exposition text (what `/metrics` serves). */
  metrics(): Promise<string>;
  readonly contentType: string;
  /** Stops following verdicts. */
  close(): void;
}

interface ConsumerLag {
  pending: number;
  ackPending: number;
  redelivered: number;
}

/** Consumer info with a timeout and a short cache; concurrent scrapes share one request per consumer. */
class LagCache {
  private readonly cache = new Map<string, { at: number; lag: ConsumerLag | null }>();
  private readonly inflight = new Map<string, Promise<ConsumerLag | null>>();

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly ttlMs: number,
    private readonly timeoutMs: number,
  ) {}

  async get(stream: string, consumer: string, now = Date.now()): Promise<ConsumerLag | null> {
    const key = `${stream}/${consumer}`;
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.ttlMs) return hit.lag;
    let p = this.inflight.get(key);
    if (!p) {
      p = this.fetch(stream, consumer).then((lag) => {
        this.cache.set(key, { at: Date.now(), lag });
        return lag;
      }).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  private async fetch(stream: string, consumer: string): Promise<ConsumerLag | null> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), this.timeoutMs)));
    try {
      const info = await Promise.race([this.jsm.consumers.info(stream, consumer).catch(() => null), timeout]);
      if (!info) return null;
      return { pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Forgets consumers not in `keep` (runs that ended). */
  prune(keep: ReadonlySet<string>): void {
    for (const k of this.cache.keys()) if (!keep.has(k)) this.cache.delete(k);
  }
}

export function createCoordinatorMetrics(opts: CoordinatorMetricsOptions): CoordinatorMetrics {
  const { coordinator: c, names } = opts;
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const lag = new LagCache(opts.jsm, opts.consumerCacheMs ?? 2000, opts.consumerTimeoutMs ?? 1000);
  const runs = (): RunController[] => [...c.runs.values()];
  const retention = opts.finishedRetentionMs ?? DEFAULT_FINISHED_RETENTION_MS;
  /** Runs that still have `run`-labelled series: not ended, or ended less than the retention ago. */
  const labelled = (now = Date.now()): RunController[] => runs().filter((r) => !isTerminal(r.state) || (r.finishedAt > 0 && now - r.finishedAt < retention));

  // ---- runs ----
  new Gauge({
    name: "cubist_runs", help: "Runs held by the coordinator, by state.", labelNames: ["state"], registers,
    collect() {
      const n = new Map<string, number>(RUN_STATES.map(([, s]) => [s, 0]));
      for (const r of runs()) n.set(runStateName(r.state), (n.get(runStateName(r.state)) ?? 0) + 1);
      for (const [s, v] of n) this.set({ state: s }, v);
    },
  });
  new Gauge({
    name: "cubist_run_state", help: "1 for the run's current state, 0 for the others.", labelNames: ["run", "state"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) for (const [s, label] of RUN_STATES) this.set({ run: r.id, state: label }, r.state === s ? 1 : 0);
    },
  });
  new Gauge({
    name: "cubist_run_progress_ratio", help: "Closed weight of the run's search space (refuted, and counted in a counting run), 0..1.", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) this.set({ run: r.id }, Math.min(1, r.coveredWeight));
    },
  });
  new Gauge({
    name: "cubist_run_solutions_counted", help: "Counting run (mode all): solutions counted so far, the exact counts of the closed cubes summed (absent for other runs).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) if (r.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS) this.set({ run: r.id }, r.counted);
    },
  });
  new Gauge({
    name: "cubist_run_best_score", help: "Matched inner edges of the run's best board so far (checked by the verifier; absent until a worker reports one).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) if (r.best) this.set({ run: r.id }, r.best.score);
    },
  });
  new Gauge({
    name: "cubist_run_best_placed_cells", help: "Cells placed on the run's best board so far.", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) if (r.best) this.set({ run: r.id }, r.best.placed);
    },
  });
  new Gauge({
    name: "cubist_run_remaining_placements", help: "Placements left in the run by the tree estimates (Knuth's estimator per cube; absent until one arrives).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) {
        const s = r.status();
        if (s.remainingNodes >= 0) this.set({ run: r.id }, s.remainingNodes);
      }
    },
  });
  new Gauge({
    name: "cubist_run_work_eta_seconds", help: "Seconds of work left by the tree estimates at the run's placement rate (absent while unknown).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) {
        const s = r.status();
        if (s.workEtaSeconds >= 0) this.set({ run: r.id }, s.workEtaSeconds);
      }
    },
  });
  new Gauge({
    name: "cubist_run_placements_per_second", help: "Placements per second of the workers' searches for the run (10-minute window).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) this.set({ run: r.id }, r.status().placementsPerSecond);
    },
  });
  new Gauge({
    name: "cubist_run_eta_seconds", help: "Seconds until the run's closed weight reaches 1 at its current rate (absent while unknown).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) {
        const eta = r.status().etaSeconds;
        if (eta >= 0 && Number.isFinite(eta)) this.set({ run: r.id }, eta);
      }
    },
  });
  new Gauge({
    name: "cubist_run_started_timestamp_seconds", help: "When the run started (Unix time).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) if (r.startedAt > 0) this.set({ run: r.id }, r.startedAt / 1000);
    },
  });

  // ---- cubes ----
  new Gauge({
    name: "cubist_cubes", help: "Cubes of every run the coordinator holds, by state.", labelNames: ["state"], registers,
    collect() {
      const n = new Map<string, number>(CUBE_STATES.map((s) => [s, 0]));
      for (const r of runs()) {
        const cubes = r.status().cubes!;
        for (const s of CUBE_STATES) n.set(s, n.get(s)! + cubes[s]);
      }
      for (const [s, v] of n) this.set({ state: s }, v);
    },
  });
  new Gauge({
    name: "cubist_run_cubes", help: "Cubes of the run by state (running = queued cubes a worker reports working on).", labelNames: ["run", "state"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) {
        const cubes = r.status().cubes!;
        for (const s of CUBE_STATES) this.set({ run: r.id, state: s }, cubes[s]);
      }
    },
  });
  new Gauge({
    name: "cubist_run_cubes_refuted_by_split", help: "Branches of the run the splitter refuted (never published as cubes).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) this.set({ run: r.id }, r.table.snapshotCounts().refutedBySplit);
    },
  });
  new Counter({
    name: "cubist_run_cubes_closed_total", help: "Cubes of the run decided by a solver (unsat + sat).", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) {
        const n = r.table.snapshotCounts();
        this.inc({ run: r.id }, n.unsat + n.sat);
      }
    },
  });

  // ---- solutions ----
  new Counter({
    name: "cubist_solutions_verified_total", help: "Solutions verified and accepted, per run.", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) this.inc({ run: r.id }, r.solutions.length);
    },
  });
  new Counter({
    name: "cubist_solutions_rejected_total", help: "SAT answers the verifier rejected (never solutions), per run.", labelNames: ["run"], registers,
    collect() {
      this.reset();
      for (const r of labelled()) this.inc({ run: r.id }, r.rejected);
    },
  });

  // ---- verdicts ----
  new Counter({
    name: "cubist_verdict_messages_total", help: "Messages read from the verdict stream.", registers,
    collect() {
      this.reset();
      this.inc(c.counters.verdicts);
    },
  });
  new Counter({
    name: "cubist_verdicts_malformed_total", help: "Verdict messages terminated as malformed.", registers,
    collect() {
      this.reset();
      this.inc(c.counters.badVerdicts);
    },
  });
  new Counter({
    name: "cubist_verdicts_foreign_total", help: "Well-formed verdicts for runs the coordinator does not hold.", registers,
    collect() {
      this.reset();
      this.inc(c.counters.foreignVerdicts);
    },
  });
  new Counter({
    name: "cubist_verdicts_held_total", help: "Verdicts that arrived before their task was recorded: held until it was, then taken (coordinator/model/in-flight.ts).", registers,
    collect() {
      this.reset();
      this.inc(c.counters.heldVerdicts);
    },
  });
  new Counter({
    name: "cubist_coordinator_rejected_messages_total", help: "Messages dropped as forged or impossible (coordinator/shell/heartbeats.ts, coordinator/model/leases.ts), by kind.", labelNames: ["kind"], registers,
    collect() {
      this.reset();
      for (const kind of REJECT_KINDS) this.inc({ kind }, c.rejections.count(kind));
    },
  });
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
  const onVerdict = (v: Verdict): void => {
    const kind = verdictLabel(v.kind);
    verdicts.inc({ kind });
    const s = v.stats;
    if (!s) return;
    if (Number.isFinite(s.wallMs) && s.wallMs >= 0) solveSeconds.observe({ kind }, s.wallMs / 1000);
    const add = (counter: Counter, n: number): void => {
      if (Number.isFinite(n) && n > 0) counter.inc(n);
    };
    add(conflicts, s.conflicts);
    add(decisions, s.decisions);
    add(propagations, s.propagations);
    add(solverSeconds, s.solverSeconds);
    add(searchNodes, s.searchNodes);
  };
  c.verdictTap.on("verdict", onVerdict);

  // ---- workers (from heartbeats) ----
  new Gauge({
    name: "cubist_cluster_workers", help: "Workers heard from in the last 10 s.", registers,
    collect() {
      this.set(c.liveWorkers().length);
    },
  });
  new Gauge({
    name: "cubist_cluster_slots", help: "Solver slots of the live workers.", registers,
    collect() {
      this.set(c.liveWorkers().reduce((n, w) => n + w.status.slots, 0));
    },
  });
  new Gauge({
    name: "cubist_cluster_busy_slots", help: "Busy solver slots of the live workers.", registers,
    collect() {
      this.set(c.liveWorkers().reduce((n, w) => n + w.status.busy, 0));
    },
  });
  new Gauge({
    name: "cubist_cluster_quarantined_workers", help: "Live workers that take no cubes because their solver failed repeatedly.", registers,
    collect() {
      this.set(c.liveWorkers().filter((w) => w.status.quarantined !== "").length);
    },
  });

  // ---- JetStream lag (asked at scrape time) ----
  const lagGauge = (name: string, help: string, pick: (l: ConsumerLag) => number): Gauge =>
    new Gauge({
      name, help, labelNames: ["run"], registers,
      async collect() {
        this.reset();
        const live = runs().filter((r) => !isTerminal(r.state));
        // Both of the run's consumers: the main queue and the front queue (a manual re-split's children).
        const consumers = (r: RunController): string[] => [names.runConsumer(r.id), names.frontConsumer(r.id)];
        const keys = new Set(live.flatMap((r) => consumers(r).map((x) => `${names.cubesStream}/${x}`)));
        if (c.verdictConsumerName) keys.add(`${names.verdictsStream}/${c.verdictConsumerName}`);
        lag.prune(keys);
        const got = await Promise.all(live.map((r) => Promise.all(consumers(r).map((x) => lag.get(names.cubesStream, x)))));
        live.forEach((r, i) => {
          const [main, front] = got[i];
          if (main) this.set({ run: r.id }, pick(main) + (front ? pick(front) : 0));
        });
      },
    });
  lagGauge("cubist_run_consumer_pending_messages", "Cube tasks of the run not yet delivered (JetStream num_pending).", (l) => l.pending);
  lagGauge("cubist_run_consumer_ack_pending_messages", "Cube tasks of the run delivered and not yet acked (num_ack_pending).", (l) => l.ackPending);
  lagGauge("cubist_run_consumer_redelivered_messages", "Cube tasks of the run delivered more than once and not yet acked (num_redelivered).", (l) => l.redelivered);
  new Gauge({
    name: "cubist_verdict_consumer_pending_messages", help: "Verdicts waiting for the coordinator (num_pending + num_ack_pending of its consumer).", registers,
    async collect() {
      this.reset();
      const l = c.verdictConsumerName ? await lag.get(names.verdictsStream, c.verdictConsumerName) : null;
      if (l) this.set(l.pending + l.ackPending);
    },
  });
  new Gauge({
    name: "cubist_coordinator_leader", help: "1 while this coordinator leads, 0 while it is a standby (docs/operations.md \"Leadership\").", registers,
    collect() {
      this.set(c.role === "leader" ? 1 : 0);
    },
  });
  new Gauge({
    name: "cubist_coordinator_leader_term", help: "The leader lease's term as this coordinator last saw it (one more at every takeover).", registers,
    collect() {
      this.set(c.leader?.term ?? 0);
    },
  });
  new Counter({
    name: "cubist_coordinator_takeovers_total", help: "Times this coordinator took the lead (its start included).", registers,
    collect() {
      this.reset();
      this.inc(c.counters.takeovers);
    },
  });

  return {
    registry,
    contentType: registry.contentType,
    metrics: () => registry.metrics(),
    close() {
      c.verdictTap.off("verdict", onVerdict);
    },
  };
}
