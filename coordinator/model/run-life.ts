/**
 * The run's life, a part of the run model (coordinator/model/run-model.ts): its state, the message that goes with it,
 * when it started and ended, and its priority. Changed only by `apply` ("started", "state" and "priority" entries).
 * The decisions that change the state or end the run are here too (`setState`, `finish`, `fail`).
 *
 * States: SPLITTING -> RUNNING <-> PAUSED -> SAT | UNSAT | FAILED | CANCELLED (terminal); FAILED -> RUNNING on resume
 * (its failed cubes are sent again).
 */

import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal, runStateName } from "../../proto/vocabulary.js";
import type { CubeTableView } from "./cube-table.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import type { RunBase } from "./run-recorder.js";

/** How a run ends: its final state and the message that says why. */
export interface RunEnd {
  readonly state: RunState;
  readonly message: string;
}

type LifeEntry = Extract<LedgerBody, { $case: "started" | "state" | "priority" }>;

export class RunLife {
  private current: RunState = RunState.RUN_STATE_SPLITTING;
  private text = "";
  private started = 0;
  private finished = 0;
  private prio: number;
  /** Time spent paused (or FAILED before a resume), and since when the run is in such a spell now (0: it is not). */
  private idleMs = 0;
  private idleSince = 0;

  /** `priority`: the spec's, until changed (the "priority" entry). */
  constructor(priority: number) {
    this.prio = priority;
  }

  get state(): RunState {
    return this.current;
  }

  get message(): string {
    return this.text;
  }

  get ended(): boolean {
    return isTerminal(this.current);
  }

  get startedAt(): number {
    return this.started;
  }

  /** When the run reached a terminal state (0 while it has not). */
  get finishedAt(): number {
    return this.finished;
  }

  get priority(): number {
    return this.prio;
  }

  /**
   * Milliseconds the run has spent running by `now` (or by its end): from its start, without the spells it was paused
   * (or FAILED, then resumed). So "running for" stops while a run is paused, and an ended run's rates are averages
   * over the time it ran.
   */
  runningMs(now: number): number {
    if (this.started === 0) return 0;
    const end = this.finished || now;
    const idle = this.idleMs + (this.idleSince > 0 ? Math.max(0, end - this.idleSince) : 0);
    return Math.max(0, end - this.started - idle);
  }

  apply(b: LifeEntry, atUnixMs: number): void {
    switch (b.$case) {
      case "started":
        this.started = atUnixMs;
        break;
      case "state":
        this.trackIdle(b.value.state, atUnixMs);
        this.current = b.value.state;
        this.text = b.value.message;
        this.finished = isTerminal(this.current) ? atUnixMs : 0;
        break;
      case "priority":
        this.prio = b.value;
        break;
    }
  }

  /** Opens an idle spell on PAUSED (or FAILED), closes it when the run goes on or ends. */
  private trackIdle(next: RunState, atUnixMs: number): void {
    const idle = (s: RunState): boolean => s === RunState.RUN_STATE_PAUSED || s === RunState.RUN_STATE_FAILED;
    if (this.idleSince > 0 && !idle(next)) {
      this.idleMs += Math.max(0, atUnixMs - this.idleSince);
      this.idleSince = 0;
    } else if (this.idleSince === 0 && idle(next) && this.started > 0) {
      this.idleSince = atUnixMs;
    }
  }
}

/** What the life's decisions read: the run's basics, its life, and its table's size and progress (for the log). */
export interface LifeRun extends RunBase {
  readonly life: RunLife;
  readonly cubes: { readonly table: Pick<CubeTableView, "size" | "refutedWeight"> };
}

/** Records a new state, then has the run record written. */
export function* setState(run: LifeRun, state: RunState, message: string): RunSteps {
  yield* run.recorder.record({ $case: "state", value: { state, message } });
  yield { type: "write-record" };
}

/** Ends the run: records the state, purges its queued cubes and stops running solvers. */
export function* finish(run: LifeRun, state: RunState, message: string): RunSteps {
  if (run.life.ended) return;
  yield* setState(run, state, message);
  yield { type: "purge-tasks" };
  yield { type: "cancel", cube: "", reason: runStateName(state) };
  yield { type: "delete-consumer" };
  run.log.info(`run ${runStateName(state)}`, { message, cubes: run.cubes.table.size, progress: run.cubes.table.refutedWeight });
}

/** Ends the run FAILED (the split threw). */
export function* fail(run: LifeRun, message: string): RunSteps {
  run.log.error(message);
  yield* finish(run, RunState.RUN_STATE_FAILED, message);
}
