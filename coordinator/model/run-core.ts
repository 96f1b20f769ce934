/**
 * The primitives every decision of a run's model uses (coordinator/model/run-model.ts holds the decisions): publishing and
 * recording cubes with fresh leases, closing cubes, following up unknown cubes (another attempt or a re-split),
 * offering and accepting boards, and ending the run. Like the model, pure: effects out, state through `apply`.
 */

import type { Cube, CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, CubeDef } from "../../proto/gen/cubist/v1/ledger.js";
import { RunMode, RunState, type Solution } from "../../proto/gen/cubist/v1/run.js";
import { runStateName } from "../../proto/vocabulary.js";
import type { CubeEntry } from "./cube-table.js";
import type { LedgerBody, PublishEffect, RunSteps, TaskMessage } from "./run-effects.js";
import { InFlightTasks } from "./in-flight.js";
import { taskMessage } from "./task-message.js";
import { bestBoardOf } from "./run-answers.js";
import { isOpen, RunLedgerState } from "./run-ledger-state.js";

/** A scan cube over budget is re-split into about this many children, sent to the front queue in scan order. */
export const SCAN_RESPLIT_CHILDREN = 16;

/** The shared steps of a run's decisions, over its state and `apply` (RunLedgerState). */
export class RunCore extends RunLedgerState {
  /** Tasks published but not yet recorded: their verdicts are held, not dropped (coordinator/model/in-flight.ts). */
  readonly inFlight = new InFlightTasks();

  /** A counting run (RUN_MODE_ALL_SOLUTIONS: objective "count" on every cube). */
  get counting(): boolean {
    return this.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS;
  }

  protected taskFor(cube: { id: string; placements: readonly Placement[]; part?: CubePart; progress?: PartProgress }, attempt: number): TaskMessage {
    return taskMessage(this.spec, this.shape, cube, attempt, this.opts.clock(), this.opts.lease());
  }

  /**
   * Publishes cubes (skipping ids already recorded) and records them, in batches. Each batch's entries in `cubes`
   * are released once recorded, so a 200,000-cube split is not held twice.
   */
  protected *publishCubes(parent: string | undefined, cubes: Array<{ id: string; cube: Cube } | null>, reason: string,
    last: boolean, refuted: { count: number; weight: number }, extra: Partial<{ depth: number; targetChildren: number; front: boolean }> = {}): RunSteps {
    const fresh: number[] = [];
    for (let i = 0; i < cubes.length; i++) if (cubes[i] && !this.table.get(cubes[i]!.id)) fresh.push(i);
    const batch = this.opts.batchSize;
    for (let start = 0; start < Math.max(1, fresh.length); start += batch) {
      const part = fresh.slice(start, start + batch).map((i) => cubes[i]!);
      const publish: PublishEffect = { type: "publish", tasks: part.map((c) => this.taskFor({ id: c.id, placements: c.cube.placements, part: c.cube.part }, 0)), seqs: [], ...(extra.front ? { front: true } : {}) };
      const isLast = last && start + batch >= fresh.length;
      const ref = isLast ? refuted : { count: 0, weight: 0 };
      yield* this.publishAndRecord(publish, () => {
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

  /** A worker's best board (coordinator/model/run-answers.ts): recorded when it beats the run's best. Square boards only. */
  protected *considerBest(v: Verdict): RunSteps {
    if (this.shape.kind !== "square") return;
    const best = bestBoardOf(this.shape.puzzle, this.best, v, this.log, this.opts.clock);
    if (best) yield* this.applyAndRecord({ $case: "best", value: best });
  }

  /**
   * Applies one verdict at once, so later verdicts of the batch see it; it is recorded with the batch (`flushClosed`).
   * False when the cube is already closed (each cube closes once; later verdicts are ignored).
   */
  protected close(c: CubeClosed, pending: CubeClosed[]): boolean {
    const e = this.table.get(c.id);
    if (!e || !isOpen(e)) return false;
    this.apply(this.entry({ $case: "closed", value: { cubes: [c] } }));
    pending.push(c);
    return true;
  }

  protected *flushClosed(closed: CubeClosed[]): RunSteps {
    if (closed.length === 0) return;
    yield { type: "append", entries: [this.entry({ $case: "closed", value: { cubes: closed.splice(0) } })] };
  }

  /** Cubes that came back unknown: another attempt, or a re-split after `after_budgets` unknowns. */
  protected *followUpUnknowns(entries: CubeEntry[]): RunSteps {
    const policy = this.spec.resplit!;
    for (const e of entries) {
      if (this.ended) return;
      if (e.state !== "unknown") continue;
      if (e.unknowns >= policy.afterBudgets) {
        // Scan cubes re-split into enough children to share between workers (a level of the scan may hold one).
        const scan = this.spec.cubing!.cellOrder === "scan";
        const children = policy.targetChildren || (scan ? SCAN_RESPLIT_CHILDREN : 0);
        yield* this.resplit(e, { depth: children > 0 ? undefined : policy.depth, targetChildren: children || undefined }, "unknown");
      } else {
        yield* this.requeue(e, e.unknowns + e.errors);
      }
    }
  }

  protected *requeue(e: CubeEntry, attempt: number): RunSteps {
    const publish: PublishEffect = { type: "publish", tasks: [this.taskFor(e, attempt)], seqs: [] };
    yield* this.publishAndRecord(publish, () => ({ $case: "requeued", value: { id: e.id, attempt, seq: publish.seqs[0] ?? 0, lease: publish.tasks[0].task.lease } }));
  }

  /**
   * Publishes tasks, then records what the publish stored (`body` reads its sequences and leases). The tasks are in
   * flight (coordinator/model/in-flight.ts) from before the publish until the record is applied, or the decision abandoned;
   * then `settled` tells the shell to look at the verdicts it held for them.
   */
  protected *publishAndRecord(publish: PublishEffect, body: () => LedgerBody): RunSteps {
    this.inFlight.add(publish.tasks);
    try {
      yield publish;
      yield* this.record(body());
    } finally {
      this.inFlight.remove(publish.tasks);
      this.opts.settled?.();
    }
  }

  /**
   * Replaces a cube by its children (their weights sum to its weight minus what the splitter refuted). Returns the
   * number of children (0 also when a child was a solution that ended the run).
   */
  *resplit(e: CubeEntry, opts: { depth?: number; targetChildren?: number }, reason: string): RunSteps<number> {
    const depth = opts.targetChildren ? 64 : opts.depth ?? 1;
    const base = { placements: e.placements, branching: [...e.branching], weight: e.weight, ...(e.part ? { part: e.part } : {}) };
    // Scan cubes split along the scan, and their children go to the front queue so the scan order holds.
    const scan = this.spec.cubing!.cellOrder === "scan";
    // Scan cubes: the children start where the cube's search stopped (docs/cubing.md "Resuming").
    const progress = scan ? e.progress : undefined;
    const result = this.shape.resplit(base, { depth, targetChildren: opts.targetChildren, cellOrder: this.spec.cubing!.cellOrder, ...(progress ? { progress } : {}) });
    if (!this.counting) {
      for (const s of result.solutions) {
        if (yield* this.offerBoard(s.cells, e.id, "coordinator")) return 0;
      }
    }
    // Counting: boards the splitter filled are cubes like any other (splitInitial).
    const children = [...result.cubes, ...(this.counting ? result.solutions : [])].map((cube, k) => ({ id: `${e.id}.${k}`, cube }));
    const wasQueued = e.state === "queued";
    const seq = e.seq;
    // Records the parent as resplit even when every child was refuted (an empty batch). A manual re-split's
    // children go to the front queue: the operator asked for them, so workers take them before the rest.
    yield* this.publishCubes(e.id, children, reason, true, { count: result.refuted.count, weight: result.refuted.weight },
      { depth, targetChildren: opts.targetChildren ?? 0, front: reason === "manual" || scan });
    if (wasQueued) {
      yield { type: "cancel", cube: e.id, reason: "resplit" };
      if (seq > 0) yield { type: "delete-task", seq };
    }
    this.log.info("cube re-split", { cube: e.id, reason, children: children.length, refuted: result.refuted.count });
    return children.length;
  }

  /** A board found without a model (by a splitter): verified, then accepted. */
  protected *offerBoard(cells: readonly Placement[], cube: string, worker: string): RunSteps<boolean> {
    const accepted = this.shape.checkBoard(cells);
    if (!accepted.ok) {
      this.log.error("a board from the splitter failed verification", { cube, violation: accepted.reason });
      yield* this.applyAndRecord({ $case: "rejectedModel", value: 1 });
      return false;
    }
    return yield* this.acceptSolution(accepted.cells, cube, worker);
  }

  /** Records a verified solution (its placements in cell order); in first-solution mode, ends the run. True when the run ended. */
  protected *acceptSolution(cells: Placement[], cube: string, worker: string): RunSteps<boolean> {
    const solution: Solution = {
      runId: this.id,
      index: this.solutions.length,
      rows: this.shape.rows,
      cols: this.shape.cols,
      cells,
      cubeId: cube,
      workerId: worker,
      foundUnixMs: this.opts.clock(),
    };
    yield* this.record({ $case: "solution", value: solution });
    yield { type: "solution", solution };
    this.log.info("solution verified", { cube, worker, index: solution.index });
    if (this.spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS) {
      yield* this.finish(RunState.RUN_STATE_SAT, `solution found in cube ${cube}`);
      return true;
    }
    return false;
  }

  /** Ends the run once every cube is decided (`outcome`, coordinator/model/run-ledger-state.ts). */
  protected *checkComplete(): RunSteps {
    const end = this.outcome();
    if (end === "check-coverage") {
      // Certified: UNSAT only once the coverage proof is checked too (the shell proves it in the background).
      this.coverage = "checking";
      yield { type: "check-coverage" };
    } else if (end !== null) {
      yield* this.finish(end.state, end.message);
    }
  }

  /** Ends the run FAILED (the split threw). */
  *fail(message: string): RunSteps {
    this.log.error(message);
    yield* this.finish(RunState.RUN_STATE_FAILED, message);
  }

  /** Ends the run: records the state, purges its queued cubes and stops running solvers. */
  *finish(state: RunState, message: string): RunSteps {
    if (this.ended) return;
    yield* this.setState(state, message);
    yield { type: "purge-tasks" };
    yield { type: "cancel", cube: "", reason: runStateName(state) };
    yield { type: "delete-consumer" };
    this.log.info(`run ${runStateName(state)}`, { message, cubes: this.table.size, progress: this.table.refutedWeight });
  }

  protected *setState(state: RunState, message: string): RunSteps {
    yield* this.record({ $case: "state", value: { state, message } });
    yield { type: "write-record" };
  }
}
