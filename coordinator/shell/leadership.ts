/**
 * The leader lease in JetStream KV (the decisions: coordinator/model/leader-lease.ts). States: "standby" (looks at the
 * lease every renewMs and takes it when it is free or has lapsed) and "leader" (renews it every renewMs). A leader
 * whose renewal is refused (another coordinator took the lease) loses it at once: `lost` is emitted and it is a
 * standby again. A leader that has not renewed within fenceMs (NATS away, the process frozen) is suspended: `held()`
 * is false, so it writes nothing, and `regained()` waits until a renewal expecting its own last revision succeeds
 * (nobody took the lease meanwhile: nobody else wrote either, so it goes on with its state as it is) or is refused
 * (then the lease is lost). On a graceful stop the leader deletes the entry, so that a standby takes over at once.
 */

import { EventEmitter } from "node:events";
import { hostname } from "node:os";
import type { KV } from "@nats-io/kv";
import type { Logger } from "../../cluster/log.js";
import { leaseHeld, parseLeaderRecord, standbyStep, type LeaderRecord, type LeaseTimings } from "../model/leader-lease.js";

/** The lease's key in the leader bucket. */
export const LEADER_KEY = "leader";

export type Role = "standby" | "leader";

export interface LeadershipEvents {
  /** This coordinator took the lease, for term `term`. */
  elected: [term: number];
  /** It lost the lease and is a standby again. */
  lost: [reason: string];
}

/** Who this coordinator is, as its lease entry says. */
export interface Candidate {
  readonly id: string;
  readonly grpc: string;
  readonly http: string;
}

/** True when `pid` is a live process here. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class Leadership extends EventEmitter<LeadershipEvents> {
  role: Role = "standby";
  /** The leader as last seen (this coordinator's own record while it leads); null when none is known. */
  leader: LeaderRecord | null = null;
  private revision = 0;
  private lastRenewSentAt = -Infinity;
  private seen: { revision: number; sinceMs: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;
  /** Writers waiting for a suspended lease to be renewed (or lost). */
  private waiters: Array<{ resolve(): void; reject(err: Error): void }> = [];
  private readonly host = hostname();

  constructor(
    private readonly kv: KV,
    private self: Candidate,
    private readonly timings: LeaseTimings,
    private readonly log: Logger,
    private readonly clock: () => number = () => performance.now(),
  ) {
    super();
  }

  /** The current term (0 before any leader was seen). */
  get term(): number {
    return this.leader?.term ?? 0;
  }

  /** True while this coordinator leads and its lease is still valid by its own clock. */
  held(): boolean {
    return this.role === "leader" && leaseHeld(this.lastRenewSentAt, this.clock(), this.timings);
  }

  /** Where this coordinator serves, once its servers listen (the next renewal writes it, when it leads). */
  advertise(addresses: Pick<Candidate, "grpc" | "http">): void {
    this.self = { ...this.self, ...addresses };
    if (this.role === "leader" && this.leader?.id === this.self.id) this.leader = { ...this.leader, ...addresses };
  }

  /** Makes the first attempt (a free lease is taken at once), then keeps looking or renewing every renewMs. */
  async start(): Promise<void> {
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.timings.renewMs);
  }

  /** One look or renewal; a tick still running makes this one a no-op. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.ticking ??= (this.role === "leader" ? this.renew() : this.look()).finally(() => { this.ticking = null; });
    return this.ticking;
  }

  /**
   * Resolves once the lease is held (at once when it is); rejects when it is lost, or this coordinator does not lead.
   * A suspended leader's writes wait here for NATS, as its ledger appends would.
   */
  regained(): Promise<void> {
    if (this.held()) return Promise.resolve();
    if (this.role !== "leader") return Promise.reject(new Error("this coordinator does not lead"));
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** Gives the lease up now (another coordinator wrote, or taking over failed): `lost` is emitted once. */
  relinquish(reason: string): void {
    if (this.role !== "leader") return;
    this.role = "standby";
    this.seen = null;
    for (const w of this.waiters.splice(0)) w.reject(new Error(`leader lease lost: ${reason}`));
    this.log.warn("leader lease lost; this coordinator is a standby now", { reason, term: this.term });
    this.emit("lost", reason);
  }

  /** Stops; a leader deletes its entry (expecting its own revision) so that a standby takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.ticking?.catch(() => undefined);
    if (this.role !== "leader") return;
    this.role = "standby";
    await this.kv.delete(LEADER_KEY, { previousSeq: this.revision }).catch((err: Error) => this.log.debug("leader lease not released", { err: err.message }));
  }

  private async renew(): Promise<void> {
    const sentAt = this.clock();
    const lapsed = !this.held();
    try {
      this.revision = await this.kv.update(LEADER_KEY, this.encode(this.leader!), this.revision);
      this.lastRenewSentAt = sentAt;
      if (lapsed) this.log.warn("leader lease renewed after a lapse: nobody took it meanwhile; going on", { term: this.term });
      for (const w of this.waiters.splice(0)) w.resolve();
    } catch (err) {
      if (isWrongRevision(err)) return this.relinquish("another coordinator holds the leader lease");
      if (!lapsed && !this.held()) this.log.warn("leader lease lapsed: writing nothing until it is renewed or lost", { ms: Math.round(this.clock() - this.lastRenewSentAt), err: (err as Error).message });
      else this.log.debug("leader lease not renewed", { err: (err as Error).message });
    }
  }

  /** The lease entry as it is now (null: none, or deleted), or undefined when it could not be read. */
  private async read(): Promise<{ revision: number; record: LeaderRecord | null } | null | undefined> {
    try {
      const e = await this.kv.get(LEADER_KEY);
      return e && e.operation === "PUT" ? { revision: e.revision, record: parseLeaderRecord(e.value) } : null;
    } catch (err) {
      this.log.debug("leader lease not read", { err: (err as Error).message });
      return undefined;
    }
  }

  private async look(): Promise<void> {
    const entry = await this.read();
    if (entry === undefined) return;
    const step = standbyStep(this.seen, entry, this.clock(), this.timings, (r) => r.host === this.host && r.id !== this.self.id && r.pid > 0 && !pidAlive(r.pid));
    if (step.action === "wait") return this.note(entry, step.seen);
    const term = (entry?.record?.term ?? this.leader?.term ?? 0) + 1;
    const record: LeaderRecord = { id: this.self.id, host: this.host, pid: process.pid, term, grpc: this.self.grpc, http: this.self.http, sinceUnixMs: Date.now() };
    const sentAt = this.clock();
    try {
      this.revision = step.action === "create"
        ? await this.kv.create(LEADER_KEY, this.encode(record))
        : await this.kv.update(LEADER_KEY, this.encode(record), step.revision);
    } catch (err) {
      // Another standby was quicker (then it is the leader to note now), or NATS is away: look again next tick.
      this.log.debug("leader lease not taken", { err: (err as Error).message });
      const now = await this.read();
      if (now) this.note(now, { revision: now.revision, sinceMs: this.clock() });
      else this.seen = null;
      return;
    }
    this.lastRenewSentAt = sentAt;
    this.leader = record;
    this.role = "leader";
    this.log.info("leader lease taken", { term, previous: entry?.record?.id ?? "none", how: step.action });
    this.emit("elected", term);
  }

  /** Notes the lease as held by another coordinator (seen at that revision since `seen.sinceMs`). */
  private note(entry: { revision: number; record: LeaderRecord | null } | null, seen: { revision: number; sinceMs: number }): void {
    if (entry?.record && entry.record.id !== this.leader?.id) this.log.info("standby: another coordinator is the leader", { leader: entry.record.id, host: entry.record.host, term: entry.record.term, grpc: entry.record.grpc });
    this.seen = seen;
    this.leader = entry?.record ?? null;
  }

  private encode(r: LeaderRecord): Uint8Array {
    return new TextEncoder().encode(JSON.stringify(r));
  }
}

/** The server refused a write that expected another revision (JetStream error 10071), or the key exists (create). */
function isWrongRevision(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e?.code === 10071 || /wrong last sequence|key exists/i.test(e?.message ?? "");
}
