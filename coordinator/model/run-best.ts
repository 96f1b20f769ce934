/**
 * The best board, a part of the run model (coordinator/model/run-model.ts): the deepest partial board a worker's
 * search reached, checked and scored by the verifier's rules (core/score.ts), and every improvement's time and score
 * (the dashboard's chart). Changed only by `apply` ("best" entries). Square boards only.
 */

import { acceptScored, betterScored } from "../../core/score.js";
import type { Puzzle } from "../../core/puzzle.js";
import type { Logger } from "../../cluster/log.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { BestBoard } from "../../proto/gen/cubist/v1/run.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import type { RunBase } from "./run-recorder.js";

/** One improvement of the best board. */
export interface BestPoint {
  readonly atUnixMs: number;
  readonly score: number;
  readonly placed: number;
}

export class RunBest {
  private current: BestBoard | null = null;
  private readonly points: BestPoint[] = [];

  /** The best board so far (verified and scored when recorded); null before one. */
  get board(): BestBoard | null {
    return this.current;
  }

  /** Every improvement, in order. */
  get history(): readonly BestPoint[] {
    return this.points;
  }

  apply(b: Extract<LedgerBody, { $case: "best" }>, atUnixMs: number): void {
    this.current = b.value;
    this.points.push({ atUnixMs, score: b.value.score, placed: b.value.placed });
  }
}

/**
 * A worker's best board (the deepest partial board its search reached), checked and scored; null when it does not
 * beat the run's `best`. A refused one is logged and dropped. `clock` stamps the board found.
 */
export function bestBoardOf(puzzle: Puzzle, best: BestBoard | null, v: Verdict, log: Logger, clock: () => number): BestBoard | null {
  if (v.best.length > puzzle.rows * puzzle.cols) return null;
  const a = acceptScored(puzzle, v.best);
  if (!a.ok) {
    log.warn("best board refused by the verifier", { cube: v.cubeId, worker: v.workerId, violation: a.reason });
    return null;
  }
  if (best && !betterScored({ ...a.scored, score: best.score, placed: best.placed }, a.scored)) return null;
  const cells = v.best.filter((p, i, all) => all.findIndex((q) => q.cell === p.cell) === i).map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot }));
  return { score: a.scored.score, maxScore: a.scored.maxScore, placed: a.scored.placed, cells, cubeId: v.cubeId, workerId: v.workerId, foundUnixMs: clock() };
}

/** What the best-board decision reads: the run's basics and its best board. */
export interface BestRun extends RunBase {
  readonly best: RunBest;
}

/** A worker's best board: recorded when it beats the run's best. Square boards only. */
export function* considerBest(run: BestRun, v: Verdict): RunSteps {
  if (run.shape.kind !== "square") return;
  const best = bestBoardOf(run.shape.puzzle, run.best.board, v, run.log, run.opts.clock);
  if (best) yield* run.recorder.applyAndRecord({ $case: "best", value: best });
}
