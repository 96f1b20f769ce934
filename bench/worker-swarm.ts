/**
 * How many workers one coordinator serves: a swarm of simulated workers (bench/lib/swarm.ts: each its own NATS
 * connection and worker id, a stand-in engine that "solves" each cube for an exponentially distributed time, real
 * leases, verdicts and heartbeats) against one `cubist coordinator` process on an Eternity II run of many cubes.
 *
 *   node --import tsx bench/worker-swarm.ts [--workers 100,300,1000] [--mean-ms 1000] [--seconds 30] [--cubes 200000]
 *
 * For each swarm size: the verdicts the coordinator recorded per second (the run's closed cubes, read from its
 * /metrics), the coordinator's CPU time per recorded verdict and its CPU use (from /proc over the window), and
 * nats-server's. The coordinator's CPU per verdict bounds the cluster it can serve on one core:
 * verdicts/s at saturation = 1000 / (CPU ms per verdict), and workers = that rate x the mean cube time.
 * Needs the built CLI (npm run build).
 */

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startNatsServer } from "../cli/nats-launcher.js";
import { freePort } from "../cluster/free-port.js";
import { spawnCoordinator } from "./lib/coordinator-process.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "100,300,1000" },
    "mean-ms": { type: "string", default: "1000" },
    seconds: { type: "string", default: "30" },
    cubes: { type: "string", default: "200000" },
  },
});

const TICK_MS = 1000 / 100;

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * TICK_MS / 1000;
}

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith(name) && !line.startsWith("#")) sum += Number(line.split(" ").pop());
  return sum;
}

async function main(): Promise<void> {
  const nats = await startNatsServer();
  const port = await freePort();
  const http = `http://127.0.0.1:${port}`;
  const c = spawnCoordinator(["--nats", nats.url, "--grpc", "off", "--http", `127.0.0.1:${port}`, "--log-level", "info",
    "--puzzle", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt", "--cubes", values.cubes!,
    "--cell-order", "most-constrained", "--cube-time", "3600"]);
  try {
    const created = await c.waitFor(/run created/, 120_000);
    const runId = /run=(\S+)/.exec(created.line)![1];
    await c.waitFor(/cubes dispatched/, 300_000);
    const rows: string[] = ["| workers | mean cube | verdicts/s recorded | coordinator CPU ms per verdict | coordinator CPU use | nats-server CPU use | swarm published |", "|---|---|---|---|---|---|---|"];
    for (const w of values.workers!.split(",").map(Number)) {
      const seconds = Number(values.seconds);
      const swarm = spawn(process.execPath, ["--import", "tsx", "bench/lib/swarm.ts", nats.url, runId, String(w), values["mean-ms"]!, String(seconds + 5), `sim${w}`], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      swarm.stdout!.on("data", (d: Buffer) => (out += d.toString()));
      // Connections and first pulls settle first; then a window of `seconds`.
      await new Promise((r) => setTimeout(r, 5000));
      const v0 = await metric(http, "cubist_verdict_messages_total");
      const c0 = cpuSeconds(c.child.pid!);
      const n0 = cpuSeconds(nats.pid);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      const v1 = await metric(http, "cubist_verdict_messages_total");
      const c1 = cpuSeconds(c.child.pid!);
      const n1 = cpuSeconds(nats.pid);
      const dt = (performance.now() - t0) / 1000;
      await new Promise<void>((r) => swarm.once("exit", () => r()));
      const verdicts = v1 - v0;
      const row = { workers: w, meanMs: Number(values["mean-ms"]), verdictsPerSec: verdicts / dt, cpuMsPerVerdict: verdicts > 0 ? ((c1 - c0) * 1000) / verdicts : NaN, coordinatorCpu: (c1 - c0) / dt, natsCpu: (n1 - n0) / dt, swarm: out.trim() };
      process.stderr.write(`${JSON.stringify(row)}\n`);
      rows.push(`| ${w} | ${row.meanMs} ms | ${row.verdictsPerSec.toFixed(0)} | ${row.cpuMsPerVerdict.toFixed(3)} | ${(row.coordinatorCpu * 100).toFixed(0)}% | ${(row.natsCpu * 100).toFixed(0)}% | ${out.trim()} |`);
    }
    console.log(rows.join("\n"));
  } finally {
    c.child.kill("SIGTERM");
    await new Promise<void>((r) => (c.child.exitCode !== null ? r() : c.child.once("exit", () => r())));
    await nats.stop();
  }
}

await main();
