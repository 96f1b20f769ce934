/**
 * A run's status as the API, the runs bucket and the dashboard report it (RunStatus), read from the run model
 * (coordinator/model/run-model.ts) and what the shell knows live: the cubes workers report running (queued cubes shown
 * as "running", and a score run's slots in flight that a worker reports; once the run ended, open cubes are "purged"),
 * its closing rate (coordinator/model/rate.ts), its one ETA (coordinator/model/steady-eta.ts), why its queued cubes
 * wait, and the proofs being checked. An ended run's rates are its averages over the time it ran; a paused run and a
 * score run (anytime optimisation: nothing to close) have no ETA. Pure.
 */

import { RunState, type RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { RateTracker } from "./rate.js";
import { certificationOf } from "./run-certification.js";
import type { RunModel } from "./run-model.js";
import { isScoreRun, isScoreSlot } from "./score-slots.js";
import type { SteadyEta } from "./steady-eta.js";

/** What the shell knows of a run live, beside its model. */
export interface RunLive {
  /** Cube id -> the worker running it, from heartbeats. */
  readonly running: ReadonlyMap<string, unknown>;
  readonly rate: Pick<RateTracker, "eta" | "cubesPerSecond">;
  /** Why queued cubes wait (coordinator/model/waiting.ts); "" when they do not. */
  readonly waiting: string;
  /** Cube proofs being checked now (certified run). */
  readonly proofsPending: number;
  /** The run's smoothed ETA, fed by every status. */
  readonly eta: Pick<SteadyEta, "update" | "reset">;
}

/** Queued cubes a worker reports running, and a score run's slots in flight that a worker reports (busy slots). */
function runningCount(model: RunModel, running: RunLive["running"]): { cubes: number; slots: number } {
  let cubes = 0, slots = 0;
  for (const id of running.keys()) {
    if (isScoreSlot(id)) slots += model.table.member(id)?.open === true ? 1 : 0;
    else if (model.table.get(id)?.state === "queued") cubes++;
  }
  return { cubes, slots };
}

/** Seconds left: the smoothed tree-estimate ETA (the closed-weight one before a tree estimate); -1 when none applies. */
function etaOf(model: RunModel, live: RunLive, now: number, workEtaSeconds: number, progress: number): number {
  if (model.state !== RunState.RUN_STATE_RUNNING || isScoreRun(model.spec)) {
    live.eta.reset();
    return -1;
  }
  const table = model.table;
  const raw = workEtaSeconds >= 0 ? workEtaSeconds : live.rate.eta(now, progress - table.initialRefutedWeight, 1 - table.initialRefutedWeight);
  return live.eta.update(now, raw);
}

export function runStatus(model: RunModel, live: RunLive, now: number): RunStatus {
  const table = model.table;
  const state = model.state;
  const ended = isTerminal(state);
  const c = table.snapshotCounts();
  const busy = runningCount(model, live.running);
  let running = busy.cubes + busy.slots;
  let purged = 0;
  if (ended) {
    // The run is over: cubes still open were purged (a solution was found, or the run was cancelled).
    purged = c.queued + c.unknown;
    c.queued = 0;
    c.unknown = 0;
    running = 0;
    busy.cubes = 0;
  }
  // Closed weight: refuted, plus counted cubes in a counting run.
  const progress = Math.min(1, model.coveredWeight);
  const work = model.cubes.work.view(table.entries(), now, state === RunState.RUN_STATE_SAT || state === RunState.RUN_STATE_UNSAT, ended);
  const runningSec = model.life.runningMs(now) / 1000;
  // An ended run: its averages over the time it ran (the window's rates decay to nothing after the end).
  const cubesPerSecond = ended ? (runningSec > 0 ? (c.sat + c.unsat) / runningSec : 0) : live.rate.cubesPerSecond(now);
  if (ended && runningSec > 0) work.placementsPerSecond = work.placements / runningSec;
  const eta = ended ? 0 : etaOf(model, live, now, work.workEtaSeconds, progress);
  return {
    runId: model.id,
    state,
    cubes: { queued: c.queued - busy.cubes, running, sat: c.sat, unsat: c.unsat, unknown: c.unknown, failed: c.failed, resplit: c.resplit, refutedBySplit: c.refutedBySplit, purged },
    progress,
    etaSeconds: eta,
    cubesPerSecond,
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
    ...work,
    runningSeconds: runningSec,
    waiting: state === RunState.RUN_STATE_RUNNING ? live.waiting : "",
    initialCubes: table.initialCubes,
    ...(model.counting ? { solutionCount: model.count.counted, countComplete: model.countComplete } : {}),
  };
}
