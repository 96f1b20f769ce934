/**
 * A worker's Prometheus metrics (prom-client, one Registry per process, served on `/metrics` with `--http`).
 *
 * - Read from the worker at scrape time: slots, busy slots, runs known, cubes done by verdict kind, tasks
 *   terminated / handed back / dropped, bytes in the formula cache directory.
 * - Measured on the way out and in, without touching the per-cube code: `instrumentLayout` wraps the JetStream
 *   client and the Object Store the worker is given, so every verdict publish (the verdict's kind and solver
 *   statistics, failed attempts, retries of the same message) and every formula download (count and bytes) is seen;
 *   `attach` follows the formula cache's lookups (a lookup that needed no download of its own is a hit).
 *
 * Labels: `verdict` only. The worker id is not a label: Prometheus' `instance` says which worker it is.
 */

import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { JetStreamClient } from "@nats-io/jetstream";
import type { ObjectResult, ObjectStore } from "@nats-io/obj";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Layout } from "../cluster/layout.js";
import { Verdict } from "../proto/gen/cubist/v1/cube.js";
import { VERDICT_LABELS, verdictLabel } from "../proto/vocabulary.js";
import type { WorkerConfig } from "./config.js";
import type { Worker } from "./worker.js";

/** Cube time buckets, in seconds (the coordinator's solve-time histogram uses the same). */
export const CUBE_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];


export interface WorkerMetrics {
  readonly registry: Registry;
  readonly contentType: string;
  metrics(): Promise<string>;
  /** The layout with its JetStream client and Object Store measured; give this one to the Worker. */
  instrumentLayout(layout: Layout): Layout;
  /** Follows this worker (one per process). */
  attach(worker: Worker): void;
}

/** A proxy of `target` whose methods stay bound to it, with some of them replaced. */
function override<T extends object>(target: T, replaced: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (Object.prototype.hasOwnProperty.call(replaced, prop)) return replaced[prop as keyof T];
      const v = Reflect.get(t, prop, t) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

export function createWorkerMetrics(config: WorkerConfig, options: { defaultMetrics?: boolean } = {}): WorkerMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let worker: Worker | null = null;

  new Gauge({ name: "cubist_worker_slots", help: "Solver slots (cubes solved at once).", registers, collect() { this.set(config.concurrency); } });
  new Gauge({ name: "cubist_worker_busy_slots", help: "Slots working on a cube now.", registers, collect() { this.set(worker?.stats().busy ?? 0); } });
  new Gauge({
    name: "cubist_worker_quarantined", help: "1 while the worker takes no cubes because its solver failed repeatedly (the reason is in its log and heartbeats).", registers,
    collect() { this.set(worker?.stats().quarantined ? 1 : 0); },
  });
  new Gauge({ name: "cubist_worker_runs", help: "Runs the worker knows of (from the runs bucket).", registers, collect() { this.set(worker?.stats().runs ?? 0); } });
  new Counter({
    name: "cubist_worker_cubes_done_total", help: "Cubes answered with a verdict, by verdict kind.", labelNames: ["kind"], registers,
    collect() {
      const s = worker?.stats();
      this.reset();
      this.inc({ kind: "sat" }, s?.sat ?? 0);
      this.inc({ kind: "unsat" }, s?.unsat ?? 0);
      this.inc({ kind: "unknown" }, s?.unknown ?? 0);
      this.inc({ kind: "error" }, s?.errors ?? 0);
    },
  });
  const fromStats = (name: string, help: string, pick: (s: ReturnType<Worker["stats"]>) => number): void => {
    new Counter({
      name, help, registers,
      collect() {
        this.reset();
        if (worker) this.inc(pick(worker.stats()));
      },
    });
  };
  fromStats("cubist_worker_tasks_terminated_total", "Task messages terminated as malformed or foreign.", (s) => s.terminated);
  fromStats("cubist_worker_tasks_handed_back_total", "Tasks handed back with a nak (paused run, pause-now, shutdown, failed publish).", (s) => s.handedBack);
  fromStats("cubist_worker_tasks_dropped_total", "Tasks acked without a verdict (cancelled cube, finished run).", (s) => s.dropped);

  const cubeSeconds = new Histogram({
    name: "cubist_worker_cube_seconds", help: "Search + solver wall time of a cube, by verdict kind.", labelNames: ["kind"],
    buckets: CUBE_SECONDS_BUCKETS, registers,
  });
  const conflicts = new Counter({ name: "cubist_worker_solver_conflicts_total", help: "Solver conflicts of the cubes this worker answered.", registers });
  const propagations = new Counter({ name: "cubist_worker_solver_propagations_total", help: "Solver propagations of the cubes this worker answered.", registers });
  const decisions = new Counter({ name: "cubist_worker_solver_decisions_total", help: "Solver decisions of the cubes this worker answered.", registers });
  const solverSeconds = new Counter({ name: "cubist_worker_solver_seconds_total", help: "Solver run time of the cubes this worker answered.", registers });
  const placements = new Counter({ name: "cubist_worker_engine_placements_total", help: "Placements made by the native placement engine on the cubes this worker answered (rate() = placements/s).", registers });
  const publishFailures = new Counter({ name: "cubist_worker_verdict_publish_failures_total", help: "Verdict publish attempts that failed (each is retried or handed back).", registers });
  const publishRetries = new Counter({ name: "cubist_worker_verdict_publish_retries_total", help: "Verdict publishes that were attempts after the first for the same verdict.", registers });
  const hits = new Counter({ name: "cubist_worker_formula_cache_hits_total", help: "Formula lookups served from memory or disk without a download of their own.", registers });
  const misses = new Counter({ name: "cubist_worker_formula_cache_misses_total", help: "Formula lookups that waited for a download.", registers });
  const downloads = new Counter({ name: "cubist_worker_formula_downloads_total", help: "Formula downloads started from the Object Store.", registers });
  const downloadBytes = new Counter({ name: "cubist_worker_formula_download_bytes_total", help: "Bytes of formulas downloaded from the Object Store.", registers });
  for (const v of VERDICT_LABELS) cubeSeconds.zero({ kind: v });

  let cacheBytes = { at: 0, bytes: 0 };
  new Gauge({
    name: "cubist_worker_formula_cache_bytes", help: "Bytes of cached formulas on disk.", registers,
    async collect() {
      const now = Date.now();
      if (now - cacheBytes.at > 10_000) {
        let bytes = 0;
        const names = await readdir(config.cacheDir).catch(() => [] as string[]);
        for (const n of names) if (n.endsWith(".cnf")) bytes += (await stat(join(config.cacheDir, n)).catch(() => null))?.size ?? 0;
        cacheBytes = { at: now, bytes };
      }
      this.set(cacheBytes.bytes);
    },
  });

  const verdictPrefix = `${config.names.prefix}.verdicts.`;
  const attempted = new Set<string>();
  const downloadsByName = new Map<string, number>();

  const observeVerdict = (data: Uint8Array): void => {
    let v: Verdict;
    try {
      v = Verdict.decode(data);
    } catch {
      return;
    }
    const s = v.stats;
    if (!s) return;
    const verdict = verdictLabel(v.kind);
    if (Number.isFinite(s.wallMs) && s.wallMs >= 0) cubeSeconds.observe({ kind: verdict }, s.wallMs / 1000);
    if (s.conflicts > 0) conflicts.inc(s.conflicts);
    if (s.propagations > 0) propagations.inc(s.propagations);
    if (s.decisions > 0) decisions.inc(s.decisions);
    if (s.solverSeconds > 0) solverSeconds.inc(s.solverSeconds);
    if (s.searchNodes > 0) placements.inc(s.searchNodes);
  };

  const instrumentJs = (js: JetStreamClient): JetStreamClient => {
    const publish: JetStreamClient["publish"] = async (subject, payload, opts) => {
      if (!subject.startsWith(verdictPrefix) || !(payload instanceof Uint8Array)) return js.publish(subject, payload, opts);
      const id = opts?.msgID;
      if (id !== undefined) {
        if (attempted.has(id)) publishRetries.inc();
        else if (attempted.size >= 10_000) attempted.clear();
        attempted.add(id);
      }
      try {
        const ack = await js.publish(subject, payload, opts);
        if (id !== undefined) attempted.delete(id);
        observeVerdict(payload);
        return ack;
      } catch (err) {
        publishFailures.inc();
        throw err;
      }
    };
    return override(js, { publish });
  };

  const instrumentObjects = (store: ObjectStore): ObjectStore => {
    const get = async (name: string): Promise<ObjectResult | null> => {
      downloads.inc();
      downloadsByName.set(name, (downloadsByName.get(name) ?? 0) + 1);
      const r = await store.get(name);
      if (!r) return r;
      const counted = r.data.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          downloadBytes.inc(chunk.byteLength);
          controller.enqueue(chunk);
        },
      }));
      return { ...r, data: counted };
    };
    return override(store, { get });
  };

  return {
    registry,
    contentType: registry.contentType,
    metrics: () => registry.metrics(),
    instrumentLayout(layout) {
      return { ...layout, js: instrumentJs(layout.js), formulas: instrumentObjects(layout.formulas) };
    },
    attach(w) {
      worker = w;
      const cache = w.formulaCache;
      const lookup = cache.get.bind(cache);
      // A lookup during which no download of that formula started was served from memory or disk.
      cache.get = (sha256: string) => {
        const before = downloadsByName.get(sha256) ?? 0;
        const p = lookup(sha256);
        p.then(
          () => ((downloadsByName.get(sha256) ?? 0) > before ? misses : hits).inc(),
          () => misses.inc(),
        );
        return p;
      };
    },
  };
}
