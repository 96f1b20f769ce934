/**
 * Coordinator scale at Eternity II size (issue targets: >= 5,000 cubes/s dispatched, <= 500 MB coordinator RSS;
 * resumed within 10 s after a restart).
 *
 *   node --import tsx bench/coordinator-scale.ts [--cubes 200000] [--encoding E] [--repeats 3] [--heap-mb MB]
 *
 * Each repeat: a private nats-server; `cubist coordinator --puzzle e2_pieces.txt --hints e2_hints.txt --cubes N`
 * as its own process (no workers, so nothing closes); the coordinator's own log gives the split time and the
 * dispatch time; its peak RSS is read from /proc (VmHWM) once dispatching is done. Then the coordinator is
 * SIGKILLed and a second one started on the same store: the time from spawn to "runs resumed" and its peak RSS
 * are the resume figures. Throughout, the coordinator's HTTP API (`/api/runs`, what the dashboard's runs list reads) is
 * asked every 200 ms: the slowest answer during the split and dispatch, and during the resume, are reported (an API
 * that does not answer within 5 s counts 5 s). `--heap-mb` caps the coordinator's V8 heap (NODE_OPTIONS
 * --max-old-space-size), as the deploy files do. Prints one JSON line per repeat and a markdown summary (medians).
 * Needs the built CLI (npm run build).
 */

import { parseArgs } from "node:util";
import { startNatsServer } from "../cli/nats-launcher.js";
import { spawnCoordinator, vmHwmBytes } from "./lib/coordinator-process.js";
import { freePort } from "../cluster/free-port.js";
import { repeatsTable } from "./lib/repeats.js";

const { values } = parseArgs({
  options: {
    cubes: { type: "string", default: "200000" },
    encoding: { type: "string", default: "" },
    "heap-mb": { type: "string", default: "" },
    repeats: { type: "string", default: "3" },
  },
});

// Each step may take 5 minutes plus 2 ms a cube (a loaded machine dispatches well under 5,000 cubes/s).
const waitMs = 300_000 + 2 * Number(values.cubes);
const field = (line: string, name: string): number => Number(new RegExp(`${name}=(\\d+)`).exec(line)?.[1] ?? NaN);

/** Asks `url` every 200 ms until stopped; the slowest answer (ms), 5 s for none. */
function probe(url: string): { stop(): Promise<number> } {
  let slowest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.arrayBuffer()).catch(() => undefined);
      slowest = Math.max(slowest, performance.now() - t);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return { async stop() { running = false; await loop; return Math.round(slowest); } };
}

async function once(cubes: number): Promise<Record<string, number>> {
  const nats = await startNatsServer();
  try {
    const port = await freePort();
    const common = ["--nats", nats.url, "--grpc", "off", "--http", `127.0.0.1:${port}`, "--log-level", "info"];
    const env = values["heap-mb"] ? { NODE_OPTIONS: `--max-old-space-size=${values["heap-mb"]}` } : undefined;
    const t0 = performance.now();
    const a = spawnCoordinator([...common, "--puzzle", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt",
      "--cubes", String(cubes), ...(values.encoding ? ["--encoding", values.encoding] : [])], env);
    await a.waitFor(/HTTP \(metrics, dashboard\) listening/, 60_000);
    const probeA = probe(`http://127.0.0.1:${port}/api/runs`);
    const created = await a.waitFor(/run created/, 60_000);
    const split = await a.waitFor(/split done/, waitMs);
    const dispatched = await a.waitFor(/cubes dispatched/, 600_000);
    const apiSplitMs = await probeA.stop();
    const rssA = vmHwmBytes(a.child.pid!);
    a.child.kill("SIGKILL");
    await new Promise((r) => a.child.once("exit", r));
    const t1 = performance.now();
    const b = spawnCoordinator(common, env);
    await b.waitFor(/HTTP \(metrics, dashboard\) listening|runs resumed/, waitMs);
    const probeB = probe(`http://127.0.0.1:${port}/api/runs`);
    const resumed = await b.waitFor(/runs resumed/, waitMs);
    await b.waitFor(/coordinator started/, waitMs);
    const startedB = performance.now();
    const apiResumeMs = await probeB.stop();
    const rssB = vmHwmBytes(b.child.pid!);
    b.child.kill("SIGTERM");
    await new Promise((r) => b.child.once("exit", r));
    return {
      cubes: field(dispatched.line, "cubes"),
      encodeUploadMs: Math.round(created.at - t0),
      splitMs: field(split.line, "ms"),
      dispatchMs: field(dispatched.line, "ms"),
      dispatchPerSecond: field(dispatched.line, "perSecond"),
      coordinatorPeakRssMB: Math.round(rssA / 2 ** 20),
      resumeReplayMs: field(resumed.line, "ms"),
      resumeTotalMs: Math.round(startedB - t1),
      resumedPeakRssMB: Math.round(rssB / 2 ** 20),
      apiSlowestSplitMs: apiSplitMs,
      apiSlowestResumeMs: apiResumeMs,
    };
  } finally {
    await nats.stop();
  }
}


const results: Array<Record<string, number>> = [];
for (let i = 0; i < Number(values.repeats); i++) {
  const r = await once(Number(values.cubes));
  console.log(JSON.stringify(r));
  results.push(r);
}
console.log(`\n${repeatsTable(results)}`);
