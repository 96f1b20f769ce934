/**
 * Coordinator scale at Eternity II size (issue targets: >= 5,000 cubes/s dispatched, <= 500 MB coordinator RSS;
 * resumed within 10 s after a restart).
 *
 *   node --import tsx bench/coordinator-scale.ts [--cubes 200000] [--encoding E] [--repeats 3]
 *
 * Each repeat: a private nats-server; `cubist coordinator --puzzle e2_pieces.txt --hints e2_hints.txt --cubes N`
 * as its own process (no workers, so nothing closes); the coordinator's own log gives the split time and the
 * dispatch time; its peak RSS is read from /proc (VmHWM) once dispatching is done. Then the coordinator is
 * SIGKILLed and a second one started on the same store: the time from spawn to "runs resumed" and its peak RSS
 * are the resume figures. Prints one JSON line per repeat and a markdown summary (medians).
 * Needs the built CLI (npm run build).
 */

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { startNatsServer } from "../cli/nats-launcher.js";
import { repeatsTable } from "./lib/repeats.js";

const { values } = parseArgs({
  options: {
    cubes: { type: "string", default: "200000" },
    encoding: { type: "string", default: "" },
    repeats: { type: "string", default: "3" },
  },
});

function vmHwmBytes(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

function spawnCoordinator(args: string[]): { child: ChildProcess; lines: string[]; waitFor(re: RegExp, ms: number): Promise<{ line: string; at: number }> } {
  const child = spawn(process.execPath, ["dist/cli/main.js", "coordinator", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (v: { line: string; at: number }) => void }> = [];
  let buf = "";
  child.stderr!.on("data", (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.re.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve({ line, at: performance.now() });
        }
      }
    }
  });
  return {
    child,
    lines,
    waitFor(re, ms) {
      const hit = lines.find((l) => re.test(l));
      if (hit) return Promise.resolve({ line: hit, at: performance.now() });
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no log line ${re} within ${ms} ms:\n${lines.slice(-20).join("\n")}`)), ms);
        waiters.push({ re, resolve: (v) => { clearTimeout(t); resolve(v); } });
      });
    },
  };
}

const field = (line: string, name: string): number => Number(new RegExp(`${name}=(\\d+)`).exec(line)?.[1] ?? NaN);

async function once(cubes: number): Promise<Record<string, number>> {
  const nats = await startNatsServer();
  try {
    const common = ["--nats", nats.url, "--grpc", "off", "--http", "off", "--log-level", "info"];
    const t0 = performance.now();
    const a = spawnCoordinator([...common, "--puzzle", "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt",
      "--cubes", String(cubes), ...(values.encoding ? ["--encoding", values.encoding] : [])]);
    const created = await a.waitFor(/run created/, 60_000);
    const split = await a.waitFor(/split done/, 120_000);
    const dispatched = await a.waitFor(/cubes dispatched/, 300_000);
    const rssA = vmHwmBytes(a.child.pid!);
    a.child.kill("SIGKILL");
    await new Promise((r) => a.child.once("exit", r));
    const t1 = performance.now();
    const b = spawnCoordinator(common);
    const resumed = await b.waitFor(/runs resumed/, 120_000);
    await b.waitFor(/coordinator started/, 120_000);
    const startedB = performance.now();
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
