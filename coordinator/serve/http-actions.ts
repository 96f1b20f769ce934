/**
 * The dashboard's mutating calls (pause, resume, cancel, priority, re-split), run through the gRPC service implementation
 * (api.ts) so that they validate and fail exactly like the gRPC API; its status codes become HTTP statuses.
 */

import { Metadata, status as Status } from "@grpc/grpc-js";
import { CUBE_ID_RE, RUN_ID_RE } from "../../proto/contract.js";
import type { CubistServiceServer } from "../../proto/gen/cubist/v1/api.js";
import { runSummary, type RunSummary } from "./views.js";
import { HttpError } from "./api-errors.js";
import type { Coordinator } from "../shell/coordinator.js";


const HTTP_OF_GRPC: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.NOT_FOUND]: 404,
  [Status.ALREADY_EXISTS]: 409,
  [Status.FAILED_PRECONDITION]: 409,
  [Status.UNAUTHENTICATED]: 401,
  [Status.UNIMPLEMENTED]: 501,
};

/** Calls a unary handler of the gRPC service implementation directly (same validation, same errors). */
function invoke<Res>(service: CubistServiceServer, method: keyof CubistServiceServer, request: unknown): Promise<Res> {
  return new Promise((resolve, reject) => {
    const call = { request, metadata: new Metadata(), getPeer: () => "http" };
    const handler = service[method] as unknown as (c: typeof call, cb: (err: { code?: Status; details?: string } | null, res?: Res) => void) => void;
    handler(call, (err, res) => {
      if (err) reject(new HttpError(HTTP_OF_GRPC[err.code ?? Status.INTERNAL] ?? 500, err.details ?? "internal error"));
      else resolve(res as Res);
    });
  });
}

function count(v: unknown, name: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new HttpError(400, `${name} must be a non-negative integer`);
  return v;
}

export type ActionResult = { run: RunSummary | null } | { children: string[]; refuted: number };

/**
 * `path` after /api/runs/: `<run>/pause|resume|cancel|priority` or `<run>/cubes/<cube>/resplit`; null when it names no action.
 * Throws HttpError (400 for bad ids or bodies; 404, 409, ... from the API).
 */
export async function runAction(c: Coordinator, service: CubistServiceServer, path: string[], body: Record<string, unknown>): Promise<ActionResult | null> {
  const runId = path[0];
  if (!RUN_ID_RE.test(runId)) throw new HttpError(400, `"${runId.slice(0, 80)}" is not a run id`);
  const after = async (call: Promise<unknown>): Promise<ActionResult> => {
    await call;
    const run = c.getRun(runId);
    return { run: run ? runSummary(run.record(), true) : null };
  };
  if (path.length === 2 && path[1] === "pause") return after(invoke(service, "pauseRun", { runId, now: body.now === true }));
  if (path.length === 2 && path[1] === "resume") return after(invoke(service, "resumeRun", { runId }));
  if (path.length === 2 && path[1] === "cancel") {
    return after(invoke(service, "cancelRun", { runId, reason: typeof body.reason === "string" ? body.reason : "cancelled from the dashboard" }));
  }
  if (path.length === 2 && path[1] === "priority") {
    const p = body.priority;
    if (typeof p !== "number" || !Number.isInteger(p)) throw new HttpError(400, "priority must be an integer (-1000..1000)");
    return after(invoke(service, "setRunPriority", { runId, priority: p }));
  }
  if (path.length === 4 && path[1] === "cubes" && path[3] === "resplit") {
    const cubeId = path[2];
    if (!CUBE_ID_RE.test(cubeId)) throw new HttpError(400, `"${cubeId.slice(0, 80)}" is not a cube id`);
    const r = await invoke<{ children: string[]; refuted: number }>(service, "resplitCube", {
      runId, cubeId, depth: count(body.depth, "depth"), targetChildren: count(body.targetChildren, "targetChildren"),
    });
    return { children: r.children, refuted: r.refuted };
  }
  return null;
}
