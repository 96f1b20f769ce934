/**
 * Verdicts held back, unacked, until their run records more (coordinator/model/leases.ts `awaitsRecord`): a verdict that
 * answers a task still in flight (coordinator/model/in-flight.ts) is looked at again once the run settles, instead of being
 * dropped and its cube left waiting for the stall check. Bounded per run: past MAX_HELD_PER_RUN a verdict is handed
 * back to JetStream (nak with a delay) rather than held in memory.
 */

/** Held verdicts per run at most; more are handed back to JetStream for later. */
export const MAX_HELD_PER_RUN = 100_000;

export class HeldVerdicts<M> {
  private readonly byRun = new Map<string, M[]>();
  private count = 0;

  /** Holds a message; false when the run holds MAX_HELD_PER_RUN already (the caller hands it back). */
  hold(run: string, msg: M): boolean {
    const list = this.byRun.get(run) ?? [];
    if (list.length >= MAX_HELD_PER_RUN) return false;
    list.push(msg);
    this.byRun.set(run, list);
    this.count++;
    return true;
  }

  /** Every message held for the run, which is then holding none. */
  take(run: string): M[] {
    const list = this.byRun.get(run) ?? [];
    this.byRun.delete(run);
    this.count -= list.length;
    return list;
  }

  /** Messages held for one run. */
  heldFor(run: string): number {
    return this.byRun.get(run)?.length ?? 0;
  }

  /** Every held message, of every run (on close: they stay unacked and JetStream redelivers them). */
  takeAll(): M[] {
    const all = [...this.byRun.values()].flat();
    this.byRun.clear();
    this.count = 0;
    return all;
  }

  get size(): number {
    return this.count;
  }
}
