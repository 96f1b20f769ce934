/**
 * The coordinator: owns the JetStream layout, the runs (coordinator/shell/run-store.ts) and the verdict consumer. It
 * keeps no state of its own: on taking the lead it replays every unfinished run's ledger (coordinator/shell/ledger.ts)
 * and continues.
 *
 * One coordinator per prefix leads; any other is a standby (coordinator/shell/leadership.ts: a lease in JetStream KV).
 * States: created -> starting -> standby <-> taking-over -> leading -> closing -> closed. A standby serves what it can
 * read (run records, its workers table) and refuses every change (NotLeaderError, naming the leader); it takes the
 * lead when the lease is free or has lapsed (after a kill -9: within the lease, 6 s by default). The leader stops
 * acting the moment its lease is not held: every effect checks it first (`fence`), and its ledger writes are fenced
 * by JetStream, so a leader frozen past its lease writes nothing after it wakes (docs/operations.md "Leadership").
 *
 * Loops while leading: the verdict consumer of its term (coordinator/shell/verdict-intake.ts, then
 * coordinator/shell/verdict-router.ts: group by run, record, then ack), the MAX_DELIVERIES advisory (cubes JetStream
 * gave up on), a status writer (run records to KV once a second) and a stall check (coordinator/shell/run-upkeep.ts).
 * Worker heartbeats are read in every state.
 */

import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { ensureLayout, ensureLeaderBucket, takeVerdictConsumer, type Layout } from "../../cluster/layout.js";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import { Cancel, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { RunRecord } from "../../proto/gen/cubist/v1/run.js";
import { DEFAULT_SETTINGS, DEFAULT_STALL_CHECK_MS, DEFAULT_STATUS_INTERVAL_MS, type CoordinatorSettings } from "../config.js";
import { NotLeaderError } from "../errors.js";
import { HeldVerdicts } from "../model/verdict-hold.js";
import { QuarantineNotes } from "./quarantine-notes.js";
import type { RunRequest } from "../run-spec.js";
import { Rejections } from "./heartbeats.js";
import { Leadership } from "./leadership.js";
import { Ledger } from "./ledger.js";
import type { RunController } from "./run.js";
import { RunStore } from "./run-store.js";
import { RunUpkeep } from "./run-upkeep.js";
import { VerdictIntake } from "./verdict-intake.js";
import { VerdictRouter, type CoordinatorCounters } from "./verdict-router.js";
import { DEFAULT_LEASE_TIMINGS, type LeaderRecord, type LeaseTimings } from "../model/leader-lease.js";
import { distrustedIn, distrustReason, hasChecker, leaseOf, WorkerTable, type WorkerInfo } from "./worker-table.js";

export type { WorkerInfo };

export interface CoordinatorOptions {
  nc: NatsConnection;
  jsm: JetStreamManager;
  names: Names;
  log: Logger;
  settings?: Partial<CoordinatorSettings>;
  /** Stream and bucket replicas. @default 1 */
  replicas?: number;
  /** Proofs handed over as files here instead of the proofs stream (cluster/layout.ts LayoutOptions). @default null */
  proofHandoffDir?: string | null;
  /** How often run records are written to KV. @default 1000 */
  statusIntervalMs?: number;
  /** How often the stall check runs. @default 1000 */
  stallCheckMs?: number;
  /** The leader lease's timings (coordinator/model/leader-lease.ts). @default DEFAULT_LEASE_TIMINGS */
  lease?: LeaseTimings;
  /** Where this coordinator serves, written in its lease entry so that standbys and clients find the leader. */
  addresses?: { grpc?: string; http?: string };
}

/** "taking-over": the lease is held, and the runs are being resumed; its effects may be written, the API waits. */
type State = "created" | "starting" | "standby" | "taking-over" | "leading" | "closing" | "closed";

/** How long an API call that changes runs waits for a takeover in progress before it answers "not the leader". */
const TAKEOVER_WAIT_MS = 30_000;

export class Coordinator {
  /** This process's instance id, in its lease entry and takeover notes. */
  readonly id = `${randomBytes(4).toString("hex")}`;
  private state: State = "created";
  private layout!: Layout;
  private ledger!: Ledger;
  /** The runs in memory (every open run while it leads, finished ones loaded on demand) and their JetStream state. */
  private store!: RunStore;
  private leadership!: Leadership;
  private readonly workerTable: WorkerTable;
  /** Workers quarantined or back, noted on the runs' timelines. */
  private readonly quarantineNotes: QuarantineNotes;
  private readonly settings: CoordinatorSettings;
  private readonly subs: Subscription[] = [];
  private timers: NodeJS.Timeout[] = [];
  private intake: VerdictIntake | null = null;
  /** The verdict consumer of this coordinator's term ("" while it does not lead). */
  private verdictConsumer = "";
  /** Increases at every lead and step-down, so that a takeover in progress sees it was overtaken. */
  private generation = 0;
  private takingOver: Promise<void> | null = null;
  /** The first look at the lease (and the takeover it may start); `looked` once it is done. */
  private looked = false;
  private lookDone: () => void = () => undefined;
  private readonly firstLook = new Promise<void>((resolve) => { this.lookDone = resolve; });
  /** Verdicts whose tasks are still in flight, unacked until their run records them (coordinator/model/verdict-hold.ts). */
  private readonly held = new HeldVerdicts<JsMsg>();
  private readonly router: VerdictRouter;
  private readonly upkeep: RunUpkeep;
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
    this.quarantineNotes = new QuarantineNotes(opts.log);
    this.router = new VerdictRouter({
      names: opts.names, log: opts.log, counters: this.counters, rejections: this.rejections, verdictTap: this.verdictTap, held: this.held,
      run: (id) => this.getRun(id),
      whenLeading: () => this.whenLeading(),
    });
    this.upkeep = new RunUpkeep({
      runs: () => this.runs(), workers: this.workerTable, held: this.held, jsm: opts.jsm, names: opts.names, log: opts.log,
      mayWrite: () => (this.state === "leading" || this.state === "closing") && this.leadership.held(),
      leading: () => this.state === "leading",
      verdictConsumer: () => this.verdictConsumer,
    });
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

  /** Opens the layout and campaigns for the lead (`open`, then `campaign`). */
  async start(): Promise<void> {
    await this.open();
    await this.campaign();
  }

  /**
   * The layout, the ledger, the heartbeat and advisory subscriptions, the lease: what the servers read. A standby
   * from then on; `campaign` takes the lead when it can (the process starts its servers in between, so that they
   * answer while a large run is taken over).
   */
  async open(): Promise<void> {
    if (this.state !== "created") throw new Error(`coordinator already ${this.state}`);
    this.transition("starting");
    const { nc, jsm, names, log } = this.opts;
    this.layout = await ensureLayout(nc, jsm, names, { replicas: this.opts.replicas ?? 1, proofHandoffDir: this.opts.proofHandoffDir ?? null });
    this.ledger = new Ledger(this.layout.js, names, (attempt, err) => {
      if (attempt === 1 || attempt % 10 === 0) log.warn("ledger append failed; retrying", { attempt, err: err.message });
    }, (err) => this.leadership.relinquish(err.message));
    this.store = new RunStore({
      layout: this.layout, jsm, ledger: this.ledger, names, settings: this.settings, log,
      fence: () => this.whenLeading(),
      publishCancel: (run, cube, reason) => this.publishCancel(run, cube, reason),
      settled: (run) => this.intake?.requeue(this.held.take(run)),
      liveSlots: () => this.workerTable.live().reduce((n, w) => n + w.status.slots, 0),
      running: (run) => [...(this.workerTable.runningByRun().get(run) ?? new Map<string, { since: number }>()).entries()].map(([cube, w]) => ({ cube, sinceMs: w.since })),
      checkers: (worker) => this.hasChecker(worker),
      distrustedElsewhere: (worker) => distrustReason(this.runs(), worker),
    });
    this.subs.push(nc.subscribe(names.workerWildcard(), { callback: (err, msg) => { if (!err) this.onWorkerStatus(msg.data, msg.subject); } }));
    this.subs.push(nc.subscribe(`$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${names.cubesStream}.*`, {
      callback: (err, msg) => { if (!err) void this.store.onMaxDeliveries(msg.data); },
    }));
    const kv = await ensureLeaderBucket(nc, names, this.opts.replicas ?? 1);
    this.leadership = new Leadership(kv, { id: this.id, grpc: this.opts.addresses?.grpc ?? "", http: this.opts.addresses?.http ?? "" }, this.opts.lease ?? DEFAULT_LEASE_TIMINGS, log);
    this.leadership.on("elected", (term) => { this.takingOver = this.lead(term); });
    this.leadership.on("lost", (reason) => void this.stepDown(reason));
    this.transition("standby");
  }

  /** Campaigns for the lead: takes a free lease at once (and the runs with it), or stands by and keeps looking. */
  async campaign(): Promise<void> {
    const { names, log } = this.opts;
    try {
      await this.leadership.start();
      await this.takingOver;
    } finally {
      this.looked = true;
      this.lookDone();
    }
    if (this.role === "standby") log.info("coordinator started as a standby", { prefix: names.prefix, leader: this.leader?.id ?? "unknown", grpc: this.leader?.grpc ?? "" });
    else log.info("coordinator started", { prefix: names.prefix, runs: this.store.size, term: this.leadership.term });
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
      await this.store.resumeOpen({ actor: this.id, term });
      if (overtaken()) return;
    } catch (err) {
      this.opts.log.error("taking the lead failed; standing by", { err: (err as Error).message });
      this.leadership.relinquish(`taking the lead failed: ${(err as Error).message}`);
      return;
    }
    this.counters.takeovers++;
    this.timers.push(setInterval(() => void this.upkeep.writeStatus(), this.opts.statusIntervalMs ?? DEFAULT_STATUS_INTERVAL_MS));
    this.timers.push(setInterval(() => void this.upkeep.checkStalls(), this.opts.stallCheckMs ?? DEFAULT_STALL_CHECK_MS));
    this.transition("leading");
    this.intake = new VerdictIntake({
      js: this.layout.js, names: this.opts.names, log: this.opts.log, consumer: this.verdictConsumer,
      running: () => this.state === "leading",
      process: (batch) => this.router.processVerdicts(batch),
    });
    this.intake.start();
    this.opts.log.info("coordinator leads", { term, runs: this.store.size, ms: Math.round(performance.now() - t0) });
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
    const runs = this.store.clear();
    this.upkeep.reset();
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

  /**
   * API calls that change or load runs: the leader only. A call that comes while this coordinator makes its first
   * look at the lease, or takes the lead, waits for that (up to TAKEOVER_WAIT_MS) rather than failing.
   */
  private async requireLeading(): Promise<void> {
    const wait = (p: Promise<unknown> | null): Promise<unknown> =>
      p ? Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, TAKEOVER_WAIT_MS).unref())]) : Promise.resolve();
    if (this.state === "starting" || (this.state === "standby" && !this.looked)) await wait(this.firstLook);
    if (this.state === "taking-over") await wait(this.takingOver);
    if (this.state !== "leading") throw new NotLeaderError(this.leader && this.leader.id !== this.id ? this.leader : null);
    this.fence();
  }

  // ---- API --------------------------------------------------------------------------------------------------

  async submitRun(req: RunRequest): Promise<RunController> {
    await this.requireLeading();
    return this.store.submit(req);
  }

  /** The runs in memory. */
  runs(): IterableIterator<RunController> {
    return this.store?.values() ?? [].values();
  }

  getRun(id: string): RunController | undefined {
    return this.store?.get(id);
  }

  /** A run by id: in memory, or rebuilt from its ledger (finished runs after a restart); the leader's only. */
  async loadRun(id: string): Promise<RunController | undefined> {
    const live = this.getRun(id);
    if (live) return live;
    await this.requireLeading();
    return this.store.load(id);
  }

  /** The run's record in the KV bucket (every run, also finished ones not in memory). */
  runRecord(id: string): Promise<RunRecord | null> {
    return this.store.record(id);
  }

  /** Forgets a run that has ended (the caller checks that): coordinator/shell/run-store.ts `delete`. */
  async deleteRun(id: string): Promise<void> {
    await this.requireLeading();
    await this.store.delete(id, (other) => this.loadRun(other));
  }

  listRunRecords(): Promise<RunRecord[]> {
    return this.store.listRecords();
  }

  publishCancel(run: string, cube: string, reason: string): void {
    try {
      this.opts.nc.publish(this.opts.names.cancelSubject(run, cube || undefined), Cancel.encode({ runId: run, cubeId: cube, reason }).finish());
    } catch (err) {
      this.opts.log.warn("cancel not published", { run, cube, err: (err as Error).message });
    }
  }

  // ---- workers and status -----------------------------------------------------------------------------------

  /** A heartbeat, believed only as far as coordinator/shell/heartbeats.ts finds it possible. */
  private onWorkerStatus(data: Uint8Array, subject: string): void {
    const seen = this.workerTable.record(data, subject, (id: string) => {
      const run = this.store.get(id);
      // A scan run's portfolio member runs like a cube but is none (coordinator/model/cube-table.ts MemberEntry).
      return run && { createdUnixMs: run.spec.createdUnixMs, leaseOf: (cube: string) => leaseOf(run.table, cube) };
    });
    if (!seen || this.state !== "leading") return;
    this.quarantineNotes.seen(seen.status, this.runs());
    if (seen.orphans) this.store.requeueOrphans(seen.orphans);
  }

  /** Workers whose verdicts are not taken: a spot check disproved one (coordinator/model/run-trust.ts). */
  get distrusted(): ReadonlyMap<string, string> {
    return distrustedIn(this.runs());
  }

  /** A live worker other than `worker` that the coordinator trusts can solve a spot check of its refutation. */
  private hasChecker(worker: string): boolean {
    return hasChecker(this.workerTable.live(), this.distrusted, worker);
  }

  /** Workers heard from in the last WORKER_SILENCE_MS (proto/contract.ts). */
  liveWorkers(now = Date.now()): WorkerInfo[] {
    return this.workerTable.live(now);
  }

  /** Every worker heard from and not yet forgotten, by id. */
  get workers(): ReadonlyMap<string, WorkerInfo> {
    return this.workerTable.workers;
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
      for (const run of this.runs()) await run.splitDone().catch(() => undefined);
      for (const run of this.runs()) await run.certifier?.close();
      await this.upkeep.writeStatus().catch(() => undefined);
      // Last: the lease is deleted, so a standby takes over at once and finds everything written.
      await this.leadership?.stop();
      this.transition("closed");
    })();
    return this.closing;
  }
}
