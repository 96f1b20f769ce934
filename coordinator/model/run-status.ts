/**
 * A run's status as the API, the runs bucket and the dashboard report it (RunStatus), read from the run model
 * (coordinator/model/run-model.ts) and what the shell knows live: the cubes workers report running (queued cubes shown
 * as "running"; once the run ended, open cubes are "purged"), its closing rate (coordinator/model/rate.ts), why its
 * queued cubes wait, and the proofs being checked. Pure.
 */

import { RunState, type RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { RateTracker } from "./rate.js";
import { certificationOf } from "./run-certification.js";
import type { RunModel } from "./run-model.js";

/** What the shell knows of a run live, beside its model. */
export interface RunLive {
  /** Cube id -> the worker running it, from heartbeats. */
  readonly running: ReadonlyMap<string, unknown>;
  readonly rate: Pick<RateTracker, "eta" | "cubesPerSecond">;
  /** Why queued cubes wait (coordinator/model/waiting.ts); "" when they do not. */
  readonly waiting: string;
  /** Cube proofs being checked now (certified run). */
  readonly proofsPending: number;
}

export function runStatus(model: RunModel, live: RunLive, now: number): RunStatus {
  const table = model.table;
  const state = model.state;
  const ended = isTerminal(state);
  const c = table.snapshotCounts();
  let running = 0;
  for (const id of live.running.keys()) if (table.get(id)?.state === "queued") running++;
  let purged = 0;
  if (ended) {
    // The run is over: cubes still open were purged (a solution was found, or the run was cancelled).
    purged = c.queued + c.unknown;
    c.queued = 0;
    c.unknown = 0;
    running = 0;
  }
  // Closed weight: refuted, plus counted cubes in a counting run.
  const progress = Math.min(1, model.coveredWeight);
  const eta = ended ? 0 : live.rate.eta(now, progress - table.initialRefutedWeight, 1 - table.initialRefutedWeight);
  return {
    runId: model.id,
    state,
    cubes: { queued: c.queued - running, running, sat: c.sat, unsat: c.unsat, unknown: c.unknown, failed: c.failed, resplit: c.resplit, refutedBySplit: c.refutedBySplit, purged },
    progress,
    etaSeconds: eta,
    cubesPerSecond: live.rate.cubesPerSecond(now),
    solutions: model.solutions.list.length,
    rejectedModels: model.solutions.rejected,
    startedUnixMs: model.startedAt,
    finishedUnixMs: model.finishedAt,
    updatedUnixMs: now,
    priority: model.priority,
    message: model.message,
    generation: 0,
    certification: certificationOf(model.spec, model.certification, c.unsat, live.proofsPending),
    best: model.best.board ?? undefined,
    ...model.cubes.work.view(table.entries(), now, state === RunState.RUN_STATE_SAT || state === RunState.RUN_STATE_UNSAT, ended),
    waiting: state === RunState.RUN_STATE_RUNNING ? live.waiting : "",
    initialCubes: table.initialCubes,
    ...(model.counting ? { solutionCount: model.count.counted, countComplete: model.countComplete } : {}),
  };
}
