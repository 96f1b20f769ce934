/**
 * Per-cube overhead of the cluster (issue target: 15 ms): N small cubes through 2 worker processes (one slot
 * each), end to end — coordinator publish, worker pull, formula from cache, solver process, verdict publish,
 * coordinator record and ack. Overhead per cube = busy slot time per cube minus the solver's own wall time:
 *
 *   overhead = (slots x run wall time) / cubes - mean(solver wall time)
 *
 * (the mean, not the median: slot time is the sum of solver time and overhead, cube by cube).
 *
 * The puzzle is an unsatisfiable 6x6 (every cube must be answered), split into N cubes, so each Kissat call is
 * small. The placement search is off (searchMs 0): every cube goes through Kissat. Prints one JSON line per
 * repeat and a summary (medians).
 *
 *   node --import tsx bench/cube-overhead.ts [--cubes 1000] [--repeats 3]
 */

import { parseArgs } from "node:util";
import { readFileSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { startNatsServer } from "../cli/nats-launcher.js";
import { median } from "./lib/summary.js";
import { repeatsTable } from "./lib/repeats.js";
import { connectNats, requireJetStream } from "../cluster/nats.js";
import { silentLogger } from "../cluster/log.js";
import { Coordinator } from "../coordinator/shell/coordinator.js";
import { isTerminal } from "../proto/vocabulary.js";
import { createNames } from "../proto/contract.js";
import type { Verdict } from "../proto/gen/cubist/v1/cube.js";

const { values } = parseArgs({ options: { cubes: { type: "string", default: "1000" }, repeats: { type: "string", default: "3" }, workers: { type: "string", default: "2" } } });

async function once(target: number, workers: number): Promise<Record<string, number>> {
  const nats = await startNatsServer();
  const procs: ChildProcess[] = [];
  const nc = await connectNats({ servers: nats.url });
  try {
    const jsm = await requireJetStream(nc);
    const c = new Coordinator({ nc, jsm, names: createNames(), log: silentLogger, statusIntervalMs: 500 });
    await c.start();
    for (let i = 0; i < workers; i++) {
      procs.push(spawn(process.execPath, ["dist/cli/main.js", "worker", "--nats", nats.url, "--concurrency", "1", "--id", `b${i}`, "--log-level", "warn", "--grace", "0"], { stdio: "ignore" }));
    }
    await new Promise((r) => setTimeout(r, 1500));
    const run = await c.submitRun({ puzzleText: readFileSync("test/fixtures/cluster/unsat-6x6.txt", "utf8"), targetCubes: target, timeLimitSec: 0, searchMs: 0 });
    const solver: number[] = [];
    run.on("verdict", (v: Verdict) => solver.push(v.stats?.wallMs ?? 0));
    await run.splitDone();
    const t0 = performance.now();
    while (!isTerminal(run.state)) await new Promise((r) => setTimeout(r, 20));
    const wall = performance.now() - t0;
    const cubes = run.table.size;
    await c.close();
    return {
      cubes,
      wallMs: Math.round(wall),
      cubesPerSecond: Math.round((cubes / wall) * 1000),
      slotMsPerCube: +((workers * wall) / cubes).toFixed(2),
      medianSolverMs: +median(solver).toFixed(2),
      meanSolverMs: +(solver.reduce((a, b) => a + b, 0) / solver.length).toFixed(2),
      overheadMsPerCube: +((workers * wall) / cubes - solver.reduce((a, b) => a + b, 0) / solver.length).toFixed(2),
    };
  } finally {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => new Promise((r) => (p.exitCode !== null ? r(null) : p.once("exit", r)))));
    await nc.close();
    await nats.stop();
  }
}

const rows: Array<Record<string, number>> = [];
for (let i = 0; i < Number(values.repeats); i++) {
  const r = await once(Number(values.cubes), Number(values.workers));
  console.log(JSON.stringify(r));
  rows.push(r);
}
console.log(`\n${repeatsTable(rows)}`);
