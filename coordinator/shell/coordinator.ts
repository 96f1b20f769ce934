/**
 * The coordinator: owns the JetStream layout, the runs, and the verdict consumer. It keeps no state of its own: on
 * taking the lead it replays every unfinished run's ledger (coordinator/shell/ledger.ts) and continues.
 *
 * One coordinator per prefix leads; any other is a standby (coordinator/shell/leadership.ts: a lease in JetStream KV).
 * States: created -> starting -> standby <-> taking-over -> leading -> closing -> closed. A standby serves what it can read (run
 * records, its workers table) and refuses every change (NotLeaderError, naming the leader); it takes the lead when
 * the lease is free or has lapsed (after a kill -9: within the lease, 6 s by default). The leader stops acting the
 * moment its lease is not held: every effect checks it first (`fence`), and its ledger writes are fenced by
 * JetStream, so a leader frozen past its lease writes nothing after it wakes (docs/operations.md "Leadership").
 *
 * Loops while leading: the verdict consumer of its term (coordinator/shell/verdict-intake.ts; group by run, record, then
 * ack), the MAX_DELIVERIES advisory (cubes JetStream gave up on), a status writer (run records to KV once a second)
 * and a stall check (coordinator/model/stall.ts). Worker heartbeats are read in every state.
 */

import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { deleteRunConsumer, ensureLayout, ensureLeaderBucket, purgeRunTasks, takeVerdictConsumer, type Layout } from "../../cluster/layout.js";
import type { Logger } from "../../cluster/log.js";
import { RUN_ID_RE, type Names } from "../../proto/contract.js";
import { Cancel, CubeTask, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { Rejections } from "./heartbeats.js";
import { releaseDeletedRun, releaseFormula, releaseProofs } from "./formula-upload.js";
import { RunRecord, RunState } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { DEFAULT_SETTINGS, DEFAULT_STALL_CHECK_MS, DEFAULT_STATUS_INTERVAL_MS, type CoordinatorSettings } from "../config.js";
import { NotLeaderError, RunExistsError } from "../errors.js";
import { awaitsRecord, checkVerdict } from "../model/leases.js";
import { Ledger, LedgerFencedError } from "./ledger.js";
import { buildRunSpec, type RunRequest } from "../run-spec.js";
import { RunController } from "./run.js";
import { decodeVerdict, VerdictIntake } from "./verdict-intake.js";
import { HeldVerdicts } from "../model/verdict-hold.js";
import { StallWatch } from "../model/stall.js";
import { waitingReason } from "../model/waiting.js";
import { Leadership } from "./leadership.js";
import { DEFAULT_LEASE_TIMINGS, type LeaderRecord, type LeaseTimings } from "../model/leader-lease.js";
import { WorkerTable, type WorkerInfo } from "./worker-table.js";

export type { WorkerInfo };

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
  /** The leader lease's timings (coordinator/model/leader-lease.ts). @default DEFAULT_LEASE_TIMINGS */
  lease?: LeaseTimings;
  /** Where this coordinator serves, written in its lease entry so that standbys and clients find the leader. */
  addresses?: { grpc?: string; http?: string };
}

/** What the coordinator counts for its metrics. */
export interface CoordinatorCounters {
  /** Messages read from the verdict stream (a held message is counted once). */
  verdicts: number;
  /** Messages terminated as malformed. */
  badVerdicts: number;
  /** Well-formed verdicts for runs the coordinator does not hold. */
  foreignVerdicts: number;
  /** Verdicts that arrived before their task was recorded: held, then taken. */
  heldVerdicts: number;
  /** Times this coordinator took the lead. */
  takeovers: number;
}

/** "taking-over": the lease is held, and the runs are being resumed; its effects may be written, the API waits. */
type State = "created" | "starting" | "standby" | "taking-over" | "leading" | "closing" | "closed";

export class Coordinator {
  /** The runs in memory, by id: every open run while it leads, and finished ones loaded on demand. */
  private readonly byId = new Map<string, RunController>();
  /** This process's instance id, in its lease entry and takeover notes. */
  readonly id = `${randomBytes(4).toString("hex")}`;
  private state: State = "created";
  private layout!: Layout;
  private ledger!: Ledger;
  private leadership!: Leadership;
  private readonly workerTable: WorkerTable;
  private readonly settings: CoordinatorSettings;
  private readonly subs: Subscription[] = [];
  private timers: NodeJS.Timeout[] = [];
  private intake: VerdictIntake | null = null;
  /** The verdict consumer of this coordinator's term ("" while it does not lead). */
  private verdictConsumer = "";
  /** Increases at every lead and step-down, so that a takeover in progress sees it was overtaken. */
  private generation = 0;
  private takingOver: Promise<void> | null = null;
  /** Verdicts whose tasks are still in flight, unacked until their run records them (coordinator/model/verdict-hold.ts). */
  private readonly held = new HeldVerdicts<JsMsg>();
  /** Messages handed back from `held`: processed again, not counted again. */
  private readonly rechecked = new WeakSet<JsMsg>();
  private stalls = new StallWatch();
  private closing: Promise<void> | null = null;
  /** Counters for metrics. `heldVerdicts`: verdicts that arrived before their task was recorded, held, not dropped. */
  readonly counters: CoordinatorCounters = { verdicts: 0, badVerdicts: 0, foreignVerdicts: 0, heldVerdicts: 0, takeovers: 0 };
  /** Every accepted verdict as it arrives, before it is recorded (metrics, the dashboard). */
  readonly verdictTap = new EventEmitter<{ verdict: [Verdict] }>();
  /** Messages dropped as impossible or forged, by kind (metrics). */
  readonly rejections: Rejections;

  constructor(private readonly opts: CoordinatorOptions) {
    this.settings = { ...DEFAULT_SETTINGS, ...opts.settings };
    this.rejections = new Rejections(opts.log);
    this.workerTable = new WorkerTable(opts.names, this.rejections);
  }

  private transition(next: State): void {
    this.opts.log.debug(`coordinator ${this.state} -> ${next}`);
    this.state = next;
  }

  get names(): Names {
    return this.opts.names;
  }

  /** "leader" while it leads, "standby" otherwise (also while starting or closing). */
  get role(): "leader" | "standby" {
    return this.state === "leading" ? "leader" : "standby";
  }

  /** The leader as last seen: this coordinator's own record while it leads; null when no leader is known. */
  get leader(): LeaderRecord | null {
    return this.leadership?.leader ?? null;
  }

  /** The verdict consumer this coordinator reads while it leads ("" otherwise). */
  get verdictConsumerName(): string {
    return this.verdictConsumer;
  }

  async start(): Promise<void> {
    if (this.state !== "created") throw new Error(`coordinator already ${this.state}`);
    this.transition("starting");
    const { nc, jsm, names, log } = this.opts;
    this.layout = await ensureLayout(nc, jsm, names, { replicas: this.opts.replicas ?? 1 });
    this.ledger = new Ledger(this.layout.js, names, (attempt, err) => {
      if (attempt === 1 || attempt % 10 === 0) log.warn("ledger append failed; retrying", { attempt, err: err.message });
    }, (err) => this.leadership.relinquish(err.message));
    this.subs.push(nc.subscribe(names.workerWildcard(), { callback: (err, msg) => { if (!err) this.onWorkerStatus(msg.data, msg.subject); } }));
    this.subs.push(nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.cubesStream}.*`, {
      callback: (err, msg) => { if (!err) void this.onMaxDeliveries(msg.data); },
    }));
    const kv = await ensureLeaderBucket(nc, names, this.opts.replicas ?? 1);
    this.leadership = new Leadership(kv, { id: this.id, grpc: this.opts.addresses?.grpc ?? "", http: this.opts.addresses?.http ?? "" }, this.opts.lease ?? DEFAULT_LEASE_TIMINGS, log);
    this.leadership.on("elected", (term) => { this.takingOver = this.lead(term); });
    this.leadership.on("lost", (reason) => void this.stepDown(reason));
    this.transition("standby");
    await this.leadership.start();
    await this.takingOver;
    if (this.role === "standby") log.info("coordinator started as a standby", { prefix: names.prefix, leader: this.leader?.id ?? "unknown", grpc: this.leader?.grpc ?? "" });
    else log.info("coordinator started", { prefix: names.prefix, runs: this.byId.size, term: this.leadership.term });
  }

  /** Takes the lead for `term`: the verdict consumer of the term, every open run resumed and fenced, then the loops. */
  private async lead(term: number): Promise<void> {
    if (this.state !== "standby" && this.state !== "starting") return;
    const generation = ++this.generation;
    // Lost the lease meanwhile (stepDown ran, or it lapsed: then it is given up here, and stepDown runs).
    const overtaken = (): boolean => {
      if (generation === this.generation && !this.leadership.held()) this.leadership.relinquish("leader lease lapsed while taking over");
      return generation !== this.generation || this.state !== "taking-over";
    };
    const t0 = performance.now();
    this.transition("taking-over");
    this.ledger.term = term;
    try {
      this.verdictConsumer = await takeVerdictConsumer(this.opts.jsm, this.opts.names, term);
      if (overtaken()) return;
      await this.resumeRuns(term);
      if (overtaken()) return;
    } catch (err) {
      this.opts.log.error("taking the lead failed; standing by", { err: (err as Error).message });
      this.leadership.relinquish(`taking the lead failed: ${(err as Error).message}`);
      return;
    }
    this.counters.takeovers++;
    this.timers.push(setInterval(() => void this.writeStatus(), this.opts.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS));
    this.timers.push(setInterval(() => void this.checkStalls(), this.opts.stallCheckMs ?? DEFAULT_STALL_CHECK_MS));
    this.transition("leading");
    this.intake = new VerdictIntake({
      js: this.layout.js, names: this.opts.names, log: this.opts.log, consumer: this.verdictConsumer,
      running: () => this.state === "leading",
      process: (batch) => this.processVerdicts(batch),
    });
    this.intake.start();
    this.opts.log.info("coordinator leads", { term, runs: this.byId.size, ms: Math.round(performance.now() - t0) });
  }

  /** Stops acting at once (the lease is lost): no loops, no runs in memory; a standby from now on. */
  private async stepDown(reason: string): Promise<void> {
    if (this.state === "closing" || this.state === "closed" || this.state === "created") return;
    this.generation++;
    const was = this.state;
    this.transition("standby");
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const intake = this.intake;
    this.intake = null;
    await intake?.close();
    // The consumer is the next leader's business now: held verdicts go back to JetStream unacked.
    for (const m of this.held.takeAll()) m.nak();
    const runs = [...this.byId.values()];
    this.byId.clear();
    this.stalls = new StallWatch();
    this.ledger.forget();
    this.verdictConsumer = "";
    for (const run of runs) await run.certifier?.close();
    if (was === "leading") this.opts.log.warn("coordinator stepped down: a standby now", { reason });
  }

  /** Where this coordinator's servers listen, for its lease entry (so that standbys and clients can point at it). */
  advertise(addresses: { grpc: string; http: string }): void {
    this.leadership?.advertise(addresses);
  }

  /** Throws NotLeaderError unless this coordinator leads (or is taking over) with a held lease. */
  fence(): void {
    if ((this.state === "leading" || this.state === "taking-over") && this.leadership.held()) return;
    throw new NotLeaderError(this.leader && this.leader.id !== this.id ? this.leader : null);
  }

  /**
   * Before an effect: resolves while this coordinator leads with a held lease; while the lease is lapsed (NATS away,
   * the process was frozen) waits until it is renewed; throws NotLeaderError once it is lost.
   */
  async whenLeading(): Promise<void> {
    if (this.state !== "leading" && this.state !== "taking-over") this.fence();
    if (this.leadership.held()) return;
    await this.leadership.regained().catch(() => undefined);
    this.fence();
  }

  /** API calls that change or load runs: the leader only, once it has taken over. */
  private requireLeading(): void {
    if (this.state !== "leading") throw new NotLeaderError(this.leader && this.leader.id !== this.id ? this.leader : null);
    this.fence();
  }

  private deps() {
    return {
      layout: this.layout,
      jsm: this.opts.jsm,
      ledger: this.ledger,
      names: this.opts.names,
      settings: this.settings,
      log: this.opts.log,
      fence: () => this.whenLeading(),
      publishCancel: (run: string, cube: string, reason: string) => this.publishCancel(run, cube, reason),
      settled: (run: string) => this.intake?.requeue(this.held.take(run)),
      releaseFormula: (sha: string, runId: string) => releaseFormula(this.layout.formulas, sha, runId, this.byId.values(), this.opts.log),
      releaseProofs: (proofs: Iterable<string>, runId: string) =>
        releaseProofs(this.layout.proofs, proofs, runId, [...this.byId.values()].map((r) => ({ id: r.id, state: r.state, proofs: r.model.certification.proofs })), this.opts.log),
    };
  }

  /**
   * Replays the ledger of every run whose record is not terminal, and notes the takeover in each (the entry that
   * fences the coordinator before this one out of the run's ledger).
   */
  private async resumeRuns(term: number): Promise<void> {
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
        const run = await RunController.resume(this.deps(), entries, { actor: this.id, term });
        if (run) this.byId.set(id, run);
      } catch (err) {
        if (err instanceof LedgerFencedError || err instanceof NotLeaderError) throw err;
        this.opts.log.error("cannot resume run", { run: id, err: (err as Error).message });
      }
    }
    if (this.byId.size > 0) this.opts.log.info("runs resumed", { runs: this.byId.size, ms: Math.round(performance.now() - t0) });
  }

  // ---- API --------------------------------------------------------------------------------------------------

  async submitRun(req: RunRequest): Promise<RunController> {
    this.requireLeading();
    const { spec, puzzle } = buildRunSpec(req, Date.now(), this.settings.limits);
    // Ids are never reused, also those of finished runs that are not in memory (their ledger and tasks remain).
    if (this.byId.has(spec.runId) || (await this.runRecord(spec.runId)) !== null || (await this.ledger.runs()).includes(spec.runId)) {
      throw new RunExistsError(spec.runId);
    }
    const run = await RunController.create(this.deps(), spec, puzzle);
    this.byId.set(spec.runId, run);
    return run;
  }

  /** The runs in memory. */
  runs(): IterableIterator<RunController> {
    return this.byId.values();
  }

  getRun(id: string): RunController | undefined {
    return this.byId.get(id);
  }

  /** A run by id: in memory, or rebuilt from its ledger (finished runs after a restart); the leader's only. */
  async loadRun(id: string): Promise<RunController | undefined> {
    const live = this.byId.get(id);
    if (live) return live;
    this.requireLeading();
    const entries = await this.ledger.replay(id);
    if (entries.length === 0) return undefined;
    const run = await RunController.resume(this.deps(), entries);
    if (!run) return undefined;
    this.byId.set(id, run);
    return run;
  }

  /** The run's record in the KV bucket (every run, also finished ones not in memory). */
  async runRecord(id: string): Promise<RunRecord | null> {
    const live = this.byId.get(id);
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
    this.requireLeading();
    const { jsm, names } = this.opts;
    const sha = (await this.runRecord(id))?.spec?.formulaSha256 ?? "";
    const certification = this.byId.get(id)?.model.certification;
    const proofs = certification ? [...certification.proofs.values(), certification.coverageProof].filter((p) => p !== "") : [];
    this.byId.delete(id);
    await deleteRunConsumer(jsm, names, id).catch(() => undefined);
    await purgeRunTasks(jsm, names, id).catch(() => undefined);
    await jsm.streams.purge(names.ledgerStream, { filter: names.ledgerSubject(id) });
    this.ledger.forget(id);
    await this.layout.runs.purge(id);
    await releaseDeletedRun(this.layout, { id, sha, proofs }, await this.listRunRecords().catch(() => []), (other) => this.loadRun(other), this.opts.log);
    this.opts.log.info("run deleted", { run: id });
  }

  async listRunRecords(): Promise<RunRecord[]> {
    const ids = new Set<string>(this.byId.keys());
    for await (const k of await this.layout.runs.keys()) ids.add(k);
    const out: RunRecord[] = [];
    for (const id of ids) {
      const r = await this.runRecord(id);
      if (r?.spec && r.status) out.push(r);
    }
    return out;
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
    if (!(await this.whenLeading().then(() => true, () => false))) {
      // No longer leading: not a verdict is taken or acked; they go back to JetStream for the next leader.
      for (const m of msgs) m.nak();
      return;
    }
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
      const run = this.byId.get(v.runId);
      if (!run || isTerminal(run.state)) {
        if (!run) this.counters.foreignVerdicts++;
        m.ack();
        continue;
      }
      // Leases and identities (coordinator/model/leases.ts): acked, so a dropped verdict is never redelivered.
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
        await this.byId.get(id)!.handleVerdicts(g.verdicts);
      } catch (err) {
        // Not acked: JetStream redelivers them after ack_wait (or to the next leader), and recording is idempotent.
        const fenced = err instanceof LedgerFencedError || err instanceof NotLeaderError;
        if (!fenced) this.opts.log.error("recording verdicts failed; they will be redelivered", { run: id, err: (err as Error).message });
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
      const run = this.byId.get(task.runId);
      if (run) await run.onMaxDeliveries(task.cubeId);
    } catch (err) {
      this.opts.log.debug("max-deliveries advisory not handled", { err: (err as Error).message });
    }
  }

  // ---- workers and status -----------------------------------------------------------------------------------

  /** A heartbeat, believed only as far as coordinator/shell/heartbeats.ts finds it possible. */
  private onWorkerStatus(data: Uint8Array, subject: string): void {
    this.workerTable.record(data, subject, (id: string) => {
      const run = this.byId.get(id);
      // A scan run's portfolio member runs like a cube but is none (coordinator/model/cube-table.ts MemberEntry).
      return run && { createdUnixMs: run.spec.createdUnixMs, hasCube: (cube: string) => run.table.get(cube) !== undefined || run.table.member(cube) !== undefined };
    });
  }

  /** Workers heard from in the last WORKER_SILENCE_MS (proto/contract.ts). */
  liveWorkers(now = Date.now()): WorkerInfo[] {
    return this.workerTable.live(now);
  }

  /** Every worker heard from and not yet forgotten, by id. */
  get workers(): ReadonlyMap<string, WorkerInfo> {
    return this.workerTable.workers;
  }

  /** Tells each run which of its cubes live workers report running, and why its queued cubes wait. */
  private refreshRunning(now: number): void {
    const byRun = this.workerTable.runningByRun(now);
    for (const [id, run] of this.byId) run.setRunning(byRun.get(id) ?? new Map());
    const live = this.liveWorkers(now).map((w) => ({ slots: w.status.slots, runs: w.status.running.map((r) => r.runId) }));
    const briefs = new Map([...this.byId].map(([id, r]) => [id, { name: id, priority: r.priority }]));
    for (const run of this.byId.values()) {
      const c = run.table.snapshotCounts();
      run.setWaiting(waitingReason({ id: run.id, queued: c.queued, running: run.running.size }, live, briefs));
    }
  }

  private async writeStatus(): Promise<void> {
    if ((this.state !== "leading" && this.state !== "closing") || !this.leadership.held()) return;
    const now = Date.now();
    this.refreshRunning(now);
    for (const run of this.byId.values()) {
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
   * once coordinator/model/stall.ts confirms it. Runs that recorded something since the last check are making progress and
   * are not looked at.
   */
  private async checkStalls(): Promise<void> {
    if (this.state !== "leading") return;
    const { cubesStream, runConsumer, frontConsumer, verdictsStream } = this.opts.names;
    const pendingOf = async (stream: string, name: string): Promise<number> => {
      const info = await this.opts.jsm.consumers.info(stream, name).catch(() => null);
      return info ? info.num_pending + info.num_ack_pending : 0;
    };
    let verdictsWaiting: number | null = null;
    for (const run of this.byId.values()) {
      const queued = run.table.snapshotCounts().queued;
      if (run.state !== RunState.RUN_STATE_RUNNING || queued === 0 || !run.table.initialSplitDone) {
        this.stalls.forget(run.id);
        continue;
      }
      const inFlight = run.model.inFlight.size + this.held.heldFor(run.id);
      if (!this.stalls.suspect(run.id, { queued, inFlight, recorded: run.model.applied })) continue;
      try {
        verdictsWaiting ??= await pendingOf(verdictsStream, this.verdictConsumer) + this.held.size;
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
      for (const run of this.byId.values()) await run.splitDone().catch(() => undefined);
      for (const run of this.byId.values()) await run.certifier?.close();
      await this.writeStatus().catch(() => undefined);
      // Last: the lease is deleted, so a standby takes over at once and finds everything written.
      await this.leadership?.stop();
      this.transition("closed");
    })();
    return this.closing;
  }
}
