/**
 * Quarantine: a worker whose solver keeps failing stops taking cubes instead of failing them. After
 * `quarantineAfter` errors of its own in a row (a crash, garbage output, a missing solver, a full disk: the `error`
 * verdicts of worker/verdict.ts whose fault is the worker's or its code's, core/errors.ts), the worker's slots stop
 * pulling for `quarantineMs`; the reason is logged, exported as
 * `cubist_worker_quarantined` and carried in every heartbeat (`WorkerStatus.quarantined`), so `cubist`'s worker
 * views and the dashboard show "quarantined: <reason>". When the time is up the worker tries again; one more error
 * before a success sends it back for twice as long (up to a day), and any sat, unsat or unknown result ends it.
 * An error that is not the worker's (the task's: an unreadable formula, a hash mismatch; or a passing one: NATS
 * away) says nothing about its health: it neither counts nor ends a run of errors, so a bad run quarantines nobody.
 *
 * The cubes it failed are not lost: the coordinator sends each again as a new attempt, and a cube fails only when
 * several distinct workers report errors on it (coordinator/model/record-verdicts.ts).
 *
 * States: healthy -> quarantined -> probation -> healthy | quarantined.
 */

import type { Logger } from "../cluster/log.js";
import type { Fault } from "../core/errors.js";
import { isWorkersOwn } from "../proto/vocabulary.js";

export type QuarantineState = "healthy" | "quarantined" | "probation";

const MAX_QUARANTINE_MS = 86_400_000;

export class Quarantine {
  private current: QuarantineState = "healthy";
  private errorsInARow = 0;
  private why = "";
  private until = 0;
  private periodMs: number;

  constructor(
    /** Errors in a row that quarantine the worker; 0 never does. */
    private readonly after: number,
    /** How long the first quarantine lasts. */
    private readonly baseMs: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.periodMs = baseMs;
  }

  get state(): QuarantineState {
    this.expire();
    return this.current;
  }

  /** Why the worker takes no cubes now; "" when it does. */
  get reason(): string {
    return this.state === "quarantined" ? this.why : "";
  }

  /** Milliseconds until the quarantine ends (0 when not quarantined). */
  remainingMs(): number {
    return this.state === "quarantined" ? Math.max(0, this.until - this.now()) : 0;
  }

  /** Records the outcome of one cube: an error (with its fault and reason), or anything else that answered it. */
  record(outcome: { error: true; fault: Fault; reason: string } | { error: false }): void {
    this.expire();
    if (outcome.error && !isWorkersOwn(outcome.fault)) return;
    if (!outcome.error) {
      if (this.current !== "healthy") this.log.info("quarantine over: the solver answered again", { after: this.errorsInARow });
      this.errorsInARow = 0;
      this.current = "healthy";
      this.periodMs = this.baseMs;
      return;
    }
    this.errorsInARow++;
    if (this.after <= 0) return;
    if (this.current === "probation") this.periodMs = Math.min(MAX_QUARANTINE_MS, this.periodMs * 2);
    else if (this.current === "quarantined" || this.errorsInARow < this.after) return;
    this.current = "quarantined";
    this.until = this.now() + this.periodMs;
    this.why = `${this.errorsInARow} solver errors in a row; last: ${outcome.reason.slice(0, 300)}`;
    this.log.error("worker quarantined: it takes no cubes for a while", { why: this.why, forMs: this.periodMs });
  }

  /** Resolves when the quarantine ends (at once when there is none), or when `signal` aborts. */
  async wait(signal: AbortSignal): Promise<void> {
    while (this.state === "quarantined" && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(10, this.remainingMs()));
        signal.addEventListener("abort", done, { once: true });
      });
    }
  }

  private expire(): void {
    if (this.current === "quarantined" && this.now() >= this.until) {
      this.current = "probation";
      this.log.info("quarantine time over: trying cubes again", { errorsInARow: this.errorsInARow });
    }
  }
}
