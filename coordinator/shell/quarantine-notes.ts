/**
 * Workers quarantined, on the runs' timelines (coordinator/model/run-timeline.ts): when a worker's heartbeat says it
 * takes no cubes (worker/quarantine.ts), or takes them again, every open run whose timeline says otherwise gets a
 * note. The timeline is read from the ledger, so a coordinator that starts again, or takes over, notes only changes:
 * no note twice for one quarantine.
 */

import type { Logger } from "../../cluster/log.js";
import type { WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";
import type { RunController } from "./run.js";

export class QuarantineNotes {
  /** Notes being written (run and worker): a heartbeat that arrives meanwhile does not write another. */
  private readonly pending = new Set<string>();

  constructor(private readonly log: Logger) {}

  /** A worker's heartbeat, believed (coordinator/shell/heartbeats.ts); the caller leads. */
  seen(status: WorkerStatus, runs: Iterable<RunController>): void {
    const worker = status.workerId;
    const on = status.quarantined !== "";
    for (const run of runs) {
      if (run.model.ended || run.timeline.isQuarantined(worker) === on) continue;
      const key = `${run.id}\n${worker}`;
      if (this.pending.has(key)) continue;
      this.pending.add(key);
      const message = on ? `worker ${worker} quarantined: ${status.quarantined}` : `worker ${worker} takes cubes again`;
      run.note(on ? "quarantine" : "quarantine-lifted", message, worker)
        .catch((err: Error) => this.log.debug("quarantine note not recorded", { run: run.id, worker, err: err.message }))
        .finally(() => this.pending.delete(key));
    }
  }
}
