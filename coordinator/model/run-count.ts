/**
 * Counting, a part of the run model (coordinator/model/run-model.ts; a run of mode all, docs/cluster.md "Counting"):
 * the exact counts of the closed cubes, summed, and the weight of the counted cubes. Changed only by `apply`, with
 * the cubes a "closed" entry closes SAT with a count: a cube closes once, so its count is added once, also on replay.
 * The decision about a counted verdict (`recordCount`) and how a count ends (`outcome`) are here too; the checks of a
 * worker's count against the run's own puzzle and cube are coordinator/model/count-intake.ts.
 */

import { RunState, type Solution } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed } from "../../proto/gen/cubist/v1/ledger.js";
import { isOpen, type CubeEntry } from "./cube-entry.js";
import { Sum } from "./cube-table.js";
import { checkCount } from "./count-intake.js";
import type { RunSteps } from "./run-effects.js";
import { closedOf } from "./run-answers.js";
import { close, flushClosed, rejectInBatch, type CubesRun, type VerdictBatch } from "./run-cubes.js";
import { finish, type RunEnd } from "./run-life.js";
import { rejectAnswer } from "./run-solutions.js";

/** Counting run without every_board: the boards recorded (and shown by `solution list`); the rest are counted only. */
export const KEPT_SOLUTIONS = 100;

export class RunCount {
  private sum = 0;
  private readonly weightSum = new Sum();

  /** Solutions counted so far: the exact counts of the closed cubes, summed. */
  get counted(): number {
    return this.sum;
  }

  /** The weight of the counted cubes (those with solutions). */
  get countedWeight(): number {
    return this.weightSum.value;
  }

  /** A cube of a "closed" entry that this entry closed SAT, with its weight: its count, if it carries one, is added. */
  applyCounted(c: CubeClosed, weight: number): void {
    if (c.solutionCount === undefined) return;
    this.sum += c.solutionCount;
    this.weightSum.add(weight);
  }

  /** How a counting run ends once every cube is closed and none failed; `covered`: the closed weight (refuted and counted). */
  outcome(covered: number): RunEnd {
    if (Math.abs(covered - 1) > 1e-6) {
      return { state: RunState.RUN_STATE_FAILED, message: `every cube closed but the closed weights sum to ${covered}, not 1 (a bookkeeping bug)` };
    }
    if (this.sum > 0) return { state: RunState.RUN_STATE_SAT, message: `count complete: exactly ${this.sum} solution(s); closed weights sum to 1` };
    return { state: RunState.RUN_STATE_UNSAT, message: "count complete: no solution; closed weights sum to 1" };
  }
}

/** What the counting decision reads: the run's cubes, solutions and life, and its count. */
export interface CountRun extends CubesRun {
  readonly count: RunCount;
}

/**
 * A counted cube's verdict (coordinator/model/count-intake.ts checks it against the run's own puzzle and cube). Its
 * boards are recorded first (up to KEPT_SOLUTIONS, or all with every_board; a board recorded again after a crash
 * is kept once), then the cube closes with its count. A run with a limit ends once the sum reaches it.
 */
export function* recordCount(run: CountRun, v: Verdict, entry: CubeEntry, batch: VerdictBatch): RunSteps<"ended" | "next"> {
  if (!isOpen(entry)) return "next";
  const check = checkCount(run.shape, entry.placements, v, run.spec.solver!.countBoards ?? 0, run.spec.everyBoard === true);
  if (check.kind === "rejected") {
    run.log.error("count rejected: not a verified count of the cube", { cube: v.cubeId, worker: v.workerId, violation: check.reason });
    yield* rejectAnswer(run);
    rejectInBatch(run, v, entry, batch, `rejected count: ${check.reason}`, "the coordinator rejected its counts");
    return "next";
  }
  if (check.kind === "too-many") {
    // Every board is to be recorded, and one verdict cannot carry them all: a cube over budget, re-split as usual.
    if (close(run, closedOf(v, VerdictKind.VERDICT_KIND_UNKNOWN, `count: ${check.solutions} solutions, more than a verdict carries`), batch.closed)) batch.unknowns.push(entry);
    return "next";
  }
  yield* recordBoards(run, v, check.boards);
  if (!close(run, { ...closedOf(v, v.kind, ""), solutionCount: check.solutions }, batch.closed)) return "next";
  yield* flushClosed(run, batch.closed);
  const limit = run.spec.solutionLimit ?? 0;
  const counted = run.count.counted;
  if (limit > 0 && counted >= limit) {
    const complete = run.cubes.table.complete;
    yield* finish(run, complete ? (counted > 0 ? RunState.RUN_STATE_SAT : RunState.RUN_STATE_UNSAT) : RunState.RUN_STATE_SAT,
      complete ? `count complete: exactly ${counted} solution(s); closed weights sum to 1` : `limit reached: at least ${counted} solution(s) counted`);
    return "ended";
  }
  return "next";
}

/** A counted verdict's verified boards not recorded yet, recorded (up to KEPT_SOLUTIONS without every_board). */
function* recordBoards(run: CountRun, v: Verdict, boards: ReadonlyArray<Solution["cells"]>): RunSteps {
  const fresh: Solution[] = [];
  const kept = run.solutions.list.length;
  for (const cells of boards) {
    if (!run.spec.everyBoard && kept + fresh.length >= KEPT_SOLUTIONS) break;
    if (run.solutions.has(cells)) continue;
    fresh.push({ runId: run.spec.runId, index: kept + fresh.length, rows: run.shape.rows, cols: run.shape.cols, cells, cubeId: v.cubeId, workerId: v.workerId, foundUnixMs: run.opts.clock() });
  }
  if (fresh.length === 0) return;
  yield* run.recorder.recordAll(fresh.map((s) => ({ $case: "solution" as const, value: s })));
  for (const solution of fresh) yield { type: "solution", solution };
}
