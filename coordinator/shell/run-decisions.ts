/**
 * Carries out a run's decisions (coordinator/model/run-effects.ts): each effect in turn through `perform`. A decision
 * that a failed effect stopped may have applied facts it did not record (coordinator/model/run-recorder.ts); they are
 * recorded at once, since the verdicts behind them come back as redeliveries that the run, which applied them,
 * ignores, or before the run's next decision when that fails too. A coordinator that no longer leads records nothing:
 * it drops its runs, and the next leader rebuilds them from the ledger.
 */

import type { Logger } from "../../cluster/log.js";
import { runSteps, type RunEffect, type RunSteps } from "../model/run-effects.js";
import type { RunModel } from "../model/run-model.js";
import { NotLeaderError } from "../errors.js";
import { LedgerFencedError } from "./ledger.js";

export class RunDecisions {
  /** A stopped decision's debts are not recorded yet. */
  private owing = false;

  constructor(
    private readonly model: Pick<RunModel, "recorder" | "recordOwed">,
    private readonly perform: (effect: RunEffect) => Promise<void>,
    private readonly log: Logger,
    /** After every decision, carried out or stopped: the run's record is to be written again. */
    private readonly changed: () => void,
  ) {}

  async carryOut<T>(steps: RunSteps<T>): Promise<T> {
    try {
      if (this.owing) await this.payOwed();
      try {
        return await runSteps(steps, this.perform);
      } catch (err) {
        await this.recordOwed(err as Error);
        throw err;
      }
    } finally {
      this.changed();
    }
  }

  private async recordOwed(cause: Error): Promise<void> {
    if (cause instanceof NotLeaderError || cause instanceof LedgerFencedError || !this.model.recorder.owes) return;
    this.log.warn("a decision stopped before it was recorded; recording what it applied", { err: cause.message });
    await this.payOwed().catch((err) => this.log.error("recording what a stopped decision applied failed", { err: (err as Error).message }));
  }

  private async payOwed(): Promise<void> {
    this.owing = true;
    await runSteps(this.model.recordOwed(), this.perform);
    this.owing = false;
  }
}
