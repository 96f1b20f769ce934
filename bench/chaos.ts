/**
 * A week of machine failures in minutes: several runs at once on a hand-started cluster (nats-server, two
 * coordinators, one leading and one standby, and three workers, as docs/operations.md starts them) while a seeded
 * schedule of faults hits it: a worker killed with -9 (started again after 1-5 s), a coordinator killed with -9
 * (started again after 2 s, as a standby), a coordinator frozen with SIGSTOP past its lease and then continued, and
 * nats-server killed and started again on its store after 3-10 s. Faults stop once every run has ended.
 *
 *   node --import tsx bench/chaos.ts [--boards FILE,...] [--seed 1] [--every 8] [--limit 900]
 *        [--out bench/results/chaos.jsonl]
 *
 * Each board is shuffled (`cubist puzzle shuffle --seed SEED`) and submitted once. What is checked at the end, for
 * every run: its answer is the board's known one (unsat-* files are UNSAT, the others SAT); a SAT board passes
 * `cubist verify`; an UNSAT run closed the whole space (progress 1) with no failed cube. One JSON line per run and one
 * per fault to --out; exit code 3 when a check failed.
 */

import { spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { credentials } from "@grpc/grpc-js";
import { freePort } from "../cluster/free-port.js";
import { createRandom } from "../core/random.js";
import { CubistServiceClient, GetRunRequest, SubmitRunRequest, type RunInfo, type SubmitRunResponse } from "../proto/gen/cubist/v1/api.js";
import { RunState, type RunStatus } from "../proto/gen/cubist/v1/run.js";
import { answerOf, CLI, cubist, exited, killGroup, solutionVerifies, startNats, unary, waitLog } from "./lib/cluster-processes.js";
import { printScriptHelp } from "./lib/script-help.js";

const { values } = parseArgs({
  options: {
    boards: { type: "string", default: "bench/puzzles/unsat-8x8-b4.txt,bench/puzzles/unsat-8x8.txt,bench/puzzles/brendan/pieces_08x06.txt,bench/puzzles/brendan/pieces_07x07.txt" },
    seed: { type: "string", default: "1" },
    every: { type: "string", default: "8" },
    limit: { type: "string", default: "900" },
    out: { type: "string", default: "bench/results/chaos.jsonl" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) printScriptHelp(import.meta.url);
const rng = createRandom(Number(values.seed));
const random = (): number => rng.nextFloat();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const between = (lo: number, hi: number): number => lo + random() * (hi - lo);
const record = (row: object): void => appendFileSync(values.out!, JSON.stringify({ ...row, at: new Date().toISOString() }) + "\n");

/** The cluster's processes, started again in place as faults take them down. */
class Cluster {
  nats: ChildProcess | null = null;
  readonly coordinators: Array<ChildProcess | null> = [null, null];
  readonly workers: Array<ChildProcess | null> = [null, null, null];
  readonly grpc: string[] = [];
  private url = "";

  constructor(private readonly dir: string, private readonly natsPort: number) {}

  async start(): Promise<void> {
    this.url = `nats://127.0.0.1:${this.natsPort}`;
    this.nats = await startNats(this.natsPort, join(this.dir, "store"));
    for (let i = 0; i < 2; i++) this.grpc.push(`127.0.0.1:${await freePort()}`);
    for (let i = 0; i < 2; i++) await this.startCoordinator(i);
    for (let i = 0; i < 3; i++) this.startWorker(i);
  }

  async startCoordinator(i: number): Promise<void> {
    const c = cubist(["coordinator", "--nats", this.url, "--grpc", this.grpc[i], "--http", "off"]);
    this.coordinators[i] = c;
    await waitLog(c, /coordinator started/, 60_000);
  }

  startWorker(i: number): void {
    this.workers[i] = cubist(["worker", "--nats", this.url, "--concurrency", "1", "--id", `w${i}`, "--cache-dir", join(this.dir, `cache-w${i}`), "--grace", "0"]);
  }

  async restartNats(): Promise<void> {
    this.nats = await startNats(this.natsPort, join(this.dir, "store"));
  }

  async stop(): Promise<void> {
    const all = [...this.workers, ...this.coordinators];
    for (const p of all) killGroup(p, "SIGCONT");
    for (const p of all) killGroup(p, "SIGTERM");
    await Promise.all(all.filter((p): p is ChildProcess => p !== null).map(exited));
    killGroup(this.nats, "SIGTERM");
    if (this.nats) await exited(this.nats);
  }
}

/** One fault, chosen by the seeded random source; resolves when the cluster is whole again. */
async function injectFault(c: Cluster): Promise<string> {
  const pick = random();
  if (pick < 0.4) {
    const i = Math.floor(random() * 3);
    killGroup(c.workers[i], "SIGKILL");
    await exited(c.workers[i]!);
    const down = between(1, 5);
    await sleep(down * 1000);
    c.startWorker(i);
    return `worker w${i} killed -9, ${down.toFixed(1)} s down`;
  }
  if (pick < 0.6) {
    const i = Math.floor(random() * 2);
    killGroup(c.coordinators[i], "SIGKILL");
    await exited(c.coordinators[i]!);
    await sleep(2000);
    await c.startCoordinator(i);
    return `coordinator c${i} killed -9, 2 s down`;
  }
  if (pick < 0.8) {
    const i = Math.floor(random() * 2);
    const frozen = between(8, 12);
    killGroup(c.coordinators[i], "SIGSTOP");
    await sleep(frozen * 1000);
    killGroup(c.coordinators[i], "SIGCONT");
    return `coordinator c${i} frozen ${frozen.toFixed(1)} s (lease 6 s)`;
  }
  killGroup(c.nats, "SIGKILL");
  await exited(c.nats!);
  const down = between(3, 10);
  await sleep(down * 1000);
  await c.restartNats();
  return `nats-server killed -9, ${down.toFixed(1)} s down`;
}

/** A run's status from whichever coordinator answers (a standby serves reads too). */
async function statusOf(clients: CubistServiceClient[], runId: string): Promise<RunStatus | null> {
  for (const client of clients) {
    const info = await unary<GetRunRequest, RunInfo>(client, "getRun", GetRunRequest.fromPartial({ runId })).catch(() => null);
    if (info?.status) return info.status;
  }
  return null;
}

const OPEN = new Set([RunState.RUN_STATE_RUNNING, RunState.RUN_STATE_SPLITTING, RunState.RUN_STATE_PAUSED]);

/** The end of a run checked against the board's known answer; a SAT board verified by `cubist verify`. */
async function check(file: string, status: RunStatus, clients: CubistServiceClient[], dir: string): Promise<{ answer: string; ok: boolean; why: string }> {
  const expect = /unsat/.test(file) ? "unsat" : "sat";
  const answer = answerOf(status.state);
  if (answer !== expect) return { answer, ok: false, why: `expected ${expect}: ${status.message}` };
  if (answer === "unsat") {
    const whole = Math.abs(status.progress - 1) < 1e-9 && (status.cubes?.failed ?? 0) === 0;
    return { answer, ok: whole, why: whole ? "" : `progress ${status.progress}, ${status.cubes?.failed} failed` };
  }
  const ok = await solutionVerifies(clients, status.runId, file, dir);
  return { answer, ok, why: ok ? "" : "the board does not verify" };
}

function shuffled(board: string, dir: string): string {
  const file = join(dir, `${board.split("/").pop()!.replace(/\.txt$/, "")}-s${values.seed}.txt`);
  writeFileSync(file, spawnSync(process.execPath, [...CLI, "puzzle", "shuffle", board, "--seed", values.seed!], { encoding: "utf8" }).stdout);
  return file;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-chaos-"));
  const cluster = new Cluster(dir, await freePort());
  await cluster.start();
  const clients = cluster.grpc.map((a) => new CubistServiceClient(a, credentials.createInsecure()));
  const runs = new Map<string, string>();
  const t0 = Date.now();
  try {
    for (const board of values.boards!.split(",")) {
      const file = shuffled(board, dir);
      const submit = (client: CubistServiceClient): Promise<SubmitRunResponse> =>
        unary<SubmitRunRequest, SubmitRunResponse>(client, "submitRun", SubmitRunRequest.fromPartial({ puzzleText: readFileSync(file, "utf8"), puzzleName: file, format: "auto", cubing: { parts: 3 } }));
      const r = await submit(clients[0]).catch(() => submit(clients[1]));
      runs.set(r.run!.runId, file);
    }
    const ended = new Map<string, { status: RunStatus; seconds: number }>();
    let faults = 0;
    let nextFault = Date.now() + between(0.5, 1.5) * Number(values.every) * 1000;
    while (ended.size < runs.size && (Date.now() - t0) / 1000 < Number(values.limit)) {
      if (Date.now() >= nextFault) {
        const what = await injectFault(cluster);
        faults++;
        record({ kind: "fault", seed: Number(values.seed), what, atSeconds: Math.round((Date.now() - t0) / 100) / 10 });
        process.stderr.write(`fault ${faults}: ${what}\n`);
        nextFault = Date.now() + between(0.5, 1.5) * Number(values.every) * 1000;
      }
      for (const id of runs.keys()) {
        if (ended.has(id)) continue;
        const s = await statusOf(clients, id);
        if (s && !OPEN.has(s.state) && s.finishedUnixMs > 0) ended.set(id, { status: s, seconds: (s.finishedUnixMs - t0) / 1000 });
      }
      await sleep(500);
    }
    for (const [id, file] of runs) {
      const e = ended.get(id);
      const verdict = e ? await check(file, e.status, clients, dir) : { answer: "timeout", ok: false, why: `not ended within ${values.limit} s` };
      const row = { kind: "run", seed: Number(values.seed), board: file.split("/").pop(), seconds: e ? Number(e.seconds.toFixed(1)) : null, faults, ...verdict };
      record(row);
      console.log(JSON.stringify(row));
      if (!verdict.ok) process.exitCode = 3;
    }
  } finally {
    for (const c of clients) c.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
