/**
 * Processes of a hand-started cluster for the benchmarks, as docs/operations.md starts them: nats-server with
 * JetStream on its own store, `cubist coordinator` and `cubist worker` (the built CLI, each in a process group of its
 * own so a kill takes its solvers too), and a unary gRPC call to the coordinator. With DEPLOYED_LOGS=DIR each cubist
 * process's stderr (its logs) is also appended to DIR/<command>[-<id>].log.
 */

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Metadata } from "@grpc/grpc-js";
import { GetSolutionRequest, type CubistServiceClient } from "../../proto/gen/cubist/v1/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";

export const CLI = ["dist/cli/main.js"];

/** A cubist process (its own process group). */
export function cubist(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const p = spawn(process.execPath, [...CLI, ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env }, detached: true });
  const logs = process.env.DEPLOYED_LOGS;
  p.stderr!.on("data", (d: Buffer) => {
    if (!logs) return;
    const id = args.includes("--id") ? `-${args[args.indexOf("--id") + 1]}` : "";
    appendFileSync(join(logs, `${args[0]}${id}.log`), d);
  });
  return p;
}

/** Sends `sig` to the process's group; a process already gone is fine. */
export function killGroup(p: ChildProcess | null, sig: NodeJS.Signals): void {
  try {
    if (p?.pid) process.kill(-p.pid, sig);
  } catch {
    // gone
  }
}

export const exited = (p: ChildProcess): Promise<void> => new Promise((r) => (p.exitCode !== null || p.signalCode !== null ? r() : p.once("exit", () => r())));

/** Resolves when the process's stderr has matched `re`; rejects after `ms` with the tail of what it wrote. */
export function waitLog(p: ChildProcess, re: RegExp, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const t = setTimeout(() => reject(new Error(`no ${re} within ${ms} ms:\n${buf.slice(-2000)}`)), ms);
    p.stderr!.on("data", (d: Buffer) => {
      buf += d.toString();
      if (re.test(buf)) {
        clearTimeout(t);
        resolve();
      }
    });
  });
}

/** A nats-server with JetStream on `port` and the given store, ready. */
export async function startNats(port: number, store: string): Promise<ChildProcess> {
  const p = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", store], { stdio: ["ignore", "ignore", "pipe"], detached: true });
  await waitLog(p, /Server is ready/, 20_000);
  return p;
}

/** A unary call of the coordinator's gRPC API by method name. */
export function unary<Req, Res>(client: CubistServiceClient, method: string, req: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = (client as unknown as Record<string, (r: Req, m: Metadata, cb: (e: Error | null, r: Res) => void) => void>)[method];
    fn.call(client, req, new Metadata(), (e, r) => (e ? reject(e) : resolve(r)));
  });
}

/** An ended run's answer as the benchmarks record it: "sat", "unsat", or the state's name. */
export function answerOf(state: RunState): string {
  return state === RunState.RUN_STATE_UNSAT ? "unsat" : state === RunState.RUN_STATE_SAT ? "sat" : RunState[state];
}

type Solution = { ids: number[]; rots: number[]; solution?: { cols: number } };

/**
 * Whether a run's first solution passes `cubist verify` against `file`: asked of each coordinator in turn (a standby
 * answers UNAVAILABLE naming the leader), written as a board under `dir`.
 */
export async function solutionVerifies(clients: CubistServiceClient[], runId: string, file: string, dir: string): Promise<boolean> {
  let sol: Solution | null = null;
  let last: unknown = null;
  for (const client of clients) {
    sol = await unary<GetSolutionRequest, Solution>(client, "getSolution", GetSolutionRequest.fromPartial({ runId, index: 0 })).catch((err: unknown) => {
      last = err;
      return null;
    });
    if (sol) break;
  }
  if (!sol) throw last;
  const cols = sol.solution!.cols;
  const board = sol.ids.map((pid, i) => [pid, sol.rots[i]]).reduce<number[][][]>((rows, x, i) => { if (i % cols === 0) rows.push([]); rows[rows.length - 1].push(x); return rows; }, []);
  const bf = join(dir, `${runId}.json`);
  writeFileSync(bf, JSON.stringify({ board }));
  return spawnSync(process.execPath, [...CLI, "verify", file, bf]).status === 0;
}
