/**
 * Cubes and weights, a part of the run model (coordinator/model/run-model.ts): the cube table
 * (coordinator/model/cube-table.ts) and the work estimate (coordinator/model/work-estimate.ts), changed only by
 * `apply` ("added", "closed", "requeued" and "failed" entries, and "member" and "slot" for the places of the portfolio
 * member and a score run's slots in the table). The decisions about cubes are here too: publishing them with fresh leases and recording them, closing them,
 * following up unknown ones (another attempt, or a re-split after `after_budgets` unknowns) and giving up on them.
 */

import type { Cube } from "../../core/cubes/types.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, CubeDef } from "../../proto/gen/cubist/v1/ledger.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import { isOpen, type CubeEntry } from "./cube-entry.js";
import { CubeTable, type CubeTableView, type RecordOutcome } from "./cube-table.js";
import type { LedgerBody, PublishEffect, RunSteps } from "./run-effects.js";
import { LEGACY_MEMBER_ID } from "./scan-trees.js";
import { closedOf } from "./run-answers.js";
import { offerBoard, type SolutionsRun } from "./run-solutions.js";
import { WorkEstimate, type WorkEstimateView } from "./work-estimate.js";

/** A scan cube over budget is re-split into about this many children, sent to the front queue in scan order. */
export const SCAN_RESPLIT_CHILDREN = 16;

type CubesEntry = Extract<LedgerBody, { $case: "added" | "requeued" | "failed" | "member" | "slot" }>;

export class RunCubes {
  private readonly cubeTable = new CubeTable();
  private readonly estimate = new WorkEstimate();

  /** Every cube of the run, its state and the weights (read-only: changed by `apply`). */
  get table(): CubeTableView {
    return this.cubeTable;
  }

  /** Placements made and the tree estimates of the cubes. */
  get work(): WorkEstimateView {
    return this.estimate;
  }

  apply(b: CubesEntry, atUnixMs: number): void {
    switch (b.$case) {
      case "added": {
        const v = b.value;
        this.cubeTable.addCubes(v.parent === "" ? undefined : v.parent, v.cubes, { count: v.refutedCount, weight: v.refutedWeight });
        if (v.parent === "" && v.last) this.cubeTable.initialSplitDone = true;
        break;
      }
      case "requeued":
        this.cubeTable.requeue(b.value.id, b.value.seq, b.value.lease);
        break;
      case "failed":
        this.cubeTable.markFailed(b.value.id, b.value.reason);
        break;
      case "member": {
        // Sent: the table takes that attempt's verdict (its lease). Stopped or ended: nothing in flight, and the
        // attempt's placements count (each attempt comes back once, so they are added once, also on replay).
        const id = b.value.id || LEGACY_MEMBER_ID;
        if (b.value.lease !== "") this.cubeTable.addMember(id, b.value.lease);
        else {
          this.cubeTable.closeMember(id);
          this.estimate.record(id, atUnixMs, b.value.searchNodes, 0, 0);
        }
        break;
      }
      case "slot":
        // A score run's slot (coordinator/model/score-slots.ts): a member like the portfolio member.
        if (b.value.lease !== "") this.cubeTable.addMember(b.value.id, b.value.lease);
        else {
          this.cubeTable.closeMember(b.value.id);
          this.estimate.record(b.value.id, atUnixMs, b.value.searchNodes, 0, 0);
        }
        break;
    }
  }

  /** One cube of a "closed" entry: what the table made of it (each cube closes once; later records are ignored). */
  applyClosed(c: CubeClosed, atUnixMs: number): RecordOutcome {
    const outcome = this.cubeTable.recordVerdict(c.id, verdictLabel(c.kind), { worker: c.workerId, wallMs: c.wallMs, reason: c.reason, progress: c.partNext });
    this.estimate.record(c.id, atUnixMs, c.searchNodes, c.estNodes, c.estNodesStderr);
    return outcome;
  }

  /**
   * Takes a verdict of the portfolio member's attempt in flight; false when one was taken already. The one change made
   * outside `apply`: the verdict answers the attempt at once, so that no second verdict of it is taken, and the ledger
   * records the attempt's end (or the cubes its exhausted board closed) as the decision goes on.
   */
  takeMember(id: string): boolean {
    if (!this.cubeTable.member(id)?.open) return false;
    this.cubeTable.closeMember(id);
    return true;
  }
}

/** What the cube decisions read: the run's life, basics and solutions (a re-split may fill a board), and its cubes. */
export interface CubesRun extends SolutionsRun {
  readonly cubes: RunCubes;
  /** A counting run (RUN_MODE_ALL_SOLUTIONS: objective "count" on every cube). */
  readonly counting: boolean;
}

/** What a batch of verdicts did to its cubes, carried out once the batch is read (coordinator/model/record-verdicts.ts). */
export interface VerdictBatch {
  /** Closed records applied at once, recorded together (`flushClosed`). */
  readonly closed: CubeClosed[];
  /** Cubes back unknown: another attempt or a re-split. */
  readonly unknowns: CubeEntry[];
  /** Cubes sent out again after an error (or a rejected answer). */
  readonly retries: CubeEntry[];
  /** Cubes given up. */
  readonly failed: Array<{ entry: CubeEntry; reason: string }>;
}

export function newBatch(): VerdictBatch {
  return { closed: [], unknowns: [], retries: [], failed: [] };
}

/**
 * Publishes cubes (skipping ids already recorded) and records them, in batches. Each batch's entries in `cubes`
 * are released once recorded, so a 200,000-cube split is not held twice.
 */
export function* publishCubes(run: CubesRun, parent: string | undefined, cubes: Array<{ id: string; cube: Cube } | null>, reason: string,
  last: boolean, refuted: { count: number; weight: number }, extra: Partial<{ depth: number; targetChildren: number; front: boolean }> = {}): RunSteps {
  const fresh: number[] = [];
  for (let i = 0; i < cubes.length; i++) if (cubes[i] && !run.cubes.table.get(cubes[i]!.id)) fresh.push(i);
  const batch = run.opts.batchSize;
  for (let start = 0; start < Math.max(1, fresh.length); start += batch) {
    const part = fresh.slice(start, start + batch).map((i) => cubes[i]!);
    const publish: PublishEffect = { type: "publish", tasks: part.map((c) => run.recorder.task({ id: c.id, placements: c.cube.placements, part: c.cube.part }, 0)), seqs: [], ...(extra.front ? { front: true } : {}) };
    const isLast = last && start + batch >= fresh.length;
    const ref = isLast ? refuted : { count: 0, weight: 0 };
    yield* run.recorder.publishAndRecord(publish, () => {
      const defs: CubeDef[] = part.map((c, i) => ({
        id: c.id, placements: c.cube.placements, branching: c.cube.branching, seq: publish.seqs[i] ?? 0, lease: publish.tasks[i].task.lease,
        ...(c.cube.part ? { part: c.cube.part } : {}),
      }));
      return {
        $case: "added",
        value: { parent: parent ?? "", cubes: defs, last: isLast, refutedCount: ref.count, refutedWeight: ref.weight, reason, depth: extra.depth ?? 0, targetChildren: extra.targetChildren ?? 0 },
      };
    });
    for (let k = start; k < Math.min(fresh.length, start + batch); k++) cubes[fresh[k]] = null;
  }
}

/**
 * Applies one verdict at once, so later verdicts of the batch see it; it is recorded with the batch (`flushClosed`).
 * False when the cube is already closed (each cube closes once; later verdicts are ignored).
 */
export function close(run: CubesRun, c: CubeClosed, pending: CubeClosed[]): boolean {
  const e = run.cubes.table.get(c.id);
  if (!e || !isOpen(e)) return false;
  run.recorder.applyClosedNow(c);
  pending.push(c);
  return true;
}

/** Records the closed records applied so far (and empties the list), in batches (coordinator/model/run-recorder.ts recordClosed). */
export function* flushClosed(run: CubesRun, closed: CubeClosed[]): RunSteps {
  if (closed.length === 0) return;
  yield* run.recorder.recordClosed(closed.splice(0));
}

/**
 * A verdict whose answer was rejected (a board the verifier refused, a forged count): an error of its cube, which is
 * sent out again, or given up (`giveUp`) after max_deliver errors.
 */
export function rejectInBatch(run: CubesRun, v: Verdict, entry: CubeEntry, batch: VerdictBatch, reason: string, giveUp: string): void {
  if (!close(run, closedOf(v, VerdictKind.VERDICT_KIND_ERROR, reason), batch.closed)) return;
  if (entry.errors >= run.opts.maxDeliver) batch.failed.push({ entry, reason: giveUp });
  else batch.retries.push(entry);
}

/** Cubes that came back unknown: another attempt, or a re-split after `after_budgets` unknowns. */
export function* followUpUnknowns(run: CubesRun, entries: readonly CubeEntry[]): RunSteps {
  const policy = run.spec.resplit!;
  for (const e of entries) {
    if (run.life.ended) return;
    if (e.state !== "unknown") continue;
    if (e.unknowns >= policy.afterBudgets) {
      // Scan cubes re-split into enough children to share between workers (a level of the scan may hold one).
      const scan = run.spec.cubing!.cellOrder === "scan";
      const children = policy.targetChildren || (scan ? SCAN_RESPLIT_CHILDREN : 0);
      yield* resplit(run, e, { depth: children > 0 ? undefined : policy.depth, targetChildren: children || undefined }, "unknown");
    } else {
      yield* requeue(run, e, e.unknowns + e.errors);
    }
  }
}

/** Sends a cube out again as attempt `attempt`, with a fresh lease. */
export function* requeue(run: CubesRun, e: CubeEntry, attempt: number): RunSteps {
  const publish: PublishEffect = { type: "publish", tasks: [run.recorder.task(e, attempt)], seqs: [] };
  yield* run.recorder.publishAndRecord(publish, () => ({ $case: "requeued", value: { id: e.id, attempt, seq: publish.seqs[0] ?? 0, lease: publish.tasks[0].task.lease } }));
}

/**
 * Replaces a cube by its children (their weights sum to its weight minus what the splitter refuted). Returns the
 * number of children (0 also when a child was a solution that ended the run).
 */
export function* resplit(run: CubesRun, e: CubeEntry, opts: { depth?: number; targetChildren?: number }, reason: string): RunSteps<number> {
  const depth = opts.targetChildren ? 64 : opts.depth ?? 1;
  const base = { placements: e.placements, branching: [...e.branching], weight: e.weight, ...(e.part ? { part: e.part } : {}) };
  // Scan cubes split along the scan, and their children go to the front queue so the scan order holds.
  const scan = run.spec.cubing!.cellOrder === "scan";
  // Scan cubes: the children start where the cube's search stopped (docs/cubing.md "Resuming").
  const progress = scan ? e.progress : undefined;
  const result = run.shape.resplit(base, { depth, targetChildren: opts.targetChildren, cellOrder: run.spec.cubing!.cellOrder, ...(progress ? { progress } : {}) });
  if (!run.counting) {
    for (const s of result.solutions) {
      if (yield* offerBoard(run, s.cells, e.id, "coordinator")) return 0;
    }
  }
  // Counting: boards the splitter filled are cubes like any other (coordinator/model/split-run.ts).
  const children = [...result.cubes, ...(run.counting ? result.solutions : [])].map((cube, k) => ({ id: `${e.id}.${k}`, cube }));
  const wasQueued = e.state === "queued";
  const seq = e.seq;
  // Records the parent as resplit even when every child was refuted (an empty batch). A manual re-split's
  // children go to the front queue: the operator asked for them, so workers take them before the rest.
  yield* publishCubes(run, e.id, children, reason, true, { count: result.refuted.count, weight: result.refuted.weight },
    { depth, targetChildren: opts.targetChildren ?? 0, front: reason === "manual" || scan });
  if (wasQueued) {
    yield { type: "cancel", cube: e.id, reason: "resplit" };
    if (seq > 0) yield { type: "delete-task", seq };
  }
  run.log.info("cube re-split", { cube: e.id, reason, children: children.length, refuted: result.refuted.count });
  return children.length;
}

/** Gives up on a cube; the run can then end FAILED, never UNSAT. */
export function* failCube(run: CubesRun, e: CubeEntry, reason: string): RunSteps {
  if (!isOpen(e)) return;
  yield* run.recorder.applyAndRecord({ $case: "failed", value: { id: e.id, reason } });
  if (e.seq > 0) yield { type: "delete-task", seq: e.seq };
  run.log.warn("cube failed", { cube: e.id, reason });
}
