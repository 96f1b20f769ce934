/**
 * The API's calls as plain functions over the coordinator (CoordinatorControl, serve/coordinator-view.ts): each checks
 * its request, throws the coordinator's errors (coordinator/errors.ts) or InvalidOptionError, and returns the proto
 * response. The gRPC service (serve/api.ts) and the dashboard's actions (serve/http-actions.ts) both call these, so
 * the two APIs validate and fail alike; each maps errors to its own statuses, once (serve/api-errors.ts).
 */

import { basename } from "node:path";
import { InvalidOptionError } from "../../core/errors.js";
import { CUBE_ID_RE, RUN_ID_RE } from "../../proto/contract.js";
import type {
  CancelRunRequest, GetRunRequest, GetSolutionRequest, ListCubesRequest, ListCubesResponse, ListRunsRequest, ListRunsResponse,
  PauseRunRequest, ResplitCubeRequest, ResplitCubeResponse, BestBoardInfo, RunInfo, RunRef, SetRunPriorityRequest, SolutionInfo, SubmitRunRequest,
  SubmitRunResponse,
} from "../../proto/gen/cubist/v1/api.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import { cubeStateName } from "../../proto/api-vocabulary.js";
import { isTerminal, runStateName } from "../../proto/vocabulary.js";
import { FailedPreconditionError, NotFoundError } from "../errors.js";
import type { RunRequest } from "../run-spec.js";
import type { RunController } from "../shell/run.js";
import type { CoordinatorControl } from "./coordinator-view.js";
import { cubeInfo, runInfo, selectCubes } from "./views.js";

/** The run id, checked (InvalidOptionError otherwise). */
export function checkRunId(id: string): string {
  if (!RUN_ID_RE.test(id ?? "")) throw new InvalidOptionError("run_id", `"${String(id).slice(0, 80)}" is not a run id`);
  return id;
}

/** A run by id, in memory or loaded from its ledger; NotFoundError when there is none. */
export async function liveRun(c: CoordinatorControl, id: string): Promise<RunController> {
  const run = await c.loadRun(checkRunId(id));
  if (!run) throw new NotFoundError(`no run "${id}"`);
  return run;
}

/** A SubmitRun request as the run request the coordinator checks (coordinator/run-spec.ts). */
function runRequestOf(req: SubmitRunRequest): RunRequest {
  return {
    runId: req.runId || undefined,
    name: req.puzzleName ? basename(req.puzzleName).replace(/\.[^.]+$/, "") : undefined,
    puzzleText: req.puzzleText,
    puzzleLabel: req.puzzleName || "<request>",
    format: req.format || "auto",
    encoding: req.encoding || undefined,
    order: req.order || undefined,
    targetCubes: req.cubing?.targetCubes || undefined,
    maxDepth: req.cubing?.maxDepth || undefined,
    cellOrder: req.cubing?.cellOrder || undefined,
    cubeParts: req.cubing?.parts || undefined,
    // 0 is asked for (the first budget only); absent, the run's default (coordinator/model/scan-trees.ts).
    memberShare: req.cubing?.memberShare ?? undefined,
    scoreSlots: req.cubing?.scoreSlots || undefined,
    solver: req.solver?.solver || undefined,
    timeLimitSec: req.solver ? req.solver.timeLimitSec : undefined,
    conflictLimit: req.solver?.conflictLimit || undefined,
    seed: req.solver?.seed || undefined,
    searchMs: req.solver?.searchMs,
    certify: req.certify,
    spotCheckPercent: req.spotCheckPercent,
    firstTimeLimitSec: req.solver?.firstTimeLimitSec,
    objective: req.solver?.objective || undefined,
    resplitAfter: req.resplit?.afterBudgets || undefined,
    resplitDepth: req.resplit?.depth || undefined,
    resplitChildren: req.resplit?.targetChildren || undefined,
    priority: req.priority,
    mode: req.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? "all" : "first",
    solutionLimit: req.solutionLimit || undefined,
    everyBoard: req.everyBoard || undefined,
  };
}

export async function submitRun(c: CoordinatorControl, req: SubmitRunRequest): Promise<SubmitRunResponse> {
  const run = await c.submitRun(runRequestOf(req));
  return { run: runInfo(run.record()) };
}

export async function getRun(c: CoordinatorControl, req: GetRunRequest): Promise<RunInfo> {
  const live = c.getRun(checkRunId(req.runId));
  if (live) return runInfo(live.record());
  const rec = await c.runRecord(req.runId);
  if (!rec) throw new NotFoundError(`no run "${req.runId}"`);
  return runInfo(rec);
}

export async function listRuns(c: CoordinatorControl, req: ListRunsRequest): Promise<ListRunsResponse> {
  const records = await c.listRunRecords();
  const runs = records
    .filter((r) => !req.state || r.status?.state === req.state)
    .sort((a, b) => (b.spec!.createdUnixMs - a.spec!.createdUnixMs))
    .map(runInfo);
  return { runs };
}

/** A manual action's note for the run's timeline: who asked (serve/actor.ts); none when no caller is named. */
async function noteActor(run: RunController, kind: string, message: string, actor: string): Promise<void> {
  if (actor) await run.note(kind, message, actor);
}

export async function pauseRun(c: CoordinatorControl, req: PauseRunRequest, actor = ""): Promise<RunInfo> {
  const run = await liveRun(c, req.runId);
  if (run.state !== RunState.RUN_STATE_RUNNING) throw new FailedPreconditionError(`run ${run.id} is ${runStateName(run.state)}, not running`);
  await run.pause(req.now);
  await noteActor(run, "pause", "paused", actor);
  return runInfo(run.record());
}

export async function resumeRun(c: CoordinatorControl, req: RunRef, actor = ""): Promise<RunInfo> {
  const run = await liveRun(c, req.runId);
  if (run.state !== RunState.RUN_STATE_PAUSED && run.state !== RunState.RUN_STATE_FAILED) {
    throw new FailedPreconditionError(`run ${run.id} is ${runStateName(run.state)}, not paused or failed`);
  }
  await run.resume();
  await noteActor(run, "resume", "resumed", actor);
  return runInfo(run.record());
}

export async function cancelRun(c: CoordinatorControl, req: CancelRunRequest, actor = ""): Promise<RunInfo> {
  const run = await liveRun(c, req.runId);
  if (isTerminal(run.state)) throw new FailedPreconditionError(`run ${run.id} already ended (${runStateName(run.state)})`);
  await run.cancel(req.reason.slice(0, 500) || "cancelled through the API");
  await noteActor(run, "cancel", "cancelled", actor);
  return runInfo(run.record());
}

export async function setRunPriority(c: CoordinatorControl, req: SetRunPriorityRequest, actor = ""): Promise<RunInfo> {
  const run = await liveRun(c, req.runId);
  if (!Number.isInteger(req.priority) || req.priority < -1000 || req.priority > 1000) {
    throw new InvalidOptionError("priority", `must be an integer in -1000..1000, got ${req.priority}`);
  }
  if (isTerminal(run.state)) throw new FailedPreconditionError(`run ${run.id} already ended (${runStateName(run.state)})`);
  const before = run.priority;
  await run.setPriority(req.priority);
  if (before !== req.priority) await noteActor(run, "priority", `priority set to ${req.priority}`, actor);
  return runInfo(run.record());
}

export async function deleteRun(c: CoordinatorControl, req: RunRef): Promise<RunInfo> {
  const id = checkRunId(req.runId);
  const run = await c.loadRun(id);
  const rec = run ? run.record() : await c.runRecord(id);
  if (!rec) throw new NotFoundError(`no run "${id}"`);
  const state = rec.status?.state ?? RunState.RUN_STATE_UNSPECIFIED;
  if (!isTerminal(state)) throw new FailedPreconditionError(`run ${id} is ${runStateName(state)}; cancel it first`);
  await c.deleteRun(id);
  return runInfo(rec);
}

export async function listCubes(c: CoordinatorControl, req: ListCubesRequest): Promise<ListCubesResponse> {
  const run = await liveRun(c, req.runId);
  const state = req.state ? cubeStateName(req.state) : undefined;
  if (state === "") throw new InvalidOptionError("state", `${String(req.state)} is not a cube state`);
  if (!Number.isFinite(req.stuckSec) || req.stuckSec < 0) throw new InvalidOptionError("stuck_sec", `must be a non-negative number of seconds, got ${req.stuckSec}`);
  const { total, cubes } = selectCubes(run, { state, minRunningSec: req.minRunningSec, worker: req.workerId, limit: req.limit, stuckSec: req.stuckSec });
  const ids = run.shape.pieceIds;
  return { cubes: cubes.map((x) => cubeInfo(x, req.placements, ids)), total };
}

export async function resplitCube(c: CoordinatorControl, req: ResplitCubeRequest, actor = ""): Promise<ResplitCubeResponse> {
  const run = await liveRun(c, req.runId);
  if (!CUBE_ID_RE.test(req.cubeId)) throw new InvalidOptionError("cube_id", `"${req.cubeId.slice(0, 80)}" is not a cube id`);
  if (req.depth > 16) throw new InvalidOptionError("depth", `must be 1..16, got ${req.depth}`);
  if (req.targetChildren > 100_000) throw new InvalidOptionError("target_children", `must be at most 100000, got ${req.targetChildren}`);
  if (isTerminal(run.state)) throw new FailedPreconditionError(`run ${run.id} already ended`);
  const e = run.table.get(req.cubeId);
  if (!e) throw new NotFoundError(`run ${run.id} has no cube "${req.cubeId}"`);
  if (e.state !== "queued" && e.state !== "unknown" && e.state !== "failed") {
    throw new FailedPreconditionError(`cube ${e.id} is ${e.state}: only queued, running, unknown or failed cubes can be re-split`);
  }
  const before = run.table.snapshotCounts().refutedBySplit;
  const n = await run.resplit(e, { depth: req.targetChildren ? undefined : req.depth || 1, targetChildren: req.targetChildren || undefined }, "manual");
  const children = Array.from({ length: n }, (_, k) => `${e.id}.${k}`);
  await noteActor(run, "resplit", `cube ${e.id} re-split by hand into ${n} children`, actor);
  return { children, refuted: run.table.snapshotCounts().refutedBySplit - before };
}

export async function getSolution(c: CoordinatorControl, req: GetSolutionRequest): Promise<SolutionInfo> {
  const run = await liveRun(c, req.runId);
  const sol = run.solutions[req.index];
  if (!sol) throw new NotFoundError(`run ${run.id} has ${run.solutions.length} solution(s); no index ${req.index}`);
  // A recorded solution lists every cell in cell order (the coordinator verified it).
  return {
    solution: sol,
    ids: sol.cells.map((x) => run.shape.pieceIds[x.piece]),
    rots: sol.cells.map((x) => x.rot),
    svg: run.shape.svg(sol.cells, run.spec.name),
    puzzleText: run.spec.puzzleText,
  };
}

/** The run's best board so far (checked and scored when recorded), drawn; NotFoundError before a worker reported one. */
export async function getBestBoard(c: CoordinatorControl, req: RunRef): Promise<BestBoardInfo> {
  const run = await liveRun(c, req.runId);
  const best = run.best;
  if (!best) throw new NotFoundError(`run ${run.id} has no best board yet: no worker has reported one`);
  return {
    best,
    svg: run.shape.svg(best.cells, `${run.spec.name}: best board, score ${best.score} of ${best.maxScore}`),
    puzzleText: run.spec.puzzleText,
  };
}
