/**
 * The shared vocabulary, defined once: run states, verdict labels, error faults and cube states as the coordinator,
 * the workers, the CLI, the metrics and the dashboard name them. The proto enums (proto/cubist/v1) are the wire
 * form; the names here are the enum values without their prefix, in lower case. The API's CubeState is mapped in
 * proto/api-vocabulary.ts: its enum lives in the gRPC service's file, and this one loads no gRPC.
 */

import type { Fault } from "../core/errors.js";
import { FaultKind, VerdictKind } from "./gen/cubist/v1/cube.js";
import { RunState } from "./gen/cubist/v1/run.js";

/** Run states by name, in lifecycle order: SPLITTING -> RUNNING <-> PAUSED -> SAT | UNSAT | FAILED | CANCELLED. */
export const RUN_STATE_NAMES = ["splitting", "running", "paused", "sat", "unsat", "failed", "cancelled"] as const;
export type RunStateName = (typeof RUN_STATE_NAMES)[number];

/** The states a run ends in; nothing changes after them. */
export const TERMINAL_RUN_STATES: ReadonlySet<RunState> = new Set([
  RunState.RUN_STATE_SAT, RunState.RUN_STATE_UNSAT, RunState.RUN_STATE_FAILED, RunState.RUN_STATE_CANCELLED,
]);

export function isTerminal(state: RunState | undefined): boolean {
  return state !== undefined && TERMINAL_RUN_STATES.has(state);
}

/** `RUN_STATE_PAUSED` -> "paused"; an unknown number -> "state-N". */
export function runStateName(state: RunState | undefined): string {
  const name = RunState[state ?? RunState.RUN_STATE_UNSPECIFIED];
  return name ? name.replace(/^RUN_STATE_/, "").toLowerCase() : `state-${String(state)}`;
}

/** "paused" -> `RUN_STATE_PAUSED`, or undefined for a name that is not a run state. */
export function runStateOf(name: string): RunState | undefined {
  const i = (RUN_STATE_NAMES as readonly string[]).indexOf(name);
  return i < 0 ? undefined : RunState[`RUN_STATE_${RUN_STATE_NAMES[i].toUpperCase()}` as keyof typeof RunState];
}

/** Verdict labels (metrics, logs, the watch view): the verdict kinds a worker sends ("best": a score run's improvement). */
export const VERDICT_LABELS = ["sat", "unsat", "unknown", "error", "best"] as const;
export type VerdictLabel = (typeof VERDICT_LABELS)[number];

/** The label of a verdict kind; anything that is not sat, unsat, unknown or best is an error. */
export function verdictLabel(kind: VerdictKind): VerdictLabel {
  switch (kind) {
    case VerdictKind.VERDICT_KIND_SAT: return "sat";
    case VerdictKind.VERDICT_KIND_UNSAT: return "unsat";
    case VerdictKind.VERDICT_KIND_UNKNOWN: return "unknown";
    case VerdictKind.VERDICT_KIND_BEST: return "best";
    default: return "error";
  }
}

/** The wire form of an error's fault (core/errors.ts). */
export function faultKindOf(fault: Fault): FaultKind {
  switch (fault) {
    case "worker": return FaultKind.FAULT_KIND_WORKER;
    case "task": return FaultKind.FAULT_KIND_TASK;
    case "transient": return FaultKind.FAULT_KIND_TRANSIENT;
    case "internal": return FaultKind.FAULT_KIND_INTERNAL;
  }
}

/**
 * The fault an error verdict carries. Unset (a worker older than the field) or a number this version does not know
 * reads as the worker's own fault: every error counted against its worker, as before the field existed.
 */
export function faultOfKind(kind: FaultKind): Fault {
  switch (kind) {
    case FaultKind.FAULT_KIND_TASK: return "task";
    case FaultKind.FAULT_KIND_TRANSIENT: return "transient";
    case FaultKind.FAULT_KIND_INTERNAL: return "internal";
    default: return "worker";
  }
}

/**
 * The reason of a verdict as the coordinator records and shows it: an error's names its fault when the worker sent
 * one ("task fault: formula unavailable: ..."), so a user sees a bad run apart from broken workers.
 */
export function verdictReason(v: { kind: VerdictKind; fault: FaultKind; reason: string }): string {
  if (verdictLabel(v.kind) !== "error" || v.fault === FaultKind.FAULT_KIND_UNSPECIFIED) return v.reason;
  return `${faultOfKind(v.fault)} fault: ${v.reason}`;
}

/** Faults that are the worker's own (its quarantine counts them): its machine, or its code. */
export function isWorkersOwn(fault: Fault): boolean {
  return fault === "worker" || fault === "internal";
}

/**
 * Cube states as the API and the dashboard report them: the cube table's states (coordinator/model/cube-entry.ts) plus
 * "running" (queued, and a worker reports it) and "purged" (queued or unknown when the run ended: never searched).
 */
export const CUBE_STATE_NAMES = ["queued", "running", "unknown", "unsat", "sat", "failed", "resplit", "purged"] as const;
export type CubeStateName = (typeof CUBE_STATE_NAMES)[number];

export { FaultKind, RunState, VerdictKind };
