/**
 * How a run's decisions record what they decide. A ledger entry is stamped by the injected clock; `record` yields its
 * append and applies it once it is durable, `applyAndRecord` applies it at once (later steps of the same decision
 * must see it) and then appends it, `applyClosedNow` applies a closed cube and leaves the append to a later batch, and
 * `publishAndRecord` publishes tasks, keeps them in flight (coordinator/model/in-flight.ts) until their entry is
 * applied, then tells the shell (`settled`). Applying is always the run model's `apply` (coordinator/model/run-model.ts),
 * which hands the entry to the parts it concerns: nothing else changes a run's state.
 *
 * What was applied before it was recorded is owed to the ledger until its append succeeds. A decision that an effect
 * stopped (a task publish failed while NATS lost a node) leaves debts: the shell records them at once (`recordOwed`),
 * since the verdicts that caused them come back as redeliveries that the model, which already applied them, ignores.
 */

import type { Logger } from "../../cluster/log.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import type { CubeClosed, LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { RunSpec } from "../../proto/gen/cubist/v1/run.js";
import { InFlightTasks } from "./in-flight.js";
import type { LedgerBody, PublishEffect, RunSteps, TaskMessage } from "./run-effects.js";
import type { RunShape } from "./shape.js";
import { taskMessage, type MemberTask } from "./task-message.js";

export interface RunModelOptions {
  /** Deliveries (and error verdicts) of one cube before it is marked failed. */
  readonly maxDeliver: number;
  /** Cubes per ledger batch while publishing a split. */
  readonly batchSize: number;
  /** Milliseconds since the epoch: ledger times, solution times, message ids of retries. */
  readonly clock: () => number;
  readonly log: Logger;
  /** A fresh lease token for each task published (the shell's: coordinator/shell/lease-tokens.ts, 128 random bits). */
  readonly lease: () => string;
  /** The leader term the entries are written in (the ledger stamps it as it writes: coordinator/shell/ledger.ts). @default 0 */
  readonly term?: () => number;
  /** Resident memory in MB, for the split's log lines. @default none */
  readonly memoryMB?: () => number;
  /** Tasks in flight were recorded (or abandoned): verdicts held for them can be looked at again (coordinator/model/in-flight.ts). */
  readonly settled?: () => void;
  /**
   * True when a worker other than `worker`, live and trusted, can solve a spot check of its refutation
   * (coordinator/model/run-trust.ts). @default none: no spot checks
   */
  readonly checkers?: (worker: string) => boolean;
  /**
   * True when the coordinator has a proof-check slot free for this run (coordinator/shell/certify.ts): it checks a
   * held proof itself at once instead of sending it to another worker (coordinator/model/proof-checks.ts). @default none
   */
  readonly ownCheckFree?: () => boolean;
  /**
   * Why a worker is distrusted by a spot check of any run the coordinator holds (coordinator/model/run-trust.ts):
   * its verdicts are not taken in this run either. @default none
   */
  readonly distrustedElsewhere?: (worker: string) => string | undefined;
  /**
   * The run's tasks that live workers report running now, each with its start (ms since the epoch; the workers'
   * heartbeats): a scan run's members weigh their share against this time too (coordinator/model/scan-member.ts), not
   * only against verdicts already back, which lag a whole cube budget behind. @default none
   */
  readonly running?: () => ReadonlyArray<RunningTask>;
}

/** A task a live worker reports running (its heartbeat): the cube's (or member's) id, and since when (ms since the epoch). */
export interface RunningTask {
  readonly cube: string;
  readonly sinceMs: number;
}

/** What every decision of a run reads: its spec, its shape, the options, the log, and the recorder it records through. */
export interface RunBase {
  readonly spec: RunSpec;
  /** The run's puzzle, square or triangle, and its base formula (coordinator/model/shape.ts). */
  readonly shape: RunShape;
  readonly opts: RunModelOptions;
  readonly log: Logger;
  readonly recorder: RunRecorder;
}

/** A cube as a task describes it: its id, its placements and (scan cubes) the part and progress of its search. */
export interface TaskCube {
  readonly id: string;
  readonly placements: readonly Placement[];
  readonly part?: CubePart;
  readonly progress?: PartProgress;
}

export class RunRecorder {
  /** Tasks published but not yet recorded: their verdicts are held, not dropped (coordinator/model/in-flight.ts). */
  readonly inFlight = new InFlightTasks();
  /** Entries applied and not yet recorded (`applyAndRecord`), in the order applied. */
  private readonly owedEntries = new Set<LedgerEntry>();
  /** Closed records applied and not yet recorded (`applyClosedNow`, then `recordClosed`). */
  private readonly owedClosed = new Set<CubeClosed>();

  constructor(
    private readonly spec: RunSpec,
    private readonly shape: RunShape,
    private readonly opts: RunModelOptions,
    /** The run model's `apply`. */
    private readonly apply: (e: LedgerEntry) => void,
  ) {}

  /** An entry stamped now, in the current term (the ledger stamps the term again as it writes it). */
  entry(body: LedgerBody): LedgerEntry {
    return { atUnixMs: this.opts.clock(), term: this.opts.term?.() ?? 0, entry: body };
  }

  /** Records an entry, then applies it: memory shows the fact once it is durable. */
  *record(body: LedgerBody): RunSteps {
    yield* this.recordAll([body]);
  }

  /** Records entries in one append, then applies them in order. */
  *recordAll(bodies: readonly LedgerBody[]): RunSteps {
    const entries = bodies.map((b) => this.entry(b));
    yield { type: "append", entries };
    for (const e of entries) this.apply(e);
  }

  /** Applies an entry at once (later steps of the same decision must see it), then records it. */
  *applyAndRecord(body: LedgerBody): RunSteps {
    const e = this.entry(body);
    this.apply(e);
    this.owedEntries.add(e);
    yield* this.pay([e], []);
  }

  /** Applies a cube's closed record now; the caller records it later, in a batch (`recordClosed`). */
  applyClosedNow(c: CubeClosed): void {
    this.apply(this.entry({ $case: "closed", value: { cubes: [c] } }));
    this.owedClosed.add(c);
  }

  /**
   * Records closed records applied with `applyClosedNow`, at most `batchSize` to an entry: a member that exhausts its
   * tree closes every open cube at once, thousands after many re-splits, and one entry of them all could exceed NATS's
   * largest message, which the ledger then retried for minutes while the run hung. Records already recorded (as debts
   * of a stopped decision) are left out.
   */
  *recordClosed(closed: readonly CubeClosed[]): RunSteps {
    yield* this.pay([], closed);
  }

  /** Records everything applied and not yet recorded (after a decision stopped by a failed effect); nothing when nothing is owed. */
  *recordOwed(): RunSteps {
    yield* this.pay([...this.owedEntries], [...this.owedClosed]);
  }

  /** True while something applied is not yet recorded (only within a decision, or after one stopped by a failed effect). */
  get owes(): boolean {
    return this.owedEntries.size + this.owedClosed.size > 0;
  }

  /**
   * Appends the debts among `entries` and `closed`, taken off the books while their append is in flight (so that two
   * decisions never record the same fact) and put back if it fails.
   */
  private *pay(entries: readonly LedgerEntry[], closed: readonly CubeClosed[]): RunSteps {
    const dueEntries = entries.filter((e) => this.owedEntries.delete(e));
    const dueClosed = closed.filter((c) => this.owedClosed.delete(c));
    if (dueEntries.length + dueClosed.length === 0) return;
    const size = Math.max(1, this.opts.batchSize);
    const batches = [];
    for (let i = 0; i < dueClosed.length; i += size) batches.push(this.entry({ $case: "closed", value: { cubes: dueClosed.slice(i, i + size) } }));
    let recorded = false;
    try {
      yield { type: "append", entries: [...dueEntries, ...batches] };
      recorded = true;
    } finally {
      if (!recorded) {
        for (const e of dueEntries) this.owedEntries.add(e);
        for (const c of dueClosed) this.owedClosed.add(c);
      }
    }
  }

  /**
   * Publishes tasks, then records what the publish stored (`body` reads its sequences and leases). The tasks are in
   * flight from before the publish until the record is applied, or the decision abandoned; then `settled` tells the
   * shell to look at the verdicts it held for them.
   */
  *publishAndRecord(publish: PublishEffect, body: () => LedgerBody): RunSteps {
    this.inFlight.add(publish.tasks);
    try {
      yield publish;
      yield* this.record(body());
    } finally {
      this.inFlight.remove(publish.tasks);
      this.opts.settled?.();
    }
  }

  /** A cube's task with a fresh lease (coordinator/model/task-message.ts); `member`: a portfolio member's tree and budget. */
  task(cube: TaskCube, attempt: number, member?: MemberTask): TaskMessage {
    return taskMessage(this.spec, this.shape, cube, attempt, this.opts.clock(), this.opts.lease(), member);
  }
}
