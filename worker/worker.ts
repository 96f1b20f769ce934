/**
 * The worker: N solver slots pulling cube tasks from the runs' consumers (slot.ts, cube-task.ts), fed by a watch
 * of the runs KV bucket (which runs are RUNNING, their priority, formula and puzzle), stopped by cancels and by
 * final run states, announcing itself with status heartbeats. It uses an open NATS connection and layout; the
 * process around it (main.ts) connects, waits for the layout and handles signals.
 *
 * States: created -> running -> draining -> stopping -> closed.
 * - draining: no more pulls; running cubes may finish (up to the grace period) and are answered normally;
 * - stopping: the grace period is over: running cubes are stopped and their tasks handed back (nak), so another
 *   worker picks them up at once instead of after ack_wait.
 * `close()` is idempotent and returns the same promise every time.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { setTimeout as sleep } from "node:timers/promises";
import type { Layout } from "../cluster/layout.js";
import { silentLogger, type Logger } from "../cluster/log.js";
import type { WorkerStatus } from "../proto/gen/cubist/v1/cube.js";
import { ActiveCubes, SHUTDOWN } from "./active.js";
import { CancelMemory, parseCancel } from "./cancels.js";
import type { WorkerConfig } from "./config.js";
import { ConsumerBook } from "./consumers.js";
import { newCounters, type WorkerContext, type WorkerCounters } from "./context.js";
import { FormulaCache } from "../host/formula-cache.js";
import { objectStoreSource } from "../cluster/formula-source.js";
import { Quarantine } from "./quarantine.js";
import { RunTable } from "./run-table.js";
import { Slot, type SlotState } from "./slot.js";
import { buildStatus, startStatusHeartbeats } from "./status.js";
import { watchRuns } from "./watch-runs.js";

export type WorkerState = "created" | "running" | "draining" | "stopping" | "closed";

export interface WorkerDeps {
  nc: NatsConnection;
  jsm: JetStreamManager;
  layout: Layout;
  log?: Logger;
}

/** A snapshot for tests, logs and metrics. */
export interface WorkerStats extends WorkerCounters {
  state: WorkerState;
  slots: SlotState[];
  busy: number;
  runs: number;
  /** Why the worker takes no cubes now (worker/quarantine.ts); "" when it does. */
  quarantined: string;
}

export class Worker {
  private current: WorkerState = "created";
  private readonly ctx: WorkerContext;
  private readonly slots: Slot[] = [];
  private readonly drainController = new AbortController();
  private readonly hardStopController = new AbortController();
  private readonly watchController = new AbortController();
  private readonly graceController = new AbortController();
  private readonly log: Logger;
  private closing: Promise<void> | null = null;
  private watcher: Promise<void> = Promise.resolve();
  private stopStatus: (() => void) | null = null;
  private unsubscribeCancels: (() => void) | null = null;
  private startedMs = Date.now();
  private isConnected = true;

  constructor(readonly config: WorkerConfig, deps: WorkerDeps) {
    this.log = deps.log ?? silentLogger;
    const table = new RunTable(this.log);
    this.ctx = {
      config,
      nc: deps.nc,
      jsm: deps.jsm,
      layout: deps.layout,
      log: this.log,
      table,
      cache: new FormulaCache(config.cacheDir, objectStoreSource(deps.layout.formulas)),
      consumers: new ConsumerBook(deps.jsm, config.names, this.log),
      cancels: new CancelMemory(),
      active: new ActiveCubes(),
      quarantine: new Quarantine(config.quarantineAfter, config.quarantineMs, this.log),
      counters: newCounters(),
      draining: this.drainController.signal,
      hardStop: this.hardStopController.signal,
      connected: () => this.isConnected,
    };
    // A FAILED run resumed: its end's cancel must not drop the cubes sent again.
    table.onResumed((run) => this.ctx.cancels.forgetRun(run));
    table.onStopped((e) => {
      const n = this.ctx.active.stopMatching(e.run, "", e.reason);
      if (n > 0) this.log.info("stopping the run's cubes", { run: e.run, why: e.reason, cubes: n });
    });
  }

  get state(): WorkerState {
    return this.current;
  }

  get id(): string {
    return this.config.workerId;
  }

  /** Starts watching runs, listening for cancels, heartbeating and the slots. */
  async start(): Promise<void> {
    if (this.current !== "created") throw new Error(`worker ${this.id}: start() in state ${this.current}`);
    const { nc } = this.ctx;
    const names = this.config.names;
    this.startedMs = Date.now();
    void this.followConnection();
    const sub = nc.subscribe(names.cancelWildcard(), { callback: (err, msg) => (err ? undefined : this.onCancel(msg.subject, msg.data)) });
    this.unsubscribeCancels = () => sub.unsubscribe();
    this.watcher = watchRuns(this.ctx.layout.runs, this.ctx.table, this.log, this.watchController.signal);
    for (let i = 0; i < this.config.concurrency; i++) this.slots.push(new Slot(i, this.ctx));
    for (const s of this.slots) s.start();
    this.stopStatus = startStatusHeartbeats(nc, names.workerSubject(this.id), this.config.statusIntervalMs, () => this.status());
    this.transition("running", { slots: this.config.concurrency, solver: this.config.solver, solverPath: this.config.solverPath, cacheDir: this.config.cacheDir });
  }

  /** The heartbeat payload right now. */
  status(): WorkerStatus {
    return buildStatus(this.ctx, this.startedMs, this.config.concurrency);
  }

  stats(): WorkerStats {
    return {
      ...this.ctx.counters,
      state: this.current,
      slots: this.slots.map((s) => s.state),
      busy: this.ctx.active.size,
      runs: this.ctx.table.size,
      quarantined: this.ctx.quarantine.reason,
    };
  }

  /** The formula cache (the metrics follow its lookups). */
  get formulaCache(): FormulaCache {
    return this.ctx.cache;
  }

  /**
   * Stops pulling, lets running cubes finish for up to `graceMs` (default: the config's shutdown grace), then stops
   * them and hands their tasks back. Idempotent: every call returns the first call's promise.
   */
  close(graceMs: number = this.config.shutdownGraceMs): Promise<void> {
    this.closing ??= this.shutdown(graceMs);
    return this.closing;
  }

  /** Ends the grace period of a close() in progress now (a second SIGINT). */
  hurry(): void {
    this.graceController.abort();
  }

  private async shutdown(graceMs: number): Promise<void> {
    if (this.current === "created") {
      this.transition("closed");
      return;
    }
    this.transition("draining", { busy: this.ctx.active.size, graceMs });
    this.drainController.abort();
    const allDone = Promise.all(this.slots.map((s) => s.done()));
    const inTime = await Promise.race([allDone.then(() => true), sleep(graceMs, false, { signal: this.graceController.signal }).catch(() => false)]);
    this.graceController.abort();
    if (!inTime) {
      this.transition("stopping", { busy: this.ctx.active.size });
      this.hardStopController.abort();
      this.ctx.active.stopAll(SHUTDOWN);
      await allDone;
    }
    this.stopStatus?.();
    this.unsubscribeCancels?.();
    this.watchController.abort();
    await this.watcher;
    await Promise.all(this.slots.map((s) => s.close()));
    this.transition("closed", { cubesDone: this.ctx.counters.cubesDone });
  }

  private transition(next: WorkerState, fields: Record<string, unknown> = {}): void {
    this.log.info(`worker ${next}`, { from: this.current, ...fields });
    this.current = next;
  }

  private onCancel(subject: string, data: Uint8Array): void {
    const parsed = parseCancel(this.config.names, subject, data);
    if (!parsed.ok) {
      this.log.warn("cancel ignored", { subject: subject.slice(0, 200), why: parsed.reason });
      return;
    }
    const c = parsed.cancel;
    this.ctx.cancels.remember(c);
    const stopped = this.ctx.active.stopMatching(c.run, c.cube, c.reason);
    this.log.info("cancel", { run: c.run, cube: c.cube || undefined, why: c.reason, stopped });
  }

  private async followConnection(): Promise<void> {
    for await (const s of this.ctx.nc.status()) {
      if (s.type === "disconnect") {
        this.isConnected = false;
        this.log.warn("NATS disconnected; reconnecting", { server: s.server });
      } else if (s.type === "reconnect") {
        this.isConnected = true;
        this.log.info("NATS reconnected", { server: s.server });
      }
    }
  }
}
