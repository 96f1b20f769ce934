/**
 * What the run model (coordinator/model/run-model.ts) asks the JetStream shell (coordinator/shell/run.ts) to do, and the loop
 * that runs a decision: each effect is carried out before the model takes its next step.
 */

import type { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { Solution } from "../../proto/gen/cubist/v1/run.js";

export type LedgerBody = NonNullable<LedgerEntry["entry"]>;

/** A cube task and its JetStream message id (de-duplication across coordinator restarts). */
export interface TaskMessage {
  task: CubeTask;
  msgId: string;
}

/** What the shell carries out, in order. */
export type RunEffect =
  /** Append to the run's ledger (the model has applied them or applies them once this is done). */
  | { type: "append"; entries: LedgerEntry[] }
  /**
   * Publish tasks to the run's cube subject (its front subject with `front`, its lead subject with `lead`: workers
   * take lead tasks first, then front ones); the shell fills `seqs` with their stream sequences, in order.
   */
  | { type: "publish"; tasks: TaskMessage[]; seqs: number[]; front?: boolean; lead?: boolean }
  /** Stop solvers: one cube, or every cube of the run (`cube` empty). */
  | { type: "cancel"; cube: string; reason: string }
  /** Delete a queued task by its stream sequence (it may already be consumed). */
  | { type: "delete-task"; seq: number }
  /** Purge every queued task of the run (main and front subjects). */
  | { type: "purge-tasks" }
  /** Delete the run's consumers on the cube stream. */
  | { type: "delete-consumer" }
  /** The run's state changed: write its record now. */
  | { type: "write-record" }
  /** Certified run, every cube refuted: prove and check the coverage in the background, then `recordCoverage`. */
  | { type: "check-coverage" }
  /** Certified run: the coordinator checks a held proof of this cube itself in the background, then `recordOwnCheck`. */
  | { type: "check-proof"; cube: string }
  /** A long decision (a large split) lets the shell's other work run (API calls, heartbeats) before it goes on. */
  | { type: "breathe" }
  /** A verified solution, for watchers. */
  | { type: "solution"; solution: Solution };

/** A decision: effects out, the decision's result at the end. */
export type RunSteps<T = void> = Generator<RunEffect, T, void>;

/** The publish effect. */
export type PublishEffect = Extract<RunEffect, { type: "publish" }>;

/**
 * Runs a decision: each effect is carried out (and awaited) before the model takes its next step. When an effect
 * fails, the decision is abandoned with `return()`, so that its `finally` blocks run (coordinator/model/in-flight.ts).
 */
export async function runSteps<T>(steps: RunSteps<T>, carryOut: (effect: RunEffect) => Promise<void> | void): Promise<T> {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    try {
      await carryOut(next.value);
    } catch (err) {
      steps.return(undefined as T);
      throw err;
    }
  }
}
