/**
 * The stall check's decision (coordinator/shell/run-upkeep.ts carries it out): a run whose queued cubes no consumer holds
 * any more (a task lost with a dropped verdict, given up by JetStream while no coordinator listened, purged by
 * hand) would wait forever, so those cubes are published again. "No consumer holds them" must be seen twice, at
 * least `confirmMs` apart, with nothing recorded for the run in between, no task in flight and no verdict waiting
 * anywhere: a verdict on its way (milliseconds) is then never mistaken for a stall, and a real stall is mended in
 * seconds. Pure: observations in, a decision out.
 */

/** What the coordinator sees of one run at one stall check. */
export interface StallObservation {
  /** Cubes the run's table has queued. */
  readonly queued: number;
  /** Messages the run's consumers hold (pending plus waiting for an ack). */
  readonly inConsumers: number;
  /** Tasks published but not yet recorded (coordinator/model/in-flight.ts), verdicts held for them, and proofs being checked. */
  readonly inFlight: number;
  /** Verdicts not yet processed by the coordinator (its own consumer's pending and unacked messages). */
  readonly verdictsWaiting: number;
  /** Anything that changes when the run records something (its ledger entries so far). */
  readonly recorded: number;
}

/** Published again after this long with no consumer holding a queued cube. @default 2000 */
export const DEFAULT_STALL_CONFIRM_MS = 2000;

export class StallWatch {
  private readonly first = new Map<string, { at: number; recorded: number }>();
  private readonly lastRecorded = new Map<string, number>();

  constructor(private readonly confirmMs = DEFAULT_STALL_CONFIRM_MS) {}

  /**
   * The cheap part, before anything is asked of JetStream: a run that has queued cubes, no task in flight, and
   * recorded nothing since the previous check may be stalled. A run that records is making progress.
   */
  suspect(run: string, o: Pick<StallObservation, "queued" | "inFlight" | "recorded">): boolean {
    const before = this.lastRecorded.get(run);
    this.lastRecorded.set(run, o.recorded);
    if (o.queued === 0 || o.inFlight > 0 || before !== o.recorded) {
      this.first.delete(run);
      return false;
    }
    return true;
  }

  /** True when the run's queued cubes are to be published again now. */
  observe(run: string, o: StallObservation, now: number): boolean {
    const stalled = o.queued > 0 && o.inConsumers === 0 && o.inFlight === 0 && o.verdictsWaiting === 0;
    if (!stalled) {
      this.first.delete(run);
      return false;
    }
    const seen = this.first.get(run);
    if (!seen || seen.recorded !== o.recorded) {
      this.first.set(run, { at: now, recorded: o.recorded });
      return false;
    }
    if (now - seen.at < this.confirmMs) return false;
    this.first.delete(run);
    return true;
  }

  /** Forgets a run (ended, deleted, or another coordinator leads). */
  forget(run: string): void {
    this.first.delete(run);
    this.lastRecorded.delete(run);
  }
}
