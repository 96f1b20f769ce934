/**
 * The leader lease's decisions, pure (coordinator/shell/leadership.ts does the KV I/O). One coordinator per prefix leads;
 * the others are standbys. The lease is one KV entry (bucket `<p>-leader`, key `leader`) that the leader rewrites
 * every `renewMs` with an expected revision, so that two writers can never both succeed.
 *
 * No clocks are compared across machines. A standby notes when it first saw the entry's current revision, by its
 * own monotonic clock, and takes over (a write expecting that revision) once the revision has not changed for
 * `leaseMs`. The leader counts from when it *sent* its last renewal that JetStream took, by its own clock, and stops
 * acting once `fenceMs` has passed without a newer one. Since the standby's wait starts after that renewal was
 * stored, and `fenceMs < leaseMs`, an old leader stops before a standby can start (clock rates aside, which drift by
 * parts per million). A leader that was frozen (SIGSTOP, a long pause) past its lease wakes up with its lease no
 * longer valid; every ledger write it might still make is fenced by JetStream (coordinator/shell/ledger.ts).
 */

/** How the lease is timed (ms). */
export interface LeaseTimings {
  /** How often the leader renews and a standby looks. @default 1000 */
  readonly renewMs: number;
  /** How long a standby waits for a revision that does not change before it takes over. @default 6000 */
  readonly leaseMs: number;
  /** How long after its last renewal was sent a leader stops acting. @default 4000 */
  readonly fenceMs: number;
}

export const DEFAULT_LEASE_TIMINGS: LeaseTimings = Object.freeze({ renewMs: 1000, leaseMs: 6000, fenceMs: 4000 });

/** Timings for a lease of `leaseMs` (`--leader-lease`): renewed six times within it, the leader fenced at 2/3. */
export function leaseTimings(leaseMs: number): LeaseTimings {
  if (!(Number.isFinite(leaseMs) && leaseMs >= 600)) throw new Error(`a leader lease must be at least 0.6 s, got ${leaseMs} ms`);
  return Object.freeze({ renewMs: Math.round(leaseMs / 6), leaseMs, fenceMs: Math.round((leaseMs * 2) / 3) });
}

/** The lease entry's value: who leads, for how many terms the lease has changed hands, and where to reach it. */
export interface LeaderRecord {
  /** This coordinator's instance id (random per process start). */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Increases by one at every takeover; the verdict consumer and the takeover entries carry it. */
  readonly term: number;
  /** gRPC and HTTP addresses ("" when off), so that standbys and clients can point at the leader. */
  readonly grpc: string;
  readonly http: string;
  /** When this leader took the lease (its own clock, for display). */
  readonly sinceUnixMs: number;
}

/** True while a leader may act: its last renewal that JetStream took was sent less than `fenceMs` ago. */
export function leaseHeld(lastRenewSentAt: number, now: number, t: LeaseTimings): boolean {
  return now - lastRenewSentAt < t.fenceMs;
}

/**
 * What a standby does with the entry it read (null: none, or deleted; a record that does not parse is a lease held by
 * someone): take an empty or deleted lease at once (create), take over a lease
 * whose revision has not moved for `leaseMs` (or whose holder is a dead process on this very host), or wait.
 */
export function standbyStep(
  seen: { revision: number; sinceMs: number } | null,
  entry: { revision: number; record: LeaderRecord | null } | null,
  now: number,
  t: LeaseTimings,
  deadHere: (r: LeaderRecord) => boolean,
): { action: "create" } | { action: "take-over"; revision: number } | { action: "wait"; seen: { revision: number; sinceMs: number } } {
  if (entry === null) return { action: "create" };
  if (entry.record !== null && deadHere(entry.record)) return { action: "take-over", revision: entry.revision };
  if (seen === null || seen.revision !== entry.revision) return { action: "wait", seen: { revision: entry.revision, sinceMs: now } };
  if (now - seen.sinceMs >= t.leaseMs) return { action: "take-over", revision: entry.revision };
  return { action: "wait", seen };
}

/** The record read back, or null when it is not one (then the lease is treated as held by an unknown leader). */
export function parseLeaderRecord(data: Uint8Array): LeaderRecord | null {
  try {
    const r = JSON.parse(new TextDecoder().decode(data)) as Partial<LeaderRecord>;
    if (typeof r.id !== "string" || typeof r.term !== "number" || !Number.isInteger(r.term) || r.term < 0) return null;
    return {
      id: r.id.slice(0, 64), host: String(r.host ?? "").slice(0, 255), pid: Number(r.pid) || 0, term: r.term,
      grpc: String(r.grpc ?? "").slice(0, 255), http: String(r.http ?? "").slice(0, 255), sinceUnixMs: Number(r.sinceUnixMs) || 0,
    };
  } catch {
    return null;
  }
}
