/**
 * Tasks in flight: published (or being published) but not yet recorded in the run's ledger. A task is recorded only
 * after JetStream stored it (coordinator/model/run-model.ts), and a fast worker can pull it and answer before that record
 * lands. Such a verdict carries the lease of a task the coordinator really sent, so it is held until the record lands
 * and then taken like any other (coordinator/model/verdict-hold.ts), never dropped as a verdict for an unknown cube.
 *
 * Pure: the model adds a publish's tasks before it yields the publish and removes them once their ledger entry is
 * applied (or the decision was abandoned). A task is kept by reference, so the lease read is the one the task ends up
 * with (a duplicate publish takes the stored message's lease, coordinator/shell/task-publisher.ts).
 */

import type { TaskMessage } from "./run-effects.js";

export class InFlightTasks {
  private readonly byCube = new Map<string, TaskMessage[]>();
  private count = 0;

  /** Tasks about to be published. */
  add(tasks: readonly TaskMessage[]): void {
    for (const t of tasks) {
      const list = this.byCube.get(t.task.cubeId);
      if (list) list.push(t);
      else this.byCube.set(t.task.cubeId, [t]);
    }
    this.count += tasks.length;
  }

  /** Tasks recorded (or never to be recorded: the decision that published them was abandoned). */
  remove(tasks: readonly TaskMessage[]): void {
    for (const t of tasks) {
      const list = this.byCube.get(t.task.cubeId);
      const i = list?.indexOf(t) ?? -1;
      if (i < 0) continue;
      list!.splice(i, 1);
      if (list!.length === 0) this.byCube.delete(t.task.cubeId);
      this.count--;
    }
  }

  /** True when a task of this cube with this lease is in flight: its verdict is to be held, not dropped. */
  has(cubeId: string, lease: string): boolean {
    return lease !== "" && (this.byCube.get(cubeId)?.some((t) => t.task.lease === lease) ?? false);
  }

  /** True when a task of this cube is in flight, whatever its lease. */
  hasCube(cubeId: string): boolean {
    return this.byCube.has(cubeId);
  }

  /** Tasks in flight now. */
  get size(): number {
    return this.count;
  }
}
