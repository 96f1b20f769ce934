/**
 * Worker heartbeats: a `WorkerStatus` on `<p>.workers.<worker>` every few seconds (core NATS, not persisted), so
 * the coordinator knows who is alive and what runs where. Missed while NATS is away; nothing to catch up.
 */

import type { NatsConnection } from "@nats-io/transport-node";
import { WorkerStatus } from "../proto/gen/cubist/v1/cube.js";
import type { WorkerContext } from "./context.js";

export function buildStatus(ctx: WorkerContext, startedMs: number, slots: number): WorkerStatus {
  return {
    workerId: ctx.config.workerId,
    host: ctx.config.host,
    slots,
    // Solver slots in use: a check task beside a slot's solving (worker/slot.ts) takes none, but is among `running`.
    busy: Math.min(ctx.active.size, slots),
    running: ctx.active.running(ctx.config.workerId),
    cubesDone: ctx.counters.cubesDone,
    uptimeSec: Math.round((Date.now() - startedMs) / 100) / 10,
    solver: ctx.config.solver,
    quarantined: ctx.quarantine.reason,
  };
}

/** Publishes now and then every `intervalMs`; returns a stop function. */
export function startStatusHeartbeats(nc: NatsConnection, subject: string, intervalMs: number, build: () => WorkerStatus): () => void {
  const publish = (): void => {
    try {
      nc.publish(subject, WorkerStatus.encode(build()).finish());
    } catch {
      // closed or draining: the worker is stopping
    }
  };
  publish();
  const timer = setInterval(publish, intervalMs);
  return () => {
    clearInterval(timer);
    publish();
  };
}
