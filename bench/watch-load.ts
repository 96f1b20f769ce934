/**
 * WatchRun under load (issue target: 10,000 verdicts/s through the coordinator; measure the stream lag and the
 * coordinator's CPU).
 *
 *   node --import tsx bench/watch-load.ts [--cubes 200000] [--rate 10000] [--seconds 15] [--repeats 3]
 *
 * Each repeat: a private nats-server; `cubist coordinator --puzzle e2 --cubes N` as its own process (the E2 run,
 * split and dispatched, no workers); a gRPC client follows the run with WatchRun(verdicts=true); then
 * bench/lib/verdict-load.ts, a separate process, pulls the cube tasks like a worker and publishes UNSAT verdicts at
 * the target rate, stamped with their publish time. Measured over the load window:
 *   - verdicts/s published (JetStream-acknowledged) and verdicts/s seen on the WatchRun stream;
 *   - lag = receive time on the stream - publish time: p50, p90, p99, max (both ends on this machine's clock);
 *   - verdict events dropped for a slow client (the `dropped` events), which must be 0 for a client that keeps up;
 *   - the coordinator's CPU (utime + stime from /proc over the window, in cores) and its peak RSS;
 *   - the lag of the run's progress: closed cubes in the last status snapshot vs verdicts published.
 * Needs the built CLI (npm run build).
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { credentials } from "@grpc/grpc-js";
import { startNatsServer } from "../cli/nats-launcher.js";
import { spawnCoordinator, vmHwmBytes } from "./lib/coordinator-process.js";
import { repeatsTable } from "./lib/repeats.js";
import { freePort } from "../cluster/free-port.js";
import { CubistServiceClient, ListRunsRequest, WatchRunRequest, type RunEvent } from "../proto/gen/cubist/v1/api.js";

const { values } = parseArgs({
  options: {
    cubes: { type: "string", default: "200000" },
    rate: { type: "string", default: "10000" },
    seconds: { type: "string", default: "15" },
    repeats: { type: "string", default: "3" },
  },
});

const CLK_TCK = 100;
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14 and 15 of stat)
}
const quantile = (sorted: number[], q: number): number => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;

async function once(): Promise<Record<string, number>> {
  const nats = await startNatsServer();
  const port = await freePort();
  const coordinator = spawnCoordinator(["--nats", nats.url, "--grpc", `127.0.0.1:${port}`, "--http", "off",
    "--puzzle", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--cubes", values.cubes!,
    "--ack-wait", "600"]);
  const coord = coordinator.child;
  const client = new CubistServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  try {
    await coordinator.waitFor(/cubes dispatched/, 300_000);
    const runs = await new Promise<{ runs: Array<{ runId: string }> }>((resolve, reject) =>
      client.listRuns(ListRunsRequest.fromPartial({}), (err, res) => (err ? reject(err) : resolve(res as never))));
    const runId = runs.runs[0].runId;

    const lags: number[] = [];
    let dropped = 0;
    let lastClosed = 0;
    const stream = client.watchRun(WatchRunRequest.fromPartial({ runId, verdicts: true, intervalSec: 1 }));
    stream.on("data", (ev: RunEvent) => {
      const now = Date.now();
      const e = ev.event;
      if (e?.$case === "verdict") {
        const m = /^load t=(\d+)$/.exec(e.value.reason);
        if (m) lags.push(now - Number(m[1]));
      } else if (e?.$case === "dropped") dropped += e.value;
      else if (e?.$case === "status") lastClosed = e.value.cubes?.unsat ?? lastClosed;
    });
    stream.on("error", () => undefined);
    await new Promise((r) => setTimeout(r, 1500));

    const cpu0 = cpuSeconds(coord.pid!);
    const t0 = performance.now();
    const load = spawn(process.execPath, ["--import", "tsx", "bench/lib/verdict-load.ts", nats.url, runId, values.rate!, values.seconds!], { stdio: ["ignore", "pipe", "inherit"] });
    let loadOut = "";
    load.stdout!.on("data", (d: Buffer) => (loadOut += d.toString()));
    await new Promise((r) => load.once("exit", r));
    const loadSeconds = (performance.now() - t0) / 1000;
    const cpu1 = cpuSeconds(coord.pid!);
    // Let the stream drain, then one more snapshot.
    await new Promise((r) => setTimeout(r, 3000));
    const pub = JSON.parse(loadOut.trim().split("\n").pop()!) as { published: number; perSecond: number };
    lags.sort((a, b) => a - b);
    stream.cancel();
    return {
      publishedPerSecond: pub.perSecond,
      published: pub.published,
      seenOnStream: lags.length,
      droppedForSlowClient: dropped,
      lagP50Ms: quantile(lags, 0.5),
      lagP90Ms: quantile(lags, 0.9),
      lagP99Ms: quantile(lags, 0.99),
      lagMaxMs: lags.length ? lags[lags.length - 1] : NaN,
      coordinatorCpuCores: +((cpu1 - cpu0) / loadSeconds).toFixed(2),
      coordinatorPeakRssMB: Math.round(vmHwmBytes(coord.pid!) / 2 ** 20),
      closedInLastSnapshot: lastClosed,
    };
  } finally {
    client.close();
    coord.kill("SIGTERM");
    await new Promise((r) => (coord.exitCode !== null ? r(null) : coord.once("exit", r)));
    await nats.stop();
  }
}

const results: Array<Record<string, number>> = [];
for (let i = 0; i < Number(values.repeats); i++) {
  const r = await once();
  console.log(JSON.stringify(r));
  results.push(r);
}
console.log(`\n${repeatsTable(results)}`);
