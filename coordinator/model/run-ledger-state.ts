/**
 * A run's state as its ledger builds it, for the run model (coordinator/model/run-model.ts), which makes every decision
 * and extends this class. State changes only through `apply(ledgerEntry)`: replaying a run's ledger calls it for
 * each stored entry, and the live paths call it for each entry they record (`record`, `applyAndRecord`), so a
 * replayed run equals the live one by construction. Also the reads of a certified run's cubes that
 * coordinator/shell/certify.ts proves and checks (`unitsOf`, `refutedCubes`).
 */

import type { Logger } from "../../cluster/log.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry, MemberState } from "../../proto/gen/cubist/v1/ledger.js";
import { RunMode, RunState, type BestBoard, type RunSpec, type Solution } from "../../proto/gen/cubist/v1/run.js";
import type { Placement } from "../../proto/gen/cubist/v1/cube.js";
import { isTerminal, verdictLabel } from "../../proto/vocabulary.js";
import { CubeTable, Sum, type CubeEntry } from "./cube-table.js";
import { WorkEstimate } from "./work-estimate.js";
import { SCAN_MEMBER_ID } from "./run-defaults.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import type { RunShape } from "./shape.js";

export interface RunModelOptions {
  /** Deliveries (and error verdicts) of one cube before it is marked failed. */
  readonly maxDeliver: number;
  /** Cubes per ledger batch while publishing a split. */
  readonly batchSize: number;
  /** Milliseconds since the epoch: ledger times, solution times, message ids of retries. */
  readonly clock: () => number;
  readonly log: Logger;
  /** Resident memory in MB, for the split's log lines. @default none */
  readonly memoryMB?: () => number;
  /** A fresh lease token for each task published (the shell's: coordinator/shell/lease-tokens.ts, 128 random bits). */
  readonly lease: () => string;
  /** Tasks in flight were recorded (or abandoned): verdicts held for them can be looked at again (coordinator/model/in-flight.ts). */
  readonly settled?: () => void;
}

/** A cube still to be decided: queued (maybe running somewhere) or unknown. */
export function isOpen(e: CubeEntry): boolean {
  return e.state === "queued" || e.state === "unknown";
}

/** The run's state, changed only by `apply`; coordinator/model/run-model.ts adds the decisions. */
export class RunLedgerState {
  readonly table = new CubeTable();
  /** Placements made and the tree estimates of the cubes (coordinator/model/work-estimate.ts). */
  readonly work = new WorkEstimate();
  readonly solutions: Solution[] = [];
  state: RunState = RunState.RUN_STATE_SPLITTING;
  message = "";
  /** SAT answers that failed verification (never solutions). */
  rejected = 0;
  /** The best board so far (verified and scored when recorded), and every improvement's time and score. */
  best: BestBoard | null = null;
  readonly bestHistory: Array<{ atUnixMs: number; score: number; placed: number }> = [];
  startedAt = 0;
  finishedAt = 0;
  /** Certified run: UNSAT answers whose proof was missing or not verified. */
  rejectedProofs = 0;
  /** Certified run: the coverage proof, "" until it is started (coordinator/shell/certify.ts). */
  coverage: "" | "checking" | "checked" | "failed" = "";
  coverageProof = "";
  private coverageMessage = "";
  /** Certified run: cube id -> its checked DRAT proof (object name). */
  readonly proofs = new Map<string, string>();
  /** Counting run: the exact counts of the closed cubes, summed, and the weight of the counted cubes (those with solutions). */
  counted = 0;
  private readonly countedWeightSum = new Sum();
  /** Counting run: the recorded boards' keys, so that a board recorded again (a verdict redelivered after a crash) is kept once. */
  protected readonly solutionKeys = new Set<string>();
  /** Scan run: the portfolio member's last attempt as recorded (sent, or stopped to go on later), null before one. */
  protected memberState: MemberState | null = null;
  /** The current priority: the spec's, until changed (`setPriority`). */
  priority: number;
  /** Ledger entries applied so far (the stall check sees whether the run recorded anything, coordinator/model/stall.ts). */
  applied = 0;
  protected readonly log: Logger;

  constructor(
    readonly spec: RunSpec,
    /** The run's puzzle, square or triangle, and its base formula (coordinator/model/shape.ts). */
    readonly shape: RunShape,
    protected readonly opts: RunModelOptions,
  ) {
    this.log = opts.log;
    this.priority = spec.priority;
  }

  get id(): string {
    return this.spec.runId;
  }

  get ended(): boolean {
    return isTerminal(this.state);
  }

  /** The closed weight: refuted, plus (counting run) counted cubes. 0..1. */
  get coveredWeight(): number {
    return this.table.refutedWeight + this.countedWeightSum.value;
  }

  /** Counting run: true when the whole space was counted (the run ended with every cube closed, none failed). */
  get countComplete(): boolean {
    return (this.state === RunState.RUN_STATE_SAT || this.state === RunState.RUN_STATE_UNSAT) && this.table.complete && this.table.snapshotCounts().failed === 0;
  }

  // ---- the one way state changes ------------------------------------------------------------------------------

  /** Applies one ledger entry: on replay for every stored entry, live for every entry recorded. */
  apply(e: LedgerEntry): void {
    const b = e.entry;
    if (!b) return;
    this.applied++;
    switch (b.$case) {
      case "started":
        this.startedAt = e.atUnixMs;
        break;
      case "added": {
        const v = b.value;
        this.table.addCubes(v.parent === "" ? undefined : v.parent, v.cubes, { count: v.refutedCount, weight: v.refutedWeight });
        if (v.parent === "" && v.last) this.table.initialSplitDone = true;
        break;
      }
      case "closed":
        for (const c of b.value.cubes) {
          const closed = this.table.recordVerdict(c.id, verdictLabel(c.kind), { worker: c.workerId, wallMs: c.wallMs, reason: c.reason, progress: c.partNext });
          // Each cube closes once, so its count is added once (also on replay).
          if (closed.kind === "closed" && closed.state === "sat" && c.solutionCount !== undefined) {
            this.counted += c.solutionCount;
            this.countedWeightSum.add(this.table.get(c.id)!.weight);
          }
          this.work.record(c.id, e.atUnixMs, c.searchNodes, c.estNodes, c.estNodesStderr);
          if (c.proofSha256 !== "" && c.kind === VerdictKind.VERDICT_KIND_UNSAT) this.proofs.set(c.id, c.proofSha256);
        }
        break;
      case "rejectedProof":
        this.rejectedProofs += b.value;
        break;
      case "coverage":
        this.coverage = b.value.ok ? "checked" : "failed";
        this.coverageProof = b.value.proofSha256;
        this.coverageMessage = b.value.message;
        break;
      case "requeued":
        this.table.requeue(b.value.id, b.value.seq, b.value.lease);
        break;
      case "failed":
        this.table.markFailed(b.value.id, b.value.reason);
        break;
      case "solution": {
        const key = solutionKey(b.value.cells);
        if (this.solutionKeys.has(key)) break;
        this.solutionKeys.add(key);
        this.solutions.push(b.value);
        break;
      }
      case "state":
        this.state = b.value.state;
        this.message = b.value.message;
        this.finishedAt = isTerminal(this.state) ? e.atUnixMs : 0;
        break;
      case "rejectedModel":
        this.rejected += b.value;
        break;
      case "best":
        this.best = b.value;
        this.bestHistory.push({ atUnixMs: e.atUnixMs, score: b.value.score, placed: b.value.placed });
        break;
      case "priority":
        this.priority = b.value;
        break;
      case "member": {
        // Sent: the table takes that attempt's verdict (its lease). Stopped or ended: nothing in flight, and the
        // attempt's placements count (each attempt comes back once, so they are added once, also on replay).
        this.memberState = b.value;
        if (b.value.lease !== "") this.table.addMember(SCAN_MEMBER_ID, b.value.lease);
        else {
          const m = this.table.member(SCAN_MEMBER_ID);
          if (m) m.open = false;
          this.work.record(SCAN_MEMBER_ID, e.atUnixMs, b.value.searchNodes, 0, 0);
        }
        break;
      }
      default:
        break;
    }
  }

  protected entry(body: LedgerBody): LedgerEntry {
    return { atUnixMs: this.opts.clock(), term: 0 /* stamped by the ledger as written */, entry: body };
  }

  /** Records an entry, then applies it: memory shows the fact once it is durable. */
  protected *record(body: LedgerBody): RunSteps {
    const e = this.entry(body);
    yield { type: "append", entries: [e] };
    this.apply(e);
  }

  /** Applies an entry at once (later steps of the same decision must see it), then records it. */
  protected *applyAndRecord(body: LedgerBody): RunSteps {
    const e = this.entry(body);
    this.apply(e);
    yield { type: "append", entries: [e] };
  }

  /**
   * How the run ends now that every cube is decided (null while one is open, or once it has ended): FAILED if a cube
   * failed, SAT with solutions, else UNSAT; a certified run first needs its coverage proof checked ("check-coverage").
   */
  protected outcome(): { state: RunState; message: string } | "check-coverage" | null {
    if (this.ended || !this.table.complete) return null;
    const counts = this.table.snapshotCounts();
    if (counts.failed > 0) return { state: RunState.RUN_STATE_FAILED, message: `${counts.failed} cube(s) failed; the rest is closed: no verdict` };
    if (this.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS) {
      const covered = this.coveredWeight;
      if (Math.abs(covered - 1) > 1e-6) {
        return { state: RunState.RUN_STATE_FAILED, message: `every cube closed but the closed weights sum to ${covered}, not 1 (a bookkeeping bug)` };
      }
      if (this.counted > 0) return { state: RunState.RUN_STATE_SAT, message: `count complete: exactly ${this.counted} solution(s); closed weights sum to 1` };
      return { state: RunState.RUN_STATE_UNSAT, message: "count complete: no solution; closed weights sum to 1" };
    }
    if (this.solutions.length > 0) return { state: RunState.RUN_STATE_SAT, message: `search complete: ${this.solutions.length} solution(s)` };
    const w = this.table.refutedWeight;
    if (Math.abs(w - 1) > 1e-6) {
      return { state: RunState.RUN_STATE_FAILED, message: `every cube refuted but the closed weights sum to ${w}, not 1 (a bookkeeping bug)` };
    }
    if (!this.spec.certify) return { state: RunState.RUN_STATE_UNSAT, message: "every cube refuted; closed weights sum to 1" };
    if (this.coverage === "") return "check-coverage";
    if (this.coverage === "failed") return { state: RunState.RUN_STATE_FAILED, message: `every cube refuted with a checked proof, but ${this.coverageMessage}` };
    if (this.coverage === "checked") {
      const n = counts.unsat;
      return { state: RunState.RUN_STATE_UNSAT, message: `certified: ${n}/${n} cube proofs checked by drat-trim, coverage checked; closed weights sum to 1` };
    }
    return null;
  }

  /** The unit literals of a cube, from the run's own table (never from a verdict). */
  unitsOf(cube: string): number[] | null {
    const e = this.table.get(cube);
    if (!e) return null;
    const units: number[] = [];
    for (const p of e.placements) units.push(...this.shape.placementLiterals(p));
    return units;
  }

  /** Every cube closed UNSAT, as unit literals: the cubes the coverage proof negates. */
  refutedCubes(): Array<{ id: string; units: number[] }> {
    const out: Array<{ id: string; units: number[] }> = [];
    for (const e of this.table.entries()) if (e.state === "unsat") out.push({ id: e.id, units: this.unitsOf(e.id)! });
    return out;
  }
}

/** A recorded board's identity: its placements in cell order. */
export function solutionKey(cells: readonly Placement[]): string {
  return cells.map((p) => `${p.cell}:${p.piece}:${p.rot}`).join(",");
}
