/**
 * The coordinator: owns the JetStream layout, the runs, and the single durable consumer of verdicts. It keeps
 * no state of its own: on start it replays every unfinished run's ledger (coordinator/ledger.ts) and continues.
 * Only one coordinator should be active per prefix; a second one started after the first died takes over.
 *
 * Loops: the verdict consumer (coordinator/verdict-intake.ts; group by run, record, then ack), worker heartbeats
 * (who runs what), the MAX_DELIVERIES advisory (cubes JetStream gave up on), a status writer (run records to KV once
 * a second), and a stall check (queued cubes that are in no consumer any more are published again).
 */

import { EventEmitter } from "node:events";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { deleteRunConsumer, ensureLayout, purgeRunTasks, type Layout } from "../cluster/layout.js";
import type { Logger } from "../cluster/log.js";
import { RUN_ID_RE, WORKER_FORGET_MS, WORKER_SILENCE_MS, type Names } from "../proto/contract.js";
import { Cancel, CubeTask, type Verdict, type WorkerStatus } from "../proto/gen/cubist/v1/cube.js";
import { checkHeartbeat, Rejections } from "./heartbeats.js";
import { releaseDeletedRun, releaseFormula, releaseProofs } from "./formula-upload.js";
import { RunRecord, RunState } from "../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../proto/vocabulary.js";
import { DEFAULT_SETTINGS, DEFAULT_STALL_CHECK_MS, DEFAULT_STATUS_INTERVAL_MS, type CoordinatorSettings } from "./config.js";
import { RunExistsError } from "./api-errors.js";
import { awaitsRecord, checkVerdict } from "./leases.js";
import { Ledger } from "./ledger.js";
import { buildRunSpec, type RunRequest } from "./run-spec.js";
import { RunController, type RunningCube } from "./run.js";
import { decodeVerdict, VerdictIntake } from "./verdict-intake.js";
import { HeldVerdicts } from "./verdict-hold.js";
import { StallWatch } from "./stall.js";
import { waitingReason } from "./waiting.js";

export interface CoordinatorOptions {
  nc: NatsConnection;
  jsm: JetStreamManager;
  names: Names;
  log: Logger;
  settings?: Partial<CoordinatorSettings>;
  /** Stream and bucket replicas. @default 1 */
  replicas?: number;
  /** How often run records are written to KV. @default 1000 */
  statusIntervalMs?: number;
  /** How often the stall check runs. @default 1000 */
  stallCheckMs?: number;
}

type State = "created" | "starting" | "running" | "closing" | "closed";

/** A worker's last heartbeat. */
export interface WorkerInfo {
  status: WorkerStatus;
  seenMs: number;
}

export class Coordinator {
  readonly runs = new Map<string, RunController>();
  readonly workers = new Map<string, WorkerInfo>();
  private state: State = "created";
  private layout!: Layout;
  private ledger!: Ledger;
  private readonly settings: CoordinatorSettings;
  private readonly subs: Subscription[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private intake: VerdictIntake | null = null;
  /** Verdicts whose tasks are still in flight, unacked until their run records them (coordinator/verdict-hold.ts). */
  private readonly held = new HeldVerdicts<JsMsg>();
  /** Messages handed back from `held`: processed again, not counted again. */
  private readonly rechecked = new WeakSet<JsMsg>();
  private readonly stalls = new StallWatch();
  private closing: Promise<void> | null = null;
  /** Counters for metrics. `heldVerdicts`: verdicts that arrived before their task was recorded, held, not dropped. */
  readonly counters = { verdicts: 0, badVerdicts: 0, foreignVerdicts: 0, heldVerdicts: 0 };
  /** Every accepted verdict as it arrives, before it is recorded (metrics, the dashboard). */
  readonly verdictTap = new EventEmitter<{ verdict: [Verdict] }>();
  /** Messages dropped as impossible or forged, by kind (metrics). */
  readonly rejections: Rejections;

  constructor(private readonly opts: CoordinatorOptions) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.rejections = new Rejections(opts.log);
  }

  private transition(next: State): void {
    this.opts.log.debug(`coordinator ${this.state} -> ${next}`);
    this.state = next;
  }

  get names(): Names {
    return this.opts.names;
  }

  async start(): Promise<void> {
    if (this.state !== "created") throw new Error(`coordinator already ${this.state}`);
    this.transition("starting");
    const { nc, jsm, names, log } = this.opts;
    this.layout = await ensureLayout(nc, jsm, names, { replicas: this.opts.replicas ?? 1 });
    this.ledger = new Ledger(this.layout.js, names, (attempt, err) => {
      if (attempt === 1 || attempt % 10 === 0) log.warn("ledger append failed; retrying", { attempt, err: err.message });
    });
    await this.resumeRuns();
    this.subs.push(nc.subscribe(names.workerWildcard(), { callback: (err, msg) => { if (!err) this.onWorkerStatus(msg.data, msg.subject); } }));
    this.subs.push(nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.cubesStream}.*`, {
      callback: (err, msg) => { if (!err) void this.onMaxDeliveries(msg.data); },
    }));
    this.timers.push(setInterval(() => void this.writeStatus(), this.opts.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS));
    this.timers.push(setInterval(() => void this.checkStalls(), this.opts.stallCheckMs ?? DEFAULT_STALL_CHECK_MS));
    this.transition("running");
    this.intake = new VerdictIntake({
      js: this.layout.js, names, log,
      running: () => this.state === "running",
      process: (batch) => this.processVerdicts(batch),
    });
    this.intake.start();
    log.info("coordinator started", { prefix: names.prefix, runs: this.runs.size });
  }

  private deps() {
    return {
      layout: this.layout,
      jsm: this.opts.jsm,
      ledger: this.ledger,
      names: this.opts.names,
      settings: this.settings,
      log: this.opts.log,
      publishCancel: (run: string, cube: string, reason: string) => this.publishCancel(run, cube, reason),
      settled: (run: string) => this.intake?.requeue(this.held.take(run)),
      releaseFormula: (sha: string, runId: string) => releaseFormula(this.layout.formulas, sha, runId, this.runs.values(), this.opts.log),
      releaseProofs: (proofs: Iterable<string>, runId: string) =>
        releaseProofs(this.layout.proofs, proofs, runId, [...this.runs.values()].map((r) => ({ id: r.id, state: r.state, proofs: r.model.proofs })), this.opts.log),
    };
  }

  /** Replays the ledger of every run whose record is not terminal. */
  private async resumeRuns(): Promise<void> {
    const t0 = performance.now();
    for (const id of await this.ledger.runs()) {
      if (!RUN_ID_RE.test(id)) continue;
      const entry = await this.layout.runs.get(id).catch(() => null);
      if (entry && entry.value.length > 0) {
        try {
          const rec = RunRecord.decode(entry.value);
          if (rec.status && isTerminal(rec.status.state)) continue;
        } catch {
          // replay decides
        }
      }
      try {
        const entries = await this.ledger.replay(id, (seq, err) => this.opts.log.warn("undecodable ledger entry skipped", { run: id, seq, err: err.message }));
        const run = await RunController.resume(this.deps(), entries);
        if (run) this.runs.set(id, run);
      } catch (err) {
        this.opts.log.error("cannot resume run", { run: id, err: (err as Error).message });
      }
    }
    if (this.runs.size > 0) this.opts.log.info("runs resumed", { runs: this.runs.size, ms: Math.round(performance.now() - t0) });
  }

  // ---- API --------------------------------------------------------------------------------------------------

  async submitRun(req: RunRequest): Promise<RunController> {
    this.requireRunning();
    const { spec, puzzle } = buildRunSpec(req, Date.now(), this.settings.limits);
    // Ids are never reused, also those of finished runs that are not in memory (their ledger and tasks remain).
    if (this.runs.has(spec.runId) || (await this.runRecord(spec.runId)) !== null || (await this.ledger.runs()).includes(spec.runId)) {
      throw new RunExistsError(spec.runId);
    }
    const run = await RunController.create(this.deps(), spec, puzzle);
    this.runs.set(spec.runId, run);
    return run;
  }

  getRun(id: string): RunController | undefined {
    return this.runs.get(id);
  }

  /** A run by id: in memory, or rebuilt from its ledger (finished runs after a restart). */
  async loadRun(id: string): Promise<RunController | undefined> {
    const live = this.runs.get(id);
    if (live) return live;
    const entries = await this.ledger.replay(id);
    if (entries.length === 0) return undefined;
    const run = await RunController.resume(this.deps(), entries);
    if (!run) return undefined;
    this.runs.set(id, run);
    return run;
  }

  /** The run's record in the KV bucket (every run, also finished ones not in memory). */
  async runRecord(id: string): Promise<RunRecord | null> {
    const live = this.runs.get(id);
    if (live) return live.record();
    const e = await this.layout.runs.get(id).catch(() => null);
    if (!e || e.value.length === 0) return null;
    try {
      return RunRecord.decode(e.value);
    } catch {
      return null;
    }
  }

  /**
   * Forgets a run that has ended (the caller checks that): out of memory (and so out of the metrics), its record
   * out of the runs bucket, its ledger and any task left in the cube stream purged, its consumer deleted, and its
   * stored objects released (formula-upload.ts releaseDeletedRun).
   */
  async deleteRun(id: string): Promise<void> {
    this.requireRunning();
    const { jsm, names } = this.opts;
    const sha = (await this.runRecord(id))?.spec?.formulaSha256 ?? "";
    const model = this.runs.get(id)?.model;
    const proofs = model ? [...model.proofs.values(), model.coverageProof].filter((p) => p !== "") : [];
    this.runs.delete(id);
    await deleteRunConsumer(jsm, names, id).catch(() => undefined);
    await purgeRunTasks(jsm, names, id).catch(() => undefined);
    await jsm.streams.purge(names.ledgerStream, { filter: names.ledgerSubject(id) });
    await this.layout.runs.purge(id);
    await releaseDeletedRun(this.layout, { id, sha, proofs }, await this.listRunRecords().catch(() => []), (other) => this.loadRun(other), this.opts.log);
    this.opts.log.info("run deleted", { run: id });
  }

  async listRunRecords(): Promise<RunRecord[]> {
    const ids = new Set<string>(this.runs.keys());
    for await (const k of await this.layout.runs.keys()) ids.add(k);
    const out: RunRecord[] = [];
    for (const id of ids) {
      const r = await this.runRecord(id);
      if (r?.spec && r.status) out.push(r);
    }
    return out;
  }

  private requireRunning(): void {
    if (this.state !== "running") throw new Error(`coordinator is ${this.state}`);
  }

  publishCancel(run: string, cube: string, reason: string): void {
    try {
      this.opts.nc.publish(this.opts.names.cancelSubject(run, cube || undefined), Cancel.encode({ runId: run, cubeId: cube, reason }).finish());
    } catch (err) {
      this.opts.log.warn("cancel not published", { run, cube, err: (err as Error).message });
    }
  }

  // ---- verdicts ---------------------------------------------------------------------------------------------

  private async processVerdicts(msgs: JsMsg[]): Promise<void> {
    const byRun = new Map<string, { verdicts: Verdict[] }>();
    const acks: Array<() => void> = [];
    for (const m of msgs) {
      if (!this.rechecked.has(m)) this.counters.verdicts++;
      const v = decodeVerdict(m.data, m.subject, this.opts.names, this.opts.log);
      if (!v) {
        this.counters.badVerdicts++;
        // A plain term: nats-server 2.9 does not understand a term with a reason and would redeliver.
        m.term();
        continue;
      }
      const run = this.runs.get(v.runId);
      if (!run || isTerminal(run.state)) {
        if (!run) this.counters.foreignVerdicts++;
        m.ack();
        continue;
      }
      // Leases and identities (coordinator/leases.ts): acked, so a dropped verdict is never redelivered.
      const rejection = checkVerdict(this.opts.names, run.table, v, m.subject);
      if (rejection !== null && awaitsRecord(rejection, v, run.model)) {
        this.hold(run.id, m);
        continue;
      }
      if (rejection !== null) {
        this.rejections.add(rejection, { subject: m.subject.slice(0, 200), run: v.runId, cube: v.cubeId, worker: v.workerId.slice(0, 80) });
        m.ack();
        continue;
      }
      this.verdictTap.emit("verdict", v);
      let g = byRun.get(v.runId);
      if (!g) byRun.set(v.runId, (g = { verdicts: [] }));
      g.verdicts.push(v);
      acks.push(() => m.ack());
    }
    for (const [id, g] of byRun) {
      try {
        await this.runs.get(id)!.handleVerdicts(g.verdicts);
      } catch (err) {
        // Not acked: JetStream redelivers them after ack_wait, and recording is idempotent.
        this.opts.log.error("recording verdicts failed; they will be redelivered", { run: id, err: (err as Error).message });
        return;
      }
    }
    for (const ack of acks) ack();
  }

  /** Holds a verdict whose task is in flight; handed back to JetStream for later when the run holds too many. */
  private hold(run: string, m: JsMsg): void {
    if (!this.rechecked.has(m)) this.counters.heldVerdicts++;
    this.rechecked.add(m);
    if (!this.held.hold(run, m)) m.nak(1000);
  }

  private async onMaxDeliveries(data: Uint8Array): Promise<void> {
    try {
      const adv = JSON.parse(new TextDecoder().decode(data)) as { stream?: string; consumer?: string; stream_seq?: number };
      if (adv.stream !== this.opts.names.cubesStream || typeof adv.stream_seq !== "number") return;
      const sm = await this.opts.jsm.streams.getMessage(adv.stream, { seq: adv.stream_seq });
      if (!sm) return;
      const task = CubeTask.decode(sm.data);
      const run = this.runs.get(task.runId);
      if (run) await run.onMaxDeliveries(task.cubeId);
    } catch (err) {
      this.opts.log.debug("max-deliveries advisory not handled", { err: (err as Error).message });
    }
  }

  // ---- workers and status -----------------------------------------------------------------------------------

  /** A heartbeat, believed only as far as coordinator/heartbeats.ts finds it possible. */
  private onWorkerStatus(data: Uint8Array, subject: string): void {
    const now = Date.now();
    const runOf = (id: string) => {
      const run = this.runs.get(id);
      // A scan run's portfolio member runs like a cube but is none (coordinator/cube-table.ts MemberEntry).
      return run && { createdUnixMs: run.spec.createdUnixMs, hasCube: (cube: string) => run.table.get(cube) !== undefined || run.table.member(cube) !== undefined };
    };
    const s = checkHeartbeat(data, subject, { names: this.opts.names, now, runOf, rejections: this.rejections });
    if (s) this.workers.set(s.workerId, { status: s, seenMs: now });
  }

  /** Workers heard from in the last WORKER_SILENCE_MS (proto/contract.ts). */
  liveWorkers(now = Date.now()): WorkerInfo[] {
    return [...this.workers.values()].filter((w) => now - w.seenMs < WORKER_SILENCE_MS);
  }

  /** Tells each run which of its cubes live workers report running; forgets workers silent for long. */
  private refreshRunning(now: number): void {
    const byRun = new Map<string, Map<string, RunningCube>>();
    for (const [id, w] of this.workers) {
      if (now - w.seenMs > WORKER_FORGET_MS) {
        this.workers.delete(id);
        continue;
      }
      if (now - w.seenMs > WORKER_SILENCE_MS) continue;
      for (const r of w.status.running) {
        let cubes = byRun.get(r.runId);
        if (!cubes) byRun.set(r.runId, (cubes = new Map()));
        cubes.set(r.cubeId, { worker: w.status.workerId, since: r.startedUnixMs });
      }
    }
    for (const [id, run] of this.runs) run.setRunning(byRun.get(id) ?? new Map());
    const live = this.liveWorkers(now).map((w) => ({ slots: w.status.slots, runs: w.status.running.map((r) => r.runId) }));
    const briefs = new Map([...this.runs].map(([id, r]) => [id, { name: id, priority: r.priority }]));
    for (const run of this.runs.values()) {
      const c = run.table.snapshotCounts();
      run.setWaiting(waitingReason({ id: run.id, queued: c.queued, running: run.running.size }, live, briefs));
    }
  }

  private async writeStatus(): Promise<void> {
    if (this.state !== "running" && this.state !== "closing") return;
    const now = Date.now();
    this.refreshRunning(now);
    for (const run of this.runs.values()) {
      if (!isTerminal(run.state)) run.markDirty();
      try {
        await run.publishRecord(false);
      } catch (err) {
        this.opts.log.debug("run record not written", { run: run.id, err: (err as Error).message });
      }
    }
  }

  /**
   * Queued cubes that no consumer holds any more (lost, or given up while no coordinator listened): published again
   * once coordinator/stall.ts confirms it. Runs that recorded something since the last check are making progress and
   * are not looked at.
   */
  private async checkStalls(): Promise<void> {
    if (this.state !== "running") return;
    const { cubesStream, runConsumer, frontConsumer, verdictsStream, verdictsConsumer } = this.opts.names;
    const pendingOf = async (stream: string, name: string): Promise<number> => {
      const info = await this.opts.jsm.consumers.info(stream, name).catch(() => null);
      return info ? info.num_pending + info.num_ack_pending : 0;
    };
    let verdictsWaiting: number | null = null;
    for (const run of this.runs.values()) {
      const queued = run.table.snapshotCounts().queued;
      if (run.state !== RunState.RUN_STATE_RUNNING || queued === 0 || !run.table.initialSplitDone) {
        this.stalls.forget(run.id);
        continue;
      }
      const inFlight = run.model.inFlight.size + this.held.heldFor(run.id);
      if (!this.stalls.suspect(run.id, { queued, inFlight, recorded: run.model.applied })) continue;
      try {
        verdictsWaiting ??= await pendingOf(verdictsStream, verdictsConsumer) + this.held.size;
        const inConsumers = await pendingOf(cubesStream, runConsumer(run.id)) + await pendingOf(cubesStream, frontConsumer(run.id));
        const observation = { queued, inConsumers, inFlight, verdictsWaiting, recorded: run.model.applied };
        if (this.stalls.observe(run.id, observation, Date.now())) await run.republishQueued();
      } catch (err) {
        this.opts.log.debug("stall check failed", { run: run.id, err: (err as Error).message });
      }
    }
  }

  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      this.transition("closing");
      for (const t of this.timers) clearInterval(t);
      for (const s of this.subs) s.unsubscribe();
      await this.intake?.close();
      // Held verdicts go back to JetStream at once: whoever coordinates next takes them.
      for (const m of this.held.takeAll()) m.nak();
      for (const run of this.runs.values()) await run.splitDone().catch(() => undefined);
      for (const run of this.runs.values()) await run.certifier?.close();
      await this.writeStatus().catch(() => undefined);
      this.transition("closed");
    })();
    return this.closing;
  }
}
