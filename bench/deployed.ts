/**
 * The deployed topology against the embedded cluster, side by side: separate nats-server, `cubist coordinator` and
 * `cubist worker` processes as docs/operations.md starts them, and `cubist solve --workers 2`; with a fault on
 * the deployed one if asked (kill -9 of the coordinator or of a worker, restarted at once; nats-server down for
 * --outage seconds and restarted on its store; `leader`: a second coordinator runs as a standby from the start, the
 * leader is killed with -9 and not restarted, and the standby takes over and finishes the run).
 *
 *   node --import tsx bench/deployed.ts [--boards FILE,...] [--seeds 1] [--configs embedded,deployed]
 *        [--fault none|coordinator|worker|nats|leader] [--fault-at S] [--outage 20] [--repeats 3] [--limit 600]
 *        [--out bench/results/deployed.jsonl]
 *
 * Each board is shuffled (`cubist puzzle shuffle --seed S`). embedded: `cubist solve FILE --workers 2 --json`, the
 * whole command's wall time. deployed: a fresh nats-server (temp store, free port), one coordinator, two workers
 * with one slot each; `run submit FILE --cube-parts 2` (the README's advice: one part per solver slot), then the
 * run's record is polled until it ends; the time is from submit to the end the record reports (the processes'
 * start, a second or so, is not counted: a deployed cluster is up before runs come). Each answer is checked: a
 * SAT board with `cubist verify`, UNSAT must be what the board is known to be. Configurations run interleaved per
 * board, seed and repeat. One JSON line per run to --out; a median table at the end.
 */

import { spawnSync, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { credentials } from "@grpc/grpc-js";
import { freePort } from "../cluster/free-port.js";
import { CubistServiceClient, GetRunRequest, SubmitRunRequest, type RunInfo, type SubmitRunResponse } from "../proto/gen/cubist/v1/api.js";
import { RunState } from "../proto/gen/cubist/v1/run.js";
import { answerOf, CLI, cubist, exited, killGroup, solutionVerifies, startNats, unary, waitLog } from "./lib/cluster-processes.js";
import { median } from "./lib/summary.js";
const { values } = parseArgs({
  options: {
    boards: { type: "string", default: "bench/puzzles/unsat-8x8.txt" },
    seeds: { type: "string", default: "1" },
    configs: { type: "string", default: "embedded,deployed" },
    fault: { type: "string", default: "none" },
    "fault-at": { type: "string", default: "5" },
    outage: { type: "string", default: "20" },
    repeats: { type: "string", default: "3" },
    limit: { type: "string", default: "600" },
    out: { type: "string", default: "bench/results/deployed.jsonl" },
  },
});
const limitSec = Number(values.limit);
const fault = values.fault as "none" | "coordinator" | "worker" | "nats" | "leader";

interface Result { config: string; board: string; seed: number; seconds: number; answer: string; ok: boolean; fault: string; detail: string }

/** One run on a hand-started cluster, with the fault of --fault; seconds from submit to the recorded end. */
async function deployed(file: string): Promise<{ seconds: number; answer: string; detail: string }> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-deployed-"));
  const natsPort = await freePort();
  const grpc = `127.0.0.1:${await freePort()}`;
  const grpcStandby = `127.0.0.1:${await freePort()}`;
  const url = `nats://127.0.0.1:${natsPort}`;
  let nats: ChildProcess | null = await startNats(natsPort, join(dir, "store"));
  const startCoordinator = async (address = grpc): Promise<ChildProcess> => {
    const c = cubist(["coordinator", "--nats", url, "--grpc", address, "--http", "off"]);
    await waitLog(c, /coordinator started/, 30_000);
    return c;
  };
  const startWorker = (id: string): ChildProcess => cubist(["worker", "--nats", url, "--concurrency", "1", "--id", id, "--cache-dir", join(dir, `cache-${id}`), "--grace", "0"]);
  let coordinator: ChildProcess | null = await startCoordinator();
  const standby: ChildProcess | null = fault === "leader" ? await startCoordinator(grpcStandby) : null;
  const workers: Array<ChildProcess | null> = [startWorker("wa"), startWorker("wb")];
  let client = new CubistServiceClient(grpc, credentials.createInsecure());
  try {
    await new Promise((r) => setTimeout(r, 1000));
    const text = (await import("node:fs")).readFileSync(file, "utf8");
    const { run } = await unary<SubmitRunRequest, SubmitRunResponse>(client, "submitRun", SubmitRunRequest.fromPartial({ puzzleText: text, puzzleName: file, format: "auto", cubing: { parts: 2 } }));
    const id = run!.runId;
    const t0 = Date.now();
    let detail = "";
    const injected = (async () => {
      if (fault === "none") return;
      await new Promise((r) => setTimeout(r, Number(values["fault-at"]) * 1000));
      const at = Date.now();
      if (fault === "coordinator") {
        killGroup(coordinator, "SIGKILL");
        await exited(coordinator!);
        coordinator = await startCoordinator();
      } else if (fault === "leader") {
        killGroup(coordinator, "SIGKILL");
        await exited(coordinator!);
        coordinator = null;
        client.close();
        client = new CubistServiceClient(grpcStandby, credentials.createInsecure());
      } else if (fault === "worker") {
        killGroup(workers[1], "SIGKILL");
        await exited(workers[1]!);
        workers[1] = startWorker("wb");
      } else {
        killGroup(nats, "SIGKILL");
        await exited(nats!);
        await new Promise((r) => setTimeout(r, Number(values.outage) * 1000));
        nats = await startNats(natsPort, join(dir, "store"));
      }
      detail = `${fault} down for ${((Date.now() - at) / 1000).toFixed(1)} s at ${((at - t0) / 1000).toFixed(1)} s`;
    })();
    for (;;) {
      const info = await unary<GetRunRequest, RunInfo>(client, "getRun", GetRunRequest.fromPartial({ runId: id })).catch(() => null);
      const s = info?.status;
      if (s && s.state !== RunState.RUN_STATE_RUNNING && s.state !== RunState.RUN_STATE_SPLITTING && s.state !== RunState.RUN_STATE_PAUSED && s.finishedUnixMs > 0) {
        await injected;
        const answer = answerOf(s.state);
        if (answer === "sat" && !(await solutionVerifies([client], id, file, dir))) throw new Error(`the board of ${file} does not verify`);
        return { seconds: (s.finishedUnixMs - t0) / 1000, answer, detail };
      }
      if ((Date.now() - t0) / 1000 > limitSec) return { seconds: limitSec, answer: "timeout", detail };
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.close();
    for (const w of workers) killGroup(w, "SIGTERM");
    killGroup(coordinator, "SIGTERM");
    killGroup(standby, "SIGTERM");
    await Promise.all([...workers, coordinator, standby].filter((p): p is ChildProcess => p !== null).map(exited));
    killGroup(nats, "SIGTERM");
    if (nats) await exited(nats);
    rmSync(dir, { recursive: true, force: true });
  }
}

function embedded(file: string): { seconds: number; answer: string; detail: string } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [...CLI, "solve", file, "--workers", "2", "--json", "--time", String(limitSec)], { encoding: "utf8", maxBuffer: 1 << 26 });
  const seconds = (performance.now() - t0) / 1000;
  const out = JSON.parse(r.stdout || "{}") as { status?: string };
  if (out.status === "sat") {
    const dir = mkdtempSync(join(tmpdir(), "cubist-embedded-"));
    writeFileSync(join(dir, "b.json"), r.stdout);
    const ok = spawnSync(process.execPath, [...CLI, "verify", file, join(dir, "b.json")]).status === 0;
    rmSync(dir, { recursive: true, force: true });
    if (!ok) throw new Error(`the board of ${file} does not verify`);
  }
  return { seconds, answer: out.status ?? `exit ${r.status}`, detail: "" };
}

async function main(): Promise<void> {
  const rows: Result[] = [];
  const boards = values.boards!.split(",");
  const seeds = values.seeds!.split(",").map(Number);
  const configs = values.configs!.split(",");
  for (let rep = 0; rep < Number(values.repeats); rep++) {
    for (const board of boards) {
      for (const seed of seeds) {
        const dir = mkdtempSync(join(tmpdir(), "cubist-shuffled-"));
        const file = join(dir, `${board.split("/").pop()!.replace(/\.txt$/, "")}-s${seed}.txt`);
        writeFileSync(file, spawnSync(process.execPath, [...CLI, "puzzle", "shuffle", board, "--seed", String(seed)], { encoding: "utf8" }).stdout);
        for (const config of configs) {
          const r = config === "embedded" ? embedded(file) : await deployed(file);
          const expect = /unsat/.test(board) ? "unsat" : "sat";
          const row: Result = { config, board, seed, seconds: Number(r.seconds.toFixed(2)), answer: r.answer, ok: r.answer === expect, fault: config === "deployed" ? fault : "none", detail: r.detail };
          rows.push(row);
          appendFileSync(values.out!, JSON.stringify({ ...row, at: new Date().toISOString(), commit: spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim() }) + "\n");
          process.stderr.write(`${JSON.stringify(row)}\n`);
          if (!row.ok) process.exitCode = 3;
        }
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  console.log("| board | seed | config | fault | median s | all |\n|---|---|---|---|---|---|");
  const keys = new Set(rows.map((r) => `${r.board}|${r.seed}|${r.config}|${r.fault}`));
  for (const k of keys) {
    const rs = rows.filter((r) => `${r.board}|${r.seed}|${r.config}|${r.fault}` === k);
    const [board, seed, config, f] = k.split("|");
    console.log(`| ${board} | ${seed} | ${config} | ${f} | ${median(rs.map((r) => r.seconds)).toFixed(2)} | ${rs.map((r) => `${r.seconds}${r.ok ? "" : ` (${r.answer})`}`).join(", ")} |`);
  }
}

await main();
