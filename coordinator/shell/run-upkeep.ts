/**
 * The coordinator's loops over its runs while it leads (coordinator/shell/coordinator.ts starts them): the status
 * writer, which tells each run which of its cubes live workers report running and why its queued cubes wait
 * (coordinator/model/waiting.ts) and writes changed run records to the runs bucket; and the stall check, which
 * publishes again the queued cubes that no consumer holds any more, once coordinator/model/stall.ts confirms it.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { Logger } from "../../cluster/log.js";
import { runQueues } from "../../cluster/layout.js";
import type { Names } from "../../proto/contract.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { StallWatch } from "../model/stall.js";
import type { HeldVerdicts } from "../model/verdict-hold.js";
import { waitingReason } from "../model/waiting.js";
import type { RunController } from "./run.js";
import type { WorkerTable } from "./worker-table.js";

/** What the loops read of the coordinator. */
export interface UpkeepContext {
  /** The runs in memory. */
  runs(): Iterable<RunController>;
  readonly workers: Pick<WorkerTable, "live" | "runningByRun">;
  /** Verdicts held for tasks in flight (they count as work in flight). */
  readonly held: Pick<HeldVerdicts<unknown>, "heldFor" | "size">;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  readonly log: Logger;
  /** Run records may be written: the coordinator leads (or is closing) with its lease held. */
  mayWrite(): boolean;
  /** The coordinator leads (the stall check runs only then). */
  leading(): boolean;
  /** The verdict consumer of its term. */
  verdictConsumer(): string;
}

export class RunUpkeep {
  private stalls = new StallWatch();

  constructor(private readonly x: UpkeepContext) {}

  /** Forgets what the stall check saw (the coordinator stepped down). */
  reset(): void {
    this.stalls = new StallWatch();
  }

  /** Tells each run which of its cubes live workers report running, and why its queued cubes wait. */
  private refreshRunning(now: number): void {
    const byRun = this.x.workers.runningByRun(now);
    const runs = [...this.x.runs()];
    for (const run of runs) run.setRunning(byRun.get(run.id) ?? new Map());
    const live = this.x.workers.live(now).map((w) => ({ slots: w.status.slots, runs: w.status.running.map((r) => r.runId) }));
    const briefs = new Map(runs.map((r) => [r.id, { name: r.id, priority: r.priority }]));
    for (const run of runs) {
      const c = run.table.snapshotCounts();
      run.setWaiting(waitingReason({ id: run.id, queued: c.queued, running: run.running.size }, live, briefs));
    }
  }

  /** Score runs keep as many score slots going as the live workers have solver slots (coordinator/model/score-slots.ts). */
  private async growScoreSlots(now: number): Promise<void> {
    const live = this.x.workers.live(now).reduce((n, w) => n + w.status.slots, 0);
    for (const run of this.x.runs()) {
      if (run.state !== RunState.RUN_STATE_RUNNING || run.spec.solver?.objective !== "score") continue;
      await run.growScoreSlots(live).catch((err: Error) => this.x.log.debug("score slots not grown", { run: run.id, err: err.message }));
    }
  }

  /** A scan run's stopped members go on once the cubes' running time gives them their share (coordinator/model/scan-member.ts). */
  private async continueMembers(): Promise<void> {
    for (const run of this.x.runs()) {
      if (run.state !== RunState.RUN_STATE_RUNNING) continue;
      await run.continueMembers().catch((err: Error) => this.x.log.debug("members not sent on", { run: run.id, err: err.message }));
    }
  }

  /** Writes the records of the runs that changed (and of every open run: its ETA and rates move). */
  async writeStatus(): Promise<void> {
    if (!this.x.mayWrite()) return;
    const now = Date.now();
    this.refreshRunning(now);
    await this.growScoreSlots(now);
    await this.continueMembers();
    for (const run of this.x.runs()) {
      if (!isTerminal(run.state)) run.markDirty();
      try {
        await run.publishRecord(false);
      } catch (err) {
        this.x.log.debug("run record not written", { run: run.id, err: (err as Error).message });
      }
    }
  }

  /**
   * Queued cubes that no consumer holds any more (lost, or given up while no coordinator listened): published again
   * once the stall watch confirms it. Runs that recorded something since the last check are making progress and are
   * not looked at.
   */
  async checkStalls(): Promise<void> {
    if (!this.x.leading()) return;
    const { jsm, names, held } = this.x;
    // A consumer that cannot be read (NATS down, or not there) is no evidence of a stall: the check throws and waits
    // for the next round. (Counted as empty, a NATS outage made every queued cube look lost.)
    const pendingOf = async (stream: string, name: string): Promise<number> => {
      const info = await jsm.consumers.info(stream, name).catch((err: Error) => {
        if (/not found/i.test(err.message)) return null;
        throw err;
      });
      return info ? info.num_pending + info.num_ack_pending : 0;
    };
    let verdictsWaiting: number | null = null;
    for (const run of this.x.runs()) {
      // A score run's slots in flight stand for its queued cubes (it has none).
      const score = run.spec.solver?.objective === "score";
      const queued = score ? run.model.openSlots : run.table.snapshotCounts().queued;
      if (run.state !== RunState.RUN_STATE_RUNNING || queued === 0 || (!score && !run.table.initialSplitDone)) {
        this.stalls.forget(run.id);
        continue;
      }
      // A certified cube stays queued while its proof is checked (its task acked, so in no consumer): the check is
      // progress, not a stall; sent again, the cube would be proved twice.
      const inFlight = run.model.inFlight.size + held.heldFor(run.id) + (run.certifier?.pending ?? 0);
      if (!this.stalls.suspect(run.id, { queued, inFlight, recorded: run.model.applied })) continue;
      try {
        verdictsWaiting ??= await pendingOf(names.verdictsStream, this.x.verdictConsumer()) + held.size;
        let inConsumers = 0;
        for (const q of runQueues(names, run.id)) inConsumers += await pendingOf(names.cubesStream, q.consumer);
        const observation = { queued, inConsumers, inFlight, verdictsWaiting, recorded: run.model.applied };
        if (this.stalls.observe(run.id, observation, Date.now())) await run.republishQueued();
      } catch (err) {
        this.x.log.debug("stall check failed", { run: run.id, err: (err as Error).message });
      }
    }
  }
}
