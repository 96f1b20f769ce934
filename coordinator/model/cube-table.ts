/**
 * The cube table of one run: every cube ever created, its state, and the exact bookkeeping of weights.
 * Pure: no NATS, no clocks. The coordinator feeds it the ledger on resume and live events afterwards, and
 * both paths go through the same methods, so a replayed table equals the live one.
 *
 * States of a cube:
 *   queued   published to the work queue, no verdict yet (it may be running on some worker)
 *   unknown  came back unknown (budget hit), waiting for another attempt or a re-split
 *   unsat    refuted by a solver                               (closed)
 *   sat      a verified solution was found in it               (closed)
 *   failed   gave up after max_deliver errors / deliveries     (finished but not refuted: the run cannot be UNSAT)
 *   resplit  replaced by its children, which carry its weight  (closed; its weight lives on in the children)
 *
 * Subtrees: every cube descends from one initial cube (its id up to the first "."; re-split children are
 * `<parent>.<k>`). The table sums the solver time of every verdict and counts the re-splits per subtree, so a
 * hard region shows as hard even though each child starts with a fresh clock (`cubes list --stuck`).
 *
 * Weights: refuted weight (unsat cubes + branches the splitter refuted) grows monotonically; a run is UNSAT
 * exactly when no cube is queued, unknown or failed, nothing was solved, and (as a cross-check) the refuted
 * weight is 1 up to rounding.
 */

import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import type { VerdictLabel } from "../../proto/vocabulary.js";
import { CubeRecord, subtreeOf, type CubeEntry, type CubeEntryState } from "./cube-entry.js";

/** What a subtree has cost so far. */
export interface SubtreeStats {
  /** Solver time of every verdict (any kind) of every cube in it, ms. */
  spentMs: number;
  /** Re-splits of cubes in it. */
  resplits: number;
}

/** The table's cubes by state (the API's CubeCounts, proto, adds the views "running" and "purged"). */
export interface CubeEntryCounts {
  queued: number;
  unknown: number;
  unsat: number;
  sat: number;
  failed: number;
  resplit: number;
  refutedBySplit: number;
}

/** The result of recording a verdict: what the caller must do next. */
export type RecordOutcome =
  | { kind: "ignored"; why: "unknown-cube" | "already-closed" }
  | { kind: "closed"; state: "unsat" | "sat" }
  | { kind: "unknown"; unknowns: number }
  | { kind: "error"; errors: number };

/**
 * A portfolio member of a scan run: the whole board searched by the engine in another scan order for a budget of its
 * own (docs/cubing.md "Scan cubes"). It is no cube: it carries no weight, and the run never waits for it. Its board
 * ends the run like any other; its exhausted space refutes every open cube. Each attempt is in the ledger (MemberState,
 * coordinator/model/scan-member.ts), so a coordinator that replays it takes the answer of the attempt in flight.
 */
export interface MemberEntry {
  readonly id: string;
  /** The lease of the attempt in flight. */
  readonly lease: string;
  /** Its verdict is still to come (false once one was taken, or the attempt came back). */
  readonly open: boolean;
}

/**
 * The table as its readers see it (the run model's decisions, the shell, the views): every read, no change. The run
 * model's cubes part (coordinator/model/run-cubes.ts) owns the table and changes it only as ledger entries say.
 */
export interface CubeTableView {
  readonly size: number;
  /** Cubes the initial split made (its target is a goal, not a promise: 256 asked may give 258). */
  readonly initialCubes: number;
  /** Set once the initial split has been fully recorded. */
  readonly initialSplitDone: boolean;
  /** Weight the initial split refuted by itself (it arrives at once, so rates leave it out). */
  readonly initialRefutedWeight: number;
  /** Closed (refuted) weight: unsat cubes plus branches the splitter refuted. 0..1. */
  readonly refutedWeight: number;
  readonly failedWeight: number;
  /** Cubes still to be decided: queued or unknown. */
  readonly open: number;
  /** Every cube is decided and none failed: together with no solution this means UNSAT. */
  readonly complete: boolean;
  get(id: string): CubeEntry | undefined;
  member(id: string): MemberEntry | undefined;
  entries(): IterableIterator<CubeEntry>;
  /** Solver time and re-splits of the subtree `id` belongs to (zeros when nothing was recorded yet). */
  subtree(id: string): Readonly<SubtreeStats>;
  /** Counts by state (a copy). */
  snapshotCounts(): CubeEntryCounts;
  queued(): IterableIterator<CubeEntry>;
  failed(): IterableIterator<CubeEntry>;
  unknowns(): IterableIterator<CubeEntry>;
}

/** Kahan-compensated running sum: 200,000 small weights must add up to 1 within 1e-12. */
export class Sum {
  private sum = 0;
  private c = 0;
  add(x: number): void {
    const y = x - this.c;
    const t = this.sum + y;
    this.c = (t - this.sum) - y;
    this.sum = t;
  }
  get value(): number {
    return this.sum;
  }
}

export class CubeTable implements CubeTableView {
  private readonly cubes = new Map<string, CubeRecord>();
  private readonly members = new Map<string, { id: string; lease: string; open: boolean }>();
  private readonly refuted = new Sum();
  private readonly failedWeightSum = new Sum();
  private initialRefuted = 0;
  private readonly subtrees = new Map<string, SubtreeStats>();
  private readonly counts: CubeEntryCounts = { queued: 0, unknown: 0, unsat: 0, sat: 0, failed: 0, resplit: 0, refutedBySplit: 0 };
  /** Cubes the initial split made (its target is a goal, not a promise: 256 asked may give 258). */
  initialCubes = 0;
  /** Set once the initial split has been fully recorded. */
  initialSplitDone = false;

  get size(): number {
    return this.cubes.size;
  }

  get(id: string): CubeEntry | undefined {
    return this.cubes.get(id);
  }

  /** Records a portfolio member sent out with this lease (no weight, not counted among the cubes); replaces an earlier attempt. */
  addMember(id: string, lease: string): MemberEntry {
    if (this.cubes.has(id)) throw new Error(`member ${id}: a cube has that id`);
    const m = { id, lease, open: true };
    this.members.set(id, m);
    return m;
  }

  /** The member's attempt is answered: no verdict of it is taken after this one. */
  closeMember(id: string): void {
    const m = this.members.get(id);
    if (m) m.open = false;
  }

  member(id: string): MemberEntry | undefined {
    return this.members.get(id);
  }

  entries(): IterableIterator<CubeEntry> {
    return this.cubes.values();
  }

  /** Solver time and re-splits of the subtree `id` belongs to (zeros when nothing was recorded yet). */
  subtree(id: string): Readonly<SubtreeStats> {
    return this.subtrees.get(subtreeOf(id)) ?? { spentMs: 0, resplits: 0 };
  }

  private subtreeEntry(id: string): SubtreeStats {
    const key = subtreeOf(id);
    let s = this.subtrees.get(key);
    if (!s) this.subtrees.set(key, (s = { spentMs: 0, resplits: 0 }));
    return s;
  }

  /** Counts by state (a copy). */
  snapshotCounts(): CubeEntryCounts {
    return { ...this.counts };
  }

  /** Weight the initial split refuted by itself (it arrives at once, so rates leave it out). */
  get initialRefutedWeight(): number {
    return this.initialRefuted;
  }

  /** Closed (refuted) weight: unsat cubes plus branches the splitter refuted. 0..1. */
  get refutedWeight(): number {
    return this.refuted.value;
  }

  get failedWeight(): number {
    return this.failedWeightSum.value;
  }

  /** Cubes still to be decided: queued or unknown. */
  get open(): number {
    return this.counts.queued + this.counts.unknown;
  }

  private setState(e: CubeRecord, next: CubeEntryState): void {
    this.counts[e.state]--;
    e.state = next;
    this.counts[next]++;
  }

  /**
   * Records cubes created by a split (parent undefined: the initial split) or a re-split of `parent`. Ids must
   * be new; a repeated id (a replayed or duplicated batch) is ignored so that replay is idempotent.
   */
  addCubes(
    parent: string | undefined,
    cubes: ReadonlyArray<{ id: string; placements: readonly Placement[]; branching: readonly number[]; seq?: number; lease?: string; part?: CubePart }>,
    refuted?: { count: number; weight: number },
  ): CubeEntry[] {
    const added: CubeEntry[] = [];
    if (parent !== undefined) {
      const p = this.cubes.get(parent);
      if (p && p.state === "failed") this.failedWeightSum.add(-p.weight);
      if (p && p.state !== "resplit") {
        this.setState(p, "resplit");
        this.subtreeEntry(parent).resplits++;
      }
    }
    for (const c of cubes) {
      if (this.cubes.has(c.id)) continue;
      const e = new CubeRecord(c.id, c.placements, c.branching, c.seq ?? 0, c.lease ?? "", c.part ? { k: c.part.k, n: c.part.n, depth: c.part.depth, ...(c.part.from ? { from: c.part.from } : {}) } : undefined);
      this.cubes.set(c.id, e);
      this.counts.queued++;
      if (parent === undefined) this.initialCubes++;
      added.push(e);
    }
    if (refuted && refuted.count > 0) {
      this.counts.refutedBySplit += refuted.count;
      this.refuted.add(refuted.weight);
      if (parent === undefined) this.initialRefuted += refuted.weight;
    }
    return added;
  }

  /** A solver verdict for a cube. Each cube closes once; later verdicts are ignored. */
  recordVerdict(id: string, kind: VerdictLabel, info: { worker?: string; wallMs?: number; reason?: string; progress?: PartProgress } = {}): RecordOutcome {
    const e = this.cubes.get(id);
    if (!e) return { kind: "ignored", why: "unknown-cube" };
    if (e.state !== "queued" && e.state !== "unknown") return { kind: "ignored", why: "already-closed" };
    const ms = info.wallMs ?? 0;
    if (Number.isFinite(ms) && ms > 0) this.subtreeEntry(id).spentMs += ms;
    if (kind === "unsat" || kind === "sat") {
      this.setState(e, kind);
      e.worker = info.worker;
      e.wallMs = info.wallMs;
      if (kind === "unsat") this.refuted.add(e.weight);
      return { kind: "closed", state: kind };
    }
    if (kind === "unknown") {
      e.unknowns++;
      e.reason = info.reason;
      const p = info.progress;
      if (p && (!e.progress || p.depth !== e.progress.depth || p.next > e.progress.next)) e.progress = { next: p.next, depth: p.depth };
      if (e.state !== "unknown") this.setState(e, "unknown");
      return { kind: "unknown", unknowns: e.unknowns };
    }
    e.errors++;
    e.reason = info.reason;
    const w = info.worker ?? "";
    e.errorWorkers ??= [];
    if (!e.errorWorkers.includes(w)) e.errorWorkers.push(w);
    return { kind: "error", errors: e.errors };
  }

  /**
   * A cube sent out again with a new task (another attempt after an unknown or error verdict, a stall, or a retry of
   * a failed cube, which starts over with no errors).
   */
  requeue(id: string, seq = 0, lease = ""): boolean {
    const e = this.cubes.get(id);
    if (!e || (e.state !== "unknown" && e.state !== "failed" && e.state !== "queued" && e.state !== "unsat")) return false;
    e.seq = seq;
    e.lease = lease;
    // A refutation undone: its worker was distrusted by a spot check (coordinator/model/run-trust.ts).
    if (e.state === "unsat") {
      this.refuted.add(-e.weight);
      e.worker = undefined;
    }
    if (e.state === "failed") {
      this.failedWeightSum.add(-e.weight);
      e.errors = 0;
      e.errorWorkers = undefined;
    }
    if (e.state !== "queued") this.setState(e, "queued");
    return true;
  }

  /** Gives up on a cube (max deliveries exceeded). */
  markFailed(id: string, reason: string): boolean {
    const e = this.cubes.get(id);
    if (!e || (e.state !== "queued" && e.state !== "unknown")) return false;
    this.setState(e, "failed");
    e.reason = reason;
    this.failedWeightSum.add(e.weight);
    return true;
  }

  /** Every cube is decided and none failed: together with `solutions === 0` this means UNSAT. */
  get complete(): boolean {
    return this.initialSplitDone && this.open === 0;
  }

  /** Queued cubes (for re-publishing after a restart). */
  *queued(): IterableIterator<CubeEntry> {
    for (const e of this.cubes.values()) if (e.state === "queued") yield e;
  }

  /** Failed cubes (a resumed FAILED run sends them again). */
  *failed(): IterableIterator<CubeEntry> {
    for (const e of this.cubes.values()) if (e.state === "failed") yield e;
  }

  /** Cubes waiting in state unknown (re-split or retry pending). */
  *unknowns(): IterableIterator<CubeEntry> {
    for (const e of this.cubes.values()) if (e.state === "unknown") yield e;
  }
}
