/**
 * The worker process: the one place that wires NATS and the worker together. Connects (unlimited reconnects),
 * requires JetStream, waits for the coordinator to have created the streams and buckets (a worker may well start
 * first), then starts the Worker. `close()` drains the worker and then the connection. The metrics modules
 * (prom-client) are loaded only with `config.http`: the embedded cluster's workers have no endpoint, and loading
 * them cost its start ~55 ms.
 */

import { CubistError } from "../core/errors.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { openLayout, type Layout } from "../cluster/layout.js";
import { createLogger, type Logger } from "../cluster/log.js";
import { connectNats, requireJetStream } from "../cluster/nats.js";
import { workerInboxPrefix } from "../cluster/nats-users.js";
import type { Names } from "../proto/contract.js";
import type { WorkerConfig } from "./config.js";
import { Worker } from "./worker.js";
import type { HttpServer } from "../cluster/http.js";

/** The coordinator did not create the JetStream layout within the configured wait. */
export class LayoutUnavailableError extends CubistError {
  override readonly name = "LayoutUnavailableError";
  override readonly fault = "transient";
}

export interface WorkerProcess {
  readonly worker: Worker;
  /** The metrics endpoint (`config.http`), or null. */
  readonly http: HttpServer | null;
  readonly nc: NatsConnection;
  readonly log: Logger;
  /**
   * Resolves when the NATS connection closed without close() being called (reconnects are unlimited, so only a
   * fatal error does that, e.g. revoked credentials); the caller should close() and exit non-zero.
   */
  readonly connectionLost: Promise<Error>;
  /** Closes the worker (grace period as configured, or `graceMs`), then the connection. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Opens the layout for worker `uploader` (its proofs are stored under its id), retrying while the streams or
 * buckets do not exist yet. Logs "waiting for the coordinator" once, then every 30 s. `waitMs` 0 waits forever;
 * `signal` stops waiting (then it throws).
 */
export async function waitForLayout(
  nc: NatsConnection,
  jsm: JetStreamManager,
  names: Names,
  uploader: string,
  log: Logger,
  options: { waitMs?: number; signal?: AbortSignal; retryMs?: number; proofHandoffDir?: string | null } = {},
): Promise<Layout> {
  const started = Date.now();
  let lastLog = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      await jsm.streams.info(names.cubesStream);
      await jsm.streams.info(names.verdictsStream);
      const layout = await openLayout(nc, names, uploader, options.proofHandoffDir ?? null);
      if (attempt > 1) log.info("JetStream layout found", { waitedMs: Date.now() - started });
      return layout;
    } catch (err) {
      const now = Date.now();
      if (options.waitMs && now - started >= options.waitMs) {
        throw new LayoutUnavailableError(
          `the JetStream layout (prefix "${names.prefix}": stream ${names.cubesStream}, bucket ${names.runsBucket}) does not exist after ${Math.round((now - started) / 1000)} s; is a coordinator running with the same --prefix? (${(err as Error).message})`,
        );
      }
      if (options.signal?.aborted) throw new LayoutUnavailableError("stopped while waiting for the JetStream layout");
      if (lastLog === 0 || now - lastLog >= 30_000) {
        lastLog = now;
        log.info("waiting for the coordinator to create the JetStream layout", { prefix: names.prefix, stream: names.cubesStream, err: (err as Error).message });
      }
      await sleep(options.retryMs ?? 1000, undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
}

export async function startWorkerProcess(config: WorkerConfig, options: { log?: Logger; signal?: AbortSignal } = {}): Promise<WorkerProcess> {
  const log = options.log ?? createLogger({ component: "worker", level: config.logLevel, format: config.logFormat, fields: { worker: config.workerId } });
  // Loading starts now, so that it overlaps connecting to NATS.
  const metricsModules = config.http ? Promise.all([import("./metrics.js"), import("./http-server.js")]) : null;
  metricsModules?.catch(() => undefined);
  // Replies come to the worker's own inbox prefix: its NATS user may subscribe nowhere else (cluster/nats-users.ts).
  const nc = await connectNats({ ...config.nats, name: config.nats.name ?? `cubist-worker-${config.workerId}`, inboxPrefix: workerInboxPrefix(config.workerId) });
  try {
    const jsm = await requireJetStream(nc);
    const layout = await waitForLayout(nc, jsm, config.names, config.workerId, log, { waitMs: config.layoutWaitMs, signal: options.signal, proofHandoffDir: config.proofHandoffDir });
    const [metricsModule, httpModule] = (await metricsModules) ?? [null, null];
    const metrics = metricsModule && config.http ? metricsModule.createWorkerMetrics(config) : null;
    const worker = new Worker(config, { nc, jsm, layout: metrics ? metrics.instrumentLayout(layout) : layout, log });
    metrics?.attach(worker);
    const http = metrics && httpModule && config.http ? await httpModule.startWorkerHttp(config.http, worker, metrics, log) : null;
    try {
      await worker.start();
    } catch (err) {
      await http?.close();
      throw err;
    }
    let closing: Promise<void> | null = null;
    const connectionLost = new Promise<Error>((resolve) => {
      void nc.closed().then((err) => {
        if (closing) return;
        const e = err ?? new Error("the NATS connection was closed");
        log.error("NATS connection closed for good", { err: e.message });
        resolve(e);
      });
    });
    return {
      worker,
      http,
      nc,
      log,
      connectionLost,
      close(graceMs?: number) {
        closing ??= (async () => {
          await worker.close(graceMs);
          await http?.close();
          await nc.drain().catch(() => nc.close());
        })();
        return closing;
      },
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}
