/**
 * What a slot shares with its worker: configuration, the NATS handles, the run table, caches and registries.
 * The worker owns all of it; slots and the per-cube code only use it.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Layout } from "../cluster/layout.js";
import type { Logger } from "../cluster/log.js";
import type { ActiveCubes } from "./active.js";
import type { CancelMemory } from "./cancels.js";
import type { WorkerConfig } from "./config.js";
import type { ConsumerBook } from "./consumers.js";
import type { FormulaCache } from "../host/formula-cache.js";
import type { Quarantine } from "./quarantine.js";
import type { RunTable } from "./run-table.js";

/** Counters reported in status heartbeats and by `Worker.stats()`. */
export interface WorkerCounters {
  /** Tasks answered with a verdict (any kind). */
  cubesDone: number;
  sat: number;
  unsat: number;
  unknown: number;
  errors: number;
  /** Messages terminated as malformed or foreign. */
  terminated: number;
  /** Tasks handed back with a nak (paused run, pause-now, shutdown, errors). */
  handedBack: number;
  /** Tasks acked without a verdict (cancelled, run finished). */
  dropped: number;
}

export interface WorkerContext {
  readonly config: WorkerConfig;
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly layout: Layout;
  readonly log: Logger;
  readonly table: RunTable;
  readonly cache: FormulaCache;
  readonly consumers: ConsumerBook;
  readonly cancels: CancelMemory;
  readonly active: ActiveCubes;
  /** Repeated solver errors stop the worker's pulls for a while. */
  readonly quarantine: Quarantine;
  readonly counters: WorkerCounters;
  /** Aborted when the worker starts draining: slots stop pulling. */
  readonly draining: AbortSignal;
  /** Aborted when the grace period is over: publish retries give up. */
  readonly hardStop: AbortSignal;
  /** Whether the NATS connection is up. */
  connected(): boolean;
}

export function newCounters(): WorkerCounters {
  return { cubesDone: 0, sat: 0, unsat: 0, unknown: 0, errors: 0, terminated: 0, handedBack: 0, dropped: 0 };
}
