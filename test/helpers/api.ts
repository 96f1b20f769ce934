/**
 * A real coordinator process with its gRPC API on a free port, and a promise-based grpc-js client for it.
 */

import { freePort } from "../../cluster/free-port.js";
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import {
  CancelRunRequest, CubistServiceClient, GetRunRequest, GetSolutionRequest, ListCubesRequest, ListRunsRequest, PauseRunRequest,
  ResplitCubeRequest, RunRef, SubmitRunRequest, type RunInfo,
} from "../../proto/gen/cubist/v1/api.js";
import { RunState, type RunStatus } from "../../proto/gen/cubist/v1/run.js";

/** Request types by method, so tests can pass partial requests (ts-proto encodes only complete messages). */
const REQUESTS: Record<string, { fromPartial(o: unknown): unknown }> = {
  submitRun: SubmitRunRequest, getRun: GetRunRequest, listRuns: ListRunsRequest, pauseRun: PauseRunRequest,
  resumeRun: RunRef, cancelRun: CancelRunRequest, listCubes: ListCubesRequest, resplitCube: ResplitCubeRequest,
  getSolution: GetSolutionRequest, getBestBoard: RunRef,
};
import { spawnCubist, type CubistProcess } from "./processes.js";
import type { TestNats } from "./nats.js";

export { freePort };

export interface CoordinatorUnderTest {
  readonly proc: CubistProcess;
  readonly address: string;
}

/** Starts `cubist coordinator` against the test NATS and waits until its API listens. */
export async function spawnCoordinator(t: TestNats, extra: string[] = [], env: Record<string, string> = {}, port?: number): Promise<CoordinatorUnderTest> {
  const p = port ?? (await freePort());
  const proc = spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", `127.0.0.1:${p}`, "--log-level", "debug", ...extra], { env });
  await proc.waitForLog(/gRPC API listening/, 20_000);
  return { proc, address: `127.0.0.1:${p}` };
}

/**
 * SIGKILLs a coordinator and starts another on the same port; once the new one has resumed its runs, follows `runId`
 * until it is no longer RUNNING. Returns the new coordinator and the run as it ended.
 */
export async function replaceCoordinator(t: TestNats, killed: CoordinatorUnderTest, env: Record<string, string>, port: number, runId: string): Promise<{ next: CoordinatorUnderTest; info: RunInfo }> {
  killed.proc.kill("SIGKILL");
  await killed.proc.exited;
  const next = await spawnCoordinator(t, ["--ack-wait", "5"], env, port);
  await next.proc.waitForLog(/runs resumed/, 20_000);
  const api = apiClient(next.address);
  try {
    return { next, info: await runAfterRunning(api.call, runId) };
  } finally {
    api.close();
  }
}

export type Call = <Req, Res>(method: string, req: Req, token?: string) => Promise<Res>;

/** `call("submitRun", req)` -> response, or rejects with the ServiceError (code, details). */
export function apiClient(address: string): { call: Call; client: CubistServiceClient; close(): void } {
  const client = new CubistServiceClient(address, credentials.createInsecure());
  const call: Call = (method, req, token) =>
    new Promise((resolve, reject) => {
      const md = new Metadata();
      if (token) md.set("authorization", `Bearer ${token}`);
      const fn = (client as unknown as Record<string, (r: unknown, m: Metadata, cb: (e: ServiceError | null, res: unknown) => void) => void>)[method];
      const full = REQUESTS[method] ? REQUESTS[method].fromPartial(req) : req;
      fn.call(client, full, md, (err, res) => (err ? reject(err) : resolve(res as never)));
    });
  return { call, client, close: () => client.close() };
}

/** Polls the run (GetRun every 200 ms) until it is no longer RUNNING; throws after `timeoutMs` with its status. */
export async function runAfterRunning(call: Call, runId: string, timeoutMs = 120_000): Promise<RunInfo> {
  const end = Date.now() + timeoutMs;
  let info = await call<unknown, RunInfo>("getRun", { runId });
  while (info.status!.state === RunState.RUN_STATE_RUNNING) {
    if (Date.now() > end) throw new Error(`run did not finish: ${JSON.stringify(info.status)}`);
    await new Promise((r) => setTimeout(r, 200));
    info = await call<unknown, RunInfo>("getRun", { runId });
  }
  return info;
}

/**
 * Polls a counting run (GetRun every 20 ms) until at least `closed` cubes are closed and some solutions counted;
 * throws after `timeoutMs`. The run's state then is the caller's to check (it may have ended meanwhile).
 */
export async function runMidCount(call: Call, runId: string, closed: number, timeoutMs = 60_000): Promise<RunInfo> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const info = await call<unknown, RunInfo>("getRun", { runId });
    const s = info.status!;
    if (s.cubes!.sat + s.cubes!.unsat >= closed && (s.solutionCount ?? 0) > 0) return info;
    if (Date.now() > end) throw new Error(`cubes did not close: ${JSON.stringify(s.cubes)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls a run (GetRun every 20 ms) until `reached(status)`, as a test does before a kill mid-run: throws if the run
 * ends first ("the run ended before the kill"), or after `timeoutMs` ("no `what` in 60 s").
 */
export async function runMidRun(call: Call, runId: string, reached: (s: RunStatus) => boolean, what: string, timeoutMs = 60_000): Promise<RunStatus> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const s = (await call<unknown, RunInfo>("getRun", { runId })).status!;
    if (s.state !== RunState.RUN_STATE_RUNNING) throw new Error(`the run ended before the kill: ${JSON.stringify(s)}`);
    if (reached(s)) return s;
    if (Date.now() > end) throw new Error(`no ${what} in ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
