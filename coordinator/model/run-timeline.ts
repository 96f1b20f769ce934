/**
 * The run's timeline, a part of the run model (coordinator/model/run-model.ts): what a user back from a weekend wants
 * to know happened to a run (submitted, paused, resumed, priority changed, a manual re-split and by whom, a worker
 * quarantined, a coordinator took over, the best score improved, a solution found, ended), read from the ledger's
 * entries. It keeps no store of its own: replaying the ledger after a restart rebuilds it exactly, with each event's
 * ledger time and the leader term that wrote it.
 *
 * Most events come from the entries that change the run; a "note" entry (RunNote) adds what those do not say. A note
 * of a manual action ("pause", "resume", "cancel", "priority", "resplit") follows the entry of the action and names
 * who asked: it completes that event rather than adding one. Noisy kinds are bounded (NOISY_LIMIT): beyond their
 * limit an event is counted in `omitted`, not kept.
 */

import { RunMode, RunState, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal, runStateName } from "../../proto/vocabulary.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { LedgerBody } from "./run-effects.js";

/** The kinds of timeline event; one name each in the API, the CLI and the dashboard. */
export const TIMELINE_KINDS = [
  "submitted", "paused", "resumed", "priority", "resplit", "quarantine", "quarantine-lifted", "takeover", "best", "solution",
  "cube-failed", "coverage", "ended", "note",
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One event of a run's timeline. */
export interface TimelineEvent {
  readonly atUnixMs: number;
  readonly kind: TimelineKind;
  readonly message: string;
  /** Who: an API caller, a coordinator's instance id, a worker id; "" when the run did it itself. */
  actor: string;
  /** The leader term of the coordinator that recorded it (0: before leader leases). */
  readonly term: number;
}

/** Events kept per noisy kind; more are counted in `omitted`. */
export const NOISY_LIMIT: Readonly<Partial<Record<TimelineKind, number>>> = { best: 500, solution: 20, "cube-failed": 50, quarantine: 100, "quarantine-lifted": 100, note: 200 };

/** Note kinds that complete the event of the action just recorded (its actor) rather than adding one. */
const ACTION_NOTES: Readonly<Record<string, TimelineKind>> = { pause: "paused", resume: "resumed", cancel: "ended", priority: "priority", resplit: "resplit" };

/** How far back a note looks for the event of its action (the entries a manual action records before its note). */
const ACTION_LOOKBACK = 4;

export class RunTimeline {
  private readonly list: TimelineEvent[] = [];
  private readonly skipped = new Map<TimelineKind, number>();
  private readonly kept = new Map<TimelineKind, number>();
  private state: RunState = RunState.RUN_STATE_SPLITTING;
  private priority = 0;
  /** Per parent cube: children of a manual re-split added so far (its batches end with `last`). */
  private readonly resplitChildren = new Map<string, number>();
  /** Workers the timeline says are quarantined now (a note each way). */
  private readonly quarantined = new Set<string>();

  /** Every event kept, oldest first. */
  get events(): readonly TimelineEvent[] {
    return this.list;
  }

  /** Events not kept, by kind (beyond NOISY_LIMIT). */
  get omitted(): ReadonlyMap<TimelineKind, number> {
    return this.skipped;
  }

  /** Whether the timeline's last word on `worker` is that it is quarantined. */
  isQuarantined(worker: string): boolean {
    return this.quarantined.has(worker);
  }

  apply(e: LedgerEntry): void {
    const b = e.entry;
    if (!b) return;
    const add = (kind: TimelineKind, message: string, actor = ""): void => this.add({ atUnixMs: e.atUnixMs, kind, message, actor, term: e.term });
    switch (b.$case) {
      case "started":
        this.priority = b.value.priority;
        return add("submitted", submittedText(b.value));
      case "state":
        return this.applyState(b.value.state, b.value.message, add);
      case "priority":
        add("priority", `priority ${this.priority} -> ${b.value}`);
        this.priority = b.value;
        return;
      case "added":
        return this.applyAdded(b.value, add);
      case "failed":
        return add("cube-failed", `cube ${b.value.id} failed: ${b.value.reason}`);
      case "solution":
        return add("solution", `solution ${b.value.index + 1} found on cube ${b.value.cubeId}`, b.value.workerId);
      case "best":
        return add("best", `best score ${b.value.score}/${b.value.maxScore} (${b.value.placed} pieces placed) on cube ${b.value.cubeId}`, b.value.workerId);
      case "coverage":
        return add("coverage", b.value.ok ? "coverage proof checked" : `coverage proof refused: ${b.value.message}`);
      case "note":
        return this.applyNote(b.value, add);
      default:
        return;
    }
  }

  private applyState(next: RunState, message: string, add: (kind: TimelineKind, message: string) => void): void {
    const prev = this.state;
    this.state = next;
    // "paused" with the message "paused (running cubes stopped)" says it once.
    const text = (word: string): string => (!message ? word : message.startsWith(word) ? message : `${word}: ${message}`);
    if (isTerminal(next)) add("ended", text(`ended ${runStateName(next)}`));
    else if (next === RunState.RUN_STATE_PAUSED) add("paused", text("paused"));
    else if (next === RunState.RUN_STATE_RUNNING && (prev === RunState.RUN_STATE_PAUSED || prev === RunState.RUN_STATE_FAILED)) add("resumed", text("resumed"));
  }

  private applyAdded(a: Extract<LedgerBody, { $case: "added" }>["value"], add: (kind: TimelineKind, message: string) => void): void {
    if (a.reason !== "manual" || !a.parent) return;
    const n = (this.resplitChildren.get(a.parent) ?? 0) + a.cubes.length;
    if (!a.last) {
      this.resplitChildren.set(a.parent, n);
      return;
    }
    this.resplitChildren.delete(a.parent);
    const refuted = a.refutedCount > 0 ? `, ${a.refutedCount} refuted by the split` : "";
    add("resplit", `cube ${a.parent} re-split by hand into ${n} children${refuted}`);
  }

  private applyNote(n: Extract<LedgerBody, { $case: "note" }>["value"], add: (kind: TimelineKind, message: string, actor?: string) => void): void {
    const action = ACTION_NOTES[n.kind];
    if (action) {
      const tail = this.list.slice(-ACTION_LOOKBACK);
      const done = tail.reverse().find((x) => x.kind === action && x.actor === "");
      if (done) {
        done.actor = n.actor;
        return;
      }
      return add(action, n.message, n.actor);
    }
    if (n.kind === "quarantine" || n.kind === "quarantine-lifted") {
      // The actor of a quarantine note is the worker.
      if (n.kind === "quarantine") this.quarantined.add(n.actor);
      else this.quarantined.delete(n.actor);
      return add(n.kind, n.message, n.actor);
    }
    // A spot check sent is routine (a few percent of refuted cubes); what it finds ("distrusted") is an event.
    if (n.kind === "spot-check") return;
    add(n.kind === "takeover" ? "takeover" : "note", n.message, n.actor);
  }

  private add(ev: TimelineEvent): void {
    const limit = NOISY_LIMIT[ev.kind];
    const kept = this.kept.get(ev.kind) ?? 0;
    if (limit !== undefined && kept >= limit) {
      this.skipped.set(ev.kind, (this.skipped.get(ev.kind) ?? 0) + 1);
      return;
    }
    this.kept.set(ev.kind, kept + 1);
    this.list.push(ev);
  }
}

/** "submitted: gen-6x6, first solution, 16 cubes asked, priority 0". */
function submittedText(spec: RunSpec): string {
  const mode = spec.solver?.objective === "score" ? "score" : spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? "all solutions" : "first solution";
  const cubes = spec.cubing?.targetCubes ? `, ${spec.cubing.targetCubes} cubes asked` : "";
  return `submitted: ${spec.name || spec.runId}, ${mode}${cubes}, priority ${spec.priority}`;
}
