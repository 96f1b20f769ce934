/**
 * How a run ends once every cube is decided, read from its parts (coordinator/model/run-model.ts): FAILED if a cube
 * failed; a counting run by its count (coordinator/model/run-count.ts); SAT with solutions; else UNSAT once the
 * refuted weight is 1, which a certified run confirms with its coverage proof first
 * (coordinator/model/run-certification.ts). `checkComplete` ends the run when that moment has come.
 */

import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import type { RunSteps } from "./run-effects.js";
import type { RunCount } from "./run-count.js";
import type { CubesRun } from "./run-cubes.js";
import { finish, type RunEnd } from "./run-life.js";

/** What the outcome reads: the run's life, cubes, solutions, count and certification. */
export interface OutcomeRun extends CubesRun {
  readonly count: RunCount;
  /** The certification part (coordinator/model/run-certification.ts), as far as the outcome reads it. */
  readonly certification: {
    outcome(unsat: number): RunEnd | "check-coverage" | null;
    startCoverageCheck(): void;
  };
  /** The closed weight: refuted, plus (counting run) counted cubes. 0..1. */
  readonly coveredWeight: number;
}

/**
 * How the run ends now that every cube is decided (null while one is open, or once it has ended); a certified run
 * first needs its coverage proof checked ("check-coverage").
 */
export function outcome(run: OutcomeRun): RunEnd | "check-coverage" | null {
  const table = run.cubes.table;
  if (run.life.ended || !table.complete) return null;
  const counts = table.snapshotCounts();
  if (counts.failed > 0) return { state: RunState.RUN_STATE_FAILED, message: `${counts.failed} cube(s) failed; the rest is closed: no verdict` };
  if (run.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS) return run.count.outcome(run.coveredWeight);
  if (run.solutions.list.length > 0) return { state: RunState.RUN_STATE_SAT, message: `search complete: ${run.solutions.list.length} solution(s)` };
  const w = table.refutedWeight;
  if (Math.abs(w - 1) > 1e-6) {
    return { state: RunState.RUN_STATE_FAILED, message: `every cube refuted but the closed weights sum to ${w}, not 1 (a bookkeeping bug)` };
  }
  if (!run.spec.certify) return { state: RunState.RUN_STATE_UNSAT, message: "every cube refuted; closed weights sum to 1" };
  return run.certification.outcome(counts.unsat);
}

/** Ends the run once every cube is decided (`outcome`). */
export function* checkComplete(run: OutcomeRun): RunSteps {
  const end = outcome(run);
  if (end === "check-coverage") {
    // Certified: UNSAT only once the coverage proof is checked too (the shell proves it in the background).
    run.certification.startCoverageCheck();
    yield { type: "check-coverage" };
  } else if (end !== null) {
    yield* finish(run, end.state, end.message);
  }
}
