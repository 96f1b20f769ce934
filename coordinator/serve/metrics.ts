/**
 * The coordinator's Prometheus metrics (prom-client, one Registry per process, served on `/metrics`). One collector per
 * metric family, grouped by what they read: runs, cubes and solutions (serve/metrics-runs.ts), verdicts
 * (serve/metrics-verdicts.ts), workers, JetStream and the leadership (serve/metrics-cluster.ts).
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
import { collectDefaultMetrics, Registry } from "prom-client";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { CoordinatorView, RunView } from "./coordinator-view.js";
import { LagCache, registerClusterMetrics } from "./metrics-cluster.js";
import { registerRunMetrics } from "./metrics-runs.js";
import { registerVerdictMetrics } from "./metrics-verdicts.js";

/** How long an ended run keeps its `run`-labelled series. */
export const DEFAULT_FINISHED_RETENTION_MS = 3_600_000;

export interface CoordinatorMetricsOptions {
  coordinator: CoordinatorView;
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

export function createCoordinatorMetrics(opts: CoordinatorMetricsOptions): CoordinatorMetrics {
  const c = opts.coordinator;
  const registry = new Registry();
  if (opts.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const retention = opts.finishedRetentionMs ?? DEFAULT_FINISHED_RETENTION_MS;
  const runs = (): RunView[] => [...c.runs()];
  registerRunMetrics(registers, {
    runs,
    // Runs that still have `run`-labelled series: not ended, or ended less than the retention ago.
    labelled: (now = Date.now()) => runs().filter((r) => !isTerminal(r.state) || (r.finishedAt > 0 && now - r.finishedAt < retention)),
  });
  const stopFollowing = registerVerdictMetrics(registers, c);
  registerClusterMetrics(registers, c, opts.names, new LagCache(opts.jsm, opts.consumerCacheMs ?? 2000, opts.consumerTimeoutMs ?? 1000));
  return {
    registry,
    contentType: registry.contentType,
    metrics: () => registry.metrics(),
    close: stopFollowing,
  };
}
