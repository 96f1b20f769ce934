/**
 * The coordinator's metric families of the cluster (serve/metrics.ts registers them): the live workers and their
 * slots (from heartbeats), JetStream consumer lag (asked of the server at scrape time with a short timeout and cached
 * for a moment, so that a slow or absent server never stalls a scrape), and the leadership.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import { Gauge, type Registry } from "prom-client";
import { runQueues } from "../../cluster/layout.js";
import type { Names } from "../../proto/contract.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { CoordinatorView, RunView } from "./coordinator-view.js";
import { registerCount } from "./metrics-verdicts.js";

interface ConsumerLag {
  pending: number;
  ackPending: number;
  redelivered: number;
}

/** Consumer info with a timeout and a short cache; concurrent scrapes share one request per consumer. */
export class LagCache {
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

/** The live workers' families. */
function registerWorkers(registers: Registry[], c: Pick<CoordinatorView, "liveWorkers" | "distrusted">): void {
  const families: ReadonlyArray<{ name: string; help: string; value: () => number }> = [
    { name: "cubist_cluster_workers", help: "Workers heard from in the last 10 s.", value: () => c.liveWorkers().length },
    { name: "cubist_cluster_slots", help: "Solver slots of the live workers.", value: () => c.liveWorkers().reduce((n, w) => n + w.status.slots, 0) },
    { name: "cubist_cluster_busy_slots", help: "Busy solver slots of the live workers.", value: () => c.liveWorkers().reduce((n, w) => n + w.status.busy, 0) },
    {
      name: "cubist_cluster_quarantined_workers", help: "Live workers that take no cubes because their solver failed repeatedly.",
      value: () => c.liveWorkers().filter((w) => w.status.quarantined !== "").length,
    },
    {
      name: "cubist_cluster_distrusted_workers", help: "Workers whose verdicts are not taken: a spot check found one refuting a satisfiable cube (runs in memory).",
      value: () => c.distrusted.size,
    },
  ];
  for (const f of families) {
    new Gauge({
      name: f.name, help: f.help, registers,
      collect() {
        this.set(f.value());
      },
    });
  }
}

/** Spot checks of the runs in memory (coordinator/model/run-trust.ts), by kind. */
function registerSpotChecks(registers: Registry[], c: Pick<CoordinatorView, "runs">): void {
  new Gauge({
    name: "cubist_coordinator_spot_checks", help: "Spot checks of the runs in memory, by kind: sent (a refuted cube solved again by another worker), agreed, disproved (its refuter distrusted).",
    labelNames: ["kind"], registers,
    collect() {
      const sum = { sent: 0, agreed: 0, disproved: 0 };
      for (const r of c.runs()) for (const k of ["sent", "agreed", "disproved"] as const) sum[k] += r.spotChecks[k];
      for (const k of ["sent", "agreed", "disproved"] as const) this.set({ kind: k }, sum[k]);
    },
  });
}

/** Certified runs' cube proof checks in memory (coordinator/model/proof-checks.ts), by who checked: workers or the coordinator. */
function registerProofChecks(registers: Registry[], c: Pick<CoordinatorView, "runs">): void {
  const byChecker = (name: string, help: string, pick: (t: { checks: number; cpuMs: number }) => number): Gauge =>
    new Gauge({
      name, help, labelNames: ["checker"], registers,
      collect() {
        const sum = { worker: 0, coordinator: 0 };
        for (const r of c.runs()) for (const k of ["worker", "coordinator"] as const) sum[k] += pick(r.proofCheckers[k]);
        for (const k of ["worker", "coordinator"] as const) this.set({ checker: k }, sum[k]);
      },
    });
  byChecker("cubist_coordinator_proof_checks", "Cube proof checks of the certified runs in memory, by who checked: a worker other than the producer, or the coordinator.", (t) => t.checks);
  byChecker("cubist_coordinator_proof_check_cpu_seconds", "CPU seconds of the proof checker processes (drat-trim, lrat-check) of the certified runs in memory, by who ran them: workers or the coordinator.", (t) => t.cpuMs / 1000);
}

/** The lag families: each open run's consumers (its queues, summed), and the verdict consumer's. */
function registerLag(registers: Registry[], c: Pick<CoordinatorView, "runs" | "verdictConsumerName">, names: Names, lag: LagCache): void {
  const consumers = (r: RunView): string[] => runQueues(names, r.id).map((q) => q.consumer);
  const lagGauge = (name: string, help: string, pick: (l: ConsumerLag) => number): Gauge =>
    new Gauge({
      name, help, labelNames: ["run"], registers,
      async collect() {
        this.reset();
        const live = [...c.runs()].filter((r) => !isTerminal(r.state));
        const keys = new Set(live.flatMap((r) => consumers(r).map((x) => `${names.cubesStream}/${x}`)));
        if (c.verdictConsumerName) keys.add(`${names.verdictsStream}/${c.verdictConsumerName}`);
        lag.prune(keys);
        const got = await Promise.all(live.map((r) => Promise.all(consumers(r).map((x) => lag.get(names.cubesStream, x)))));
        live.forEach((r, i) => {
          // A run made before a queue existed has no consumer for it: it counts none. The main queue (runQueues'
          // last) every run has: without it the run is not counted at all.
          const main = got[i][got[i].length - 1];
          if (main) this.set({ run: r.id }, got[i].reduce((sum, l) => sum + (l ? pick(l) : 0), 0));
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
}

/** The leadership's families. */
function registerLeadership(registers: Registry[], c: Pick<CoordinatorView, "role" | "leader" | "counters">): void {
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
  registerCount(registers, c, "cubist_coordinator_takeovers_total", "Times this coordinator took the lead (its start included).", "takeovers");
}

/** The families of the cluster, in their order on /metrics. */
export function registerClusterMetrics(registers: Registry[], c: CoordinatorView, names: Names, lag: LagCache): void {
  registerWorkers(registers, c);
  registerSpotChecks(registers, c);
  registerProofChecks(registers, c);
  registerLag(registers, c, names, lag);
  registerLeadership(registers, c);
}
