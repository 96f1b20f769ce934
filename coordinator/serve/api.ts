/**
 * The gRPC CubistService: a thin mapping from calls to the coordinator. Errors go through api-errors.ts;
 * authentication is checked by the server (grpc-server.ts) before a handler runs.
 */

import { basename } from "node:path";
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from "@grpc/grpc-js";
import { InvalidOptionError } from "../../core/errors.js";
import { CUBE_ID_RE, RUN_ID_RE } from "../../proto/contract.js";
import type {
  CancelRunRequest, CubistServiceServer, GetRunRequest, GetSolutionRequest, ListCubesRequest, ListCubesResponse,
  ListRunsRequest, ListRunsResponse, PauseRunRequest, ResplitCubeRequest, ResplitCubeResponse, RunEvent, RunInfo, RunRef,
  SetRunPriorityRequest, SolutionInfo, SubmitRunRequest, SubmitRunResponse, WatchRunRequest, CertificateChunk,
} from "../../proto/gen/cubist/v1/api.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { Solution } from "../../proto/gen/cubist/v1/run.js";
import { cubeStateName, isTerminal, runStateName } from "../../proto/vocabulary.js";
import { FailedPreconditionError, NotFoundError } from "../errors.js";
import { toServiceError } from "./api-errors.js";
import type { Coordinator } from "../shell/coordinator.js";
import type { RunController } from "../shell/run.js";
import { cubeInfo, listCubes, runInfo } from "./views.js";
import { certificateFiles } from "../shell/certificate.js";

function unary<Req, Res>(fn: (req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    fn(call.request, call).then(
      (res) => callback(null, res),
      (err) => callback(toServiceError(err)),
    );
  };
}

function checkRunId(id: string): string {
  if (!RUN_ID_RE.test(id ?? "")) throw new InvalidOptionError("run_id", `"${String(id).slice(0, 80)}" is not a run id`);
  return id;
}

async function liveRun(c: Coordinator, id: string): Promise<RunController> {
  const run = await c.loadRun(checkRunId(id));
  if (!run) throw new NotFoundError(`no run "${id}"`);
  return run;
}

export function createService(c: Coordinator): CubistServiceServer {
  return {
    submitRun: unary<SubmitRunRequest, SubmitRunResponse>(async (req) => {
      const run = await c.submitRun({
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
        memberShare: req.cubing?.memberShare || undefined,
        solver: req.solver?.solver || undefined,
        timeLimitSec: req.solver ? req.solver.timeLimitSec : undefined,
        conflictLimit: req.solver?.conflictLimit || undefined,
        seed: req.solver?.seed || undefined,
        searchMs: req.solver?.searchMs,
        certify: req.certify,
        firstTimeLimitSec: req.solver?.firstTimeLimitSec,
        objective: req.solver?.objective || undefined,
        resplitAfter: req.resplit?.afterBudgets || undefined,
        resplitDepth: req.resplit?.depth || undefined,
        resplitChildren: req.resplit?.targetChildren || undefined,
        priority: req.priority,
        mode: req.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? "all" : "first",
        solutionLimit: req.solutionLimit || undefined,
        everyBoard: req.everyBoard || undefined,
      });
      return { run: runInfo(run.record()) };
    }),

    getRun: unary<GetRunRequest, RunInfo>(async (req) => {
      const live = c.getRun(checkRunId(req.runId));
      if (live) return runInfo(live.record());
      const rec = await c.runRecord(req.runId);
      if (!rec) throw new NotFoundError(`no run "${req.runId}"`);
      return runInfo(rec);
    }),

    listRuns: unary<ListRunsRequest, ListRunsResponse>(async (req) => {
      const records = await c.listRunRecords();
      const runs = records
        .filter((r) => !req.state || r.status?.state === req.state)
        .sort((a, b) => (b.spec!.createdUnixMs - a.spec!.createdUnixMs))
        .map(runInfo);
      return { runs };
    }),

    watchRun: (call: ServerWritableStream<WatchRunRequest, RunEvent>) => {
      void watch(c, call).catch((err) => call.destroy(Object.assign(new Error((err as Error).message), toServiceError(err))));
    },

    pauseRun: unary<PauseRunRequest, RunInfo>(async (req) => {
      const run = await liveRun(c, req.runId);
      if (run.state !== RunState.RUN_STATE_RUNNING) throw new FailedPreconditionError(`run ${run.id} is ${runStateName(run.state)}, not running`);
      await run.pause(req.now);
      return runInfo(run.record());
    }),

    resumeRun: unary<RunRef, RunInfo>(async (req) => {
      const run = await liveRun(c, req.runId);
      if (run.state !== RunState.RUN_STATE_PAUSED && run.state !== RunState.RUN_STATE_FAILED) {
        throw new FailedPreconditionError(`run ${run.id} is ${runStateName(run.state)}, not paused or failed`);
      }
      await run.resume();
      return runInfo(run.record());
    }),

    cancelRun: unary<CancelRunRequest, RunInfo>(async (req) => {
      const run = await liveRun(c, req.runId);
      if (isTerminal(run.state)) throw new FailedPreconditionError(`run ${run.id} already ended (${runStateName(run.state)})`);
      await run.cancel(req.reason.slice(0, 500) || "cancelled through the API");
      return runInfo(run.record());
    }),

    setRunPriority: unary<SetRunPriorityRequest, RunInfo>(async (req) => {
      const run = await liveRun(c, req.runId);
      if (!Number.isInteger(req.priority) || req.priority < -1000 || req.priority > 1000) {
        throw new InvalidOptionError("priority", `must be an integer in -1000..1000, got ${req.priority}`);
      }
      if (isTerminal(run.state)) throw new FailedPreconditionError(`run ${run.id} already ended (${runStateName(run.state)})`);
      await run.setPriority(req.priority);
      return runInfo(run.record());
    }),

    deleteRun: unary<RunRef, RunInfo>(async (req) => {
      const id = checkRunId(req.runId);
      const run = await c.loadRun(id);
      const rec = run ? run.record() : await c.runRecord(id);
      if (!rec) throw new NotFoundError(`no run "${id}"`);
      const state = rec.status?.state ?? RunState.RUN_STATE_UNSPECIFIED;
      if (!isTerminal(state)) throw new FailedPreconditionError(`run ${id} is ${runStateName(state)}; cancel it first`);
      await c.deleteRun(id);
      return runInfo(rec);
    }),

    listCubes: unary<ListCubesRequest, ListCubesResponse>(async (req) => {
      const run = await liveRun(c, req.runId);
      const state = req.state ? cubeStateName(req.state) : undefined;
      if (state === "") throw new InvalidOptionError("state", `${String(req.state)} is not a cube state`);
      if (!Number.isFinite(req.stuckSec) || req.stuckSec < 0) throw new InvalidOptionError("stuck_sec", `must be a non-negative number of seconds, got ${req.stuckSec}`);
      const { total, cubes } = listCubes(run, { state, minRunningSec: req.minRunningSec, worker: req.workerId, limit: req.limit, stuckSec: req.stuckSec });
      const ids = run.shape.pieceIds;
      return { cubes: cubes.map((x) => cubeInfo(x, req.placements, ids)), total };
    }),

    resplitCube: unary<ResplitCubeRequest, ResplitCubeResponse>(async (req) => {
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
      return { children, refuted: run.table.snapshotCounts().refutedBySplit - before };
    }),

    getCertificate: (call: ServerWritableStream<RunRef, CertificateChunk>) => {
      // emit("error") sets the call's status and ends it (destroy() would drop the status: the client would hang).
      sendCertificate(c, call).catch((err) => call.emit("error", Object.assign(new Error((err as Error).message), toServiceError(err))));
    },
    getSolution: unary<GetSolutionRequest, SolutionInfo>(async (req) => {
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
    }),
  };
}

/** GetCertificate: every file of the bundle, in chunks of at most 1 MiB, waiting for the client to keep up. */
async function sendCertificate(c: Coordinator, call: ServerWritableStream<RunRef, CertificateChunk>): Promise<void> {
  const run = await liveRun(c, call.request.runId);
  const files = await certificateFiles(run);
  const write = (chunk: CertificateChunk): Promise<void> =>
    new Promise((resolve) => {
      if (call.write(chunk)) resolve();
      else call.once("drain", resolve);
    });
  for (const f of files) {
    let held: Buffer | null = null;
    for await (const data of f.chunks()) {
      for (let off = 0; off < data.length; off += 1 << 20) {
        if (held) await write({ path: f.path, data: held, last: false });
        held = Buffer.from(data.buffer, data.byteOffset + off, Math.min(1 << 20, data.length - off));
      }
    }
    await write({ path: f.path, data: held ?? Buffer.alloc(0), last: true });
  }
  call.end();
}

/** Unflushed WatchRun events (about 100 bytes each) beyond which verdict events are dropped for that client. */
const WATCH_BACKLOG = 20_000;

/** WatchRun: a status snapshot every interval, verdicts (if asked) and solutions, until the run ends. */
async function watch(c: Coordinator, call: ServerWritableStream<WatchRunRequest, RunEvent>): Promise<void> {
  const run = await liveRun(c, call.request.runId);
  const intervalMs = Math.max(100, Math.min(60_000, (call.request.intervalSec || 1) * 1000));
  let dropped = 0;
  let closed = false;
  // Events written but not yet flushed to the transport. Verdicts arrive in bursts (a batch at a time), which
  // overflow the stream's small high-water mark even for a client that keeps up, so only a real backlog counts.
  let pending = 0;
  const flushed = (): void => void pending--;
  const write = (ev: RunEvent, droppable: boolean): void => {
    if (closed) return;
    // A slow client: droppable events (verdicts) are counted and skipped while the backlog is full, so the
    // coordinator's memory stays bounded; status snapshots and solutions always go out.
    if (droppable && pending >= WATCH_BACKLOG) {
      dropped++;
      return;
    }
    if (dropped > 0 && pending < WATCH_BACKLOG) {
      pending++;
      call.write({ event: { $case: "dropped", value: dropped } }, flushed);
      dropped = 0;
    }
    pending++;
    call.write(ev, flushed);
  };
  const onVerdict = (v: Verdict): void => {
    if (!call.request.verdicts) return;
    write({ event: { $case: "verdict", value: { cubeId: v.cubeId, kind: v.kind ?? VerdictKind.VERDICT_KIND_UNSPECIFIED, workerId: v.workerId, wallMs: v.stats?.wallMs ?? 0, conflicts: v.stats?.conflicts ?? 0, reason: v.reason, earlier: false } } }, true);
  };
  const onSolution = (s: Solution): void => write({ event: { $case: "solution", value: s } }, false);
  const finish = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(timer);
    run.off("verdict", onVerdict);
    run.off("solution", onSolution);
  };
  const tick = (): void => {
    write({ event: { $case: "status", value: run.status() } }, false);
    if (isTerminal(run.state)) {
      finish();
      call.end();
    }
  };
  run.on("verdict", onVerdict);
  run.on("solution", onSolution);
  const timer = setInterval(tick, intervalMs);
  call.on("cancelled", finish);
  call.on("close", finish);
  call.on("error", finish);
  if (call.request.verdicts) replayClosed(run, write);
  for (const s of run.solutions) onSolution(s);
  tick();
}

/**
 * The verdicts of the cubes already found sat or unsat when a watch attaches, from the cube table (worker and wall
 * time; conflicts are not kept), marked `earlier`. They are droppable like live verdicts, so a run of 200,000 closed
 * cubes costs a slow client a "dropped" count, not the coordinator's memory.
 */
function replayClosed(run: RunController, write: (ev: RunEvent, droppable: boolean) => void): void {
  for (const e of run.table.entries()) {
    if (e.state !== "sat" && e.state !== "unsat") continue;
    const kind = e.state === "sat" ? VerdictKind.VERDICT_KIND_SAT : VerdictKind.VERDICT_KIND_UNSAT;
    write({ event: { $case: "verdict", value: { cubeId: e.id, kind, workerId: e.worker ?? "", wallMs: e.wallMs ?? 0, conflicts: 0, reason: "", earlier: true } } }, true);
  }
}
