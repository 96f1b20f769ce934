/**
 * The gRPC CubistService: each unary call is the plain function of the same name (serve/run-calls.ts), which the
 * dashboard's actions call too; the streams (WatchRun, GetCertificate) are here. Errors go through api-errors.ts;
 * authentication is checked by the server (grpc-server.ts) before a handler runs.
 */

import type { sendUnaryData, ServerUnaryCall, ServerWritableStream } from "@grpc/grpc-js";
import type { CubistServiceServer, RunEvent, RunRef, WatchRunRequest, CertificateChunk } from "../../proto/gen/cubist/v1/api.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { RunMode, type Solution } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { toServiceError } from "./api-errors.js";
import type { RunController } from "../shell/run.js";
import { certificateFiles } from "../shell/certificate.js";
import type { CoordinatorControl } from "./coordinator-view.js";
import { grpcActor } from "./actor.js";
import { listRunEvents } from "./run-events.js";
import {
  cancelRun, deleteRun, getBestBoard, getRun, getSolution, listCubes, listRuns, liveRun, pauseRun, resplitCube, resumeRun, setRunPriority, submitRun,
} from "./run-calls.js";

/** A unary handler of the plain call `fn` (given who calls, serve/actor.ts): its answer, or its error as a gRPC status. */
function unary<Req, Res>(c: CoordinatorControl, fn: (c: CoordinatorControl, req: Req, actor: string) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    fn(c, call.request, grpcActor(call.metadata, call.getPeer())).then(
      (res) => callback(null, res),
      (err) => callback(toServiceError(err)),
    );
  };
}

export function createService(c: CoordinatorControl): CubistServiceServer {
  return {
    submitRun: unary(c, submitRun),
    getRun: unary(c, getRun),
    listRuns: unary(c, listRuns),
    watchRun: (call: ServerWritableStream<WatchRunRequest, RunEvent>) => {
      void watch(c, call).catch((err) => call.destroy(Object.assign(new Error((err as Error).message), toServiceError(err))));
    },
    pauseRun: unary(c, pauseRun),
    resumeRun: unary(c, resumeRun),
    cancelRun: unary(c, cancelRun),
    setRunPriority: unary(c, setRunPriority),
    deleteRun: unary(c, deleteRun),
    listCubes: unary(c, listCubes),
    resplitCube: unary(c, resplitCube),
    getCertificate: (call: ServerWritableStream<RunRef, CertificateChunk>) => {
      // emit("error") sets the call's status and ends it (destroy() would drop the status: the client would hang).
      sendCertificate(c, call).catch((err) => call.emit("error", Object.assign(new Error((err as Error).message), toServiceError(err))));
    },
    getSolution: unary(c, getSolution),
    listRunEvents: unary(c, listRunEvents),
    getBestBoard: unary(c, getBestBoard),
  };
}

/** GetCertificate: every file of the bundle, in chunks of at most 1 MiB, waiting for the client to keep up. */
async function sendCertificate(c: CoordinatorControl, call: ServerWritableStream<RunRef, CertificateChunk>): Promise<void> {
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

/** WatchRun: a status snapshot every interval, verdicts (if asked) and solutions (not a counting run's), until the run ends. */
async function watch(c: CoordinatorControl, call: ServerWritableStream<WatchRunRequest, RunEvent>): Promise<void> {
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
  // A counting run's solutions are its count (in every status), not events: a count of millions would be a flood.
  const counting = run.spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS;
  run.on("verdict", onVerdict);
  if (!counting) run.on("solution", onSolution);
  const timer = setInterval(tick, intervalMs);
  call.on("cancelled", finish);
  call.on("close", finish);
  call.on("error", finish);
  if (call.request.verdicts) replayClosed(run, write);
  if (!counting) for (const s of run.solutions) onSolution(s);
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
