/**
 * The dashboard's mutating calls (pause, resume, cancel, priority, re-split): the API's own calls (serve/run-calls.ts),
 * so that they validate and fail exactly like the gRPC API; their errors become HTTP statuses (serve/api-errors.ts
 * `httpErrorOf`).
 */

import { CUBE_ID_RE, RUN_ID_RE } from "../../proto/contract.js";
import { runSummary, type RunSummary } from "./views.js";
import { HttpError, httpErrorOf } from "./api-errors.js";
import type { CoordinatorControl } from "./coordinator-view.js";
import { cancelRun, pauseRun, resplitCube, resumeRun, setRunPriority } from "./run-calls.js";

export type ActionResult = { run: RunSummary | null } | { children: string[]; refuted: number };

function count(v: unknown, name: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw new HttpError(400, `${name} must be a non-negative integer`);
  return v;
}

/** An API call's answer; its error as the HTTP error of its status. */
async function answer<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw httpErrorOf(err);
  }
}

/** The run actions, by their last path segment: each makes its API call (and checks its body first). */
const RUN_ACTIONS: Readonly<Record<string, (c: CoordinatorControl, runId: string, body: Record<string, unknown>, actor: string) => Promise<unknown>>> = {
  pause: (c, runId, body, actor) => answer(pauseRun(c, { runId, now: body.now === true }, actor)),
  resume: (c, runId, _body, actor) => answer(resumeRun(c, { runId }, actor)),
  cancel: (c, runId, body, actor) => answer(cancelRun(c, { runId, reason: typeof body.reason === "string" ? body.reason : "cancelled from the dashboard" }, actor)),
  priority: (c, runId, body, actor) => {
    const p = body.priority;
    if (typeof p !== "number" || !Number.isInteger(p)) throw new HttpError(400, "priority must be an integer (-1000..1000)");
    return answer(setRunPriority(c, { runId, priority: p }, actor));
  },
};

/**
 * `path` after /api/runs/: `<run>/pause|resume|cancel|priority` or `<run>/cubes/<cube>/resplit`; null when it names no action. `actor`: who asks
 * (serve/actor.ts), for the run's timeline.
 * Throws HttpError (400 for bad ids or bodies; 404, 409, ... from the API).
 */
export async function runAction(c: CoordinatorControl, path: string[], body: Record<string, unknown>, actor = ""): Promise<ActionResult | null> {
  const runId = path[0];
  if (!RUN_ID_RE.test(runId)) throw new HttpError(400, `"${runId.slice(0, 80)}" is not a run id`);
  const action = path.length === 2 && Object.hasOwn(RUN_ACTIONS, path[1]) ? RUN_ACTIONS[path[1]] : undefined;
  if (action) {
    await action(c, runId, body, actor);
    const run = c.getRun(runId);
    return { run: run ? runSummary(run.record(), true) : null };
  }
  if (path.length === 4 && path[1] === "cubes" && path[3] === "resplit") {
    const cubeId = path[2];
    if (!CUBE_ID_RE.test(cubeId)) throw new HttpError(400, `"${cubeId.slice(0, 80)}" is not a cube id`);
    const r = await answer(resplitCube(c, { runId, cubeId, depth: count(body.depth, "depth"), targetChildren: count(body.targetChildren, "targetChildren") }, actor));
    return { children: r.children, refuted: r.refuted };
  }
  return null;
}
