/**
 * A real coordinator process with its gRPC API on a free port, and a promise-based grpc-js client for it.
 */

import { freePort } from "../../cluster/free-port.js";
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import {
  CancelRunRequest, CubistServiceClient, GetRunRequest, GetSolutionRequest, ListCubesRequest, ListRunsRequest, PauseRunRequest,
  ResplitCubeRequest, RunRef, SubmitRunRequest,
} from "../../proto/gen/cubist/v1/api.js";

/** Request types by method, so tests can pass partial requests (ts-proto encodes only complete messages). */
const REQUESTS: Record<string, { fromPartial(o: unknown): unknown }> = {
  submitRun: SubmitRunRequest, getRun: GetRunRequest, listRuns: ListRunsRequest, pauseRun: PauseRunRequest,
  resumeRun: RunRef, cancelRun: CancelRunRequest, listCubes: ListCubesRequest, resplitCube: ResplitCubeRequest,
  getSolution: GetSolutionRequest,
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
