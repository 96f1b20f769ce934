/** A `cubist coordinator` process for tests that drive it with the CLI, as users do. */
import assert from "node:assert/strict";
import { spawnCubist, type CubistProcess } from "./processes.js";

export interface CliCoordinator {
  proc: CubistProcess;
  /** Its gRPC address (HOST:PORT). */
  address: string;
  /** Its HTTP base URL ("" without HTTP). */
  http: string;
}

/**
 * Starts `cubist coordinator` on `natsUrl` with a free gRPC port, HTTP on `http` ("off" for none) and `extra`
 * options; waits until it listens. An exit before `expected()` says so is written to stderr with its log.
 */
export async function startCliCoordinator(natsUrl: string, extra: string[], options: { http?: string; env: NodeJS.ProcessEnv; expected: () => boolean }): Promise<CliCoordinator> {
  const http = options.http ?? "off";
  const proc = spawnCubist(["coordinator", "--nats", natsUrl, "--grpc", "127.0.0.1:0", "--http", http, "--ack-wait", "10", ...extra], { env: options.env });
  void proc.exited.then(({ code, signal }) => {
    if (!options.expected()) process.stderr.write(`coordinator ${extra.join(" ")} exited early (${code ?? signal}):\n${proc.stderr()}\n`);
  });
  const line = await proc.waitForLog(/gRPC API listening/, 20_000);
  const m = /address=(\S+:\d+)/.exec(line);
  assert.ok(m, line);
  const web = http === "off" ? null : /address=(\S+:\d+)/.exec(await proc.waitForLog(/HTTP \(metrics, dashboard\) listening/, 20_000));
  return { proc, address: m[1], http: web ? `http://${web[1]}` : "" };
}
