/**
 * Solutions, a part of the run model (coordinator/model/run-model.ts): the verified boards recorded (each kept once,
 * even when a redelivered verdict records it again) and the count of SAT answers the verifier rejected. Changed only
 * by `apply` ("solution" and "rejectedModel" entries). The decisions that accept a board, or reject an answer, are
 * here too: a board ends a first-solution run; a counting run records its boards and goes on.
 */

import type { Placement } from "../../core/puzzle.js";
import { RunMode, RunState, type Solution } from "../../proto/gen/cubist/v1/run.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import { finish, type LifeRun } from "./run-life.js";

type SolutionsEntry = Extract<LedgerBody, { $case: "solution" | "rejectedModel" }>;

/** A recorded board's identity: its placements in cell order. */
export function solutionKey(cells: readonly Placement[]): string {
  return cells.map((p) => `${p.cell}:${p.piece}:${p.rot}`).join(",");
}

export class RunSolutions {
  private readonly found: Solution[] = [];
  /** The recorded boards' keys, so that a board recorded again (a verdict redelivered after a crash) is kept once. */
  private readonly keys = new Set<string>();
  private rejectedCount = 0;

  /** The solutions recorded, in the order they were found. */
  get list(): readonly Solution[] {
    return this.found;
  }

  /** SAT answers that failed verification (never solutions). */
  get rejected(): number {
    return this.rejectedCount;
  }

  /** Whether this board (placements in cell order) is recorded already. */
  has(cells: readonly Placement[]): boolean {
    return this.keys.has(solutionKey(cells));
  }

  apply(b: SolutionsEntry): void {
    switch (b.$case) {
      case "solution": {
        const key = solutionKey(b.value.cells);
        if (this.keys.has(key)) break;
        this.keys.add(key);
        this.found.push(b.value);
        break;
      }
      case "rejectedModel":
        this.rejectedCount += b.value;
        break;
    }
  }
}

/** What the solution decisions read: the run's life and basics, and its solutions. */
export interface SolutionsRun extends LifeRun {
  readonly solutions: RunSolutions;
}

/** An answer the verifier (or the coordinator's count check) rejected: counted at once, then recorded. */
export function* rejectAnswer(run: SolutionsRun): RunSteps {
  yield* run.recorder.applyAndRecord({ $case: "rejectedModel", value: 1 });
}

/** A board found without a model (by a splitter): verified, then accepted. True when the run ended. */
export function* offerBoard(run: SolutionsRun, cells: readonly Placement[], cube: string, worker: string): RunSteps<boolean> {
  const accepted = run.shape.checkBoard(cells);
  if (!accepted.ok) {
    run.log.error("a board from the splitter failed verification", { cube, violation: accepted.reason });
    yield* rejectAnswer(run);
    return false;
  }
  return yield* acceptSolution(run, accepted.cells, cube, worker);
}

/** Records a verified solution (its placements in cell order); in first-solution mode, ends the run. True when the run ended. */
export function* acceptSolution(run: SolutionsRun, cells: Placement[], cube: string, worker: string): RunSteps<boolean> {
  const solution: Solution = {
    runId: run.spec.runId,
    index: run.solutions.list.length,
    rows: run.shape.rows,
    cols: run.shape.cols,
    cells,
    cubeId: cube,
    workerId: worker,
    foundUnixMs: run.opts.clock(),
  };
  yield* run.recorder.record({ $case: "solution", value: solution });
  yield { type: "solution", solution };
  run.log.info("solution verified", { cube, worker, index: solution.index });
  if (run.spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS) {
    yield* finish(run, RunState.RUN_STATE_SAT, `solution found in cube ${cube}`);
    return true;
  }
  return false;
}
