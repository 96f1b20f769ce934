/**
 * A `cubist coordinator` process for the benchmarks (the built CLI), whose stderr log lines can be awaited, and
 * its peak RSS read from /proc.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";

export interface CoordinatorProcess {
  readonly child: ChildProcess;
  readonly lines: string[];
  /** The first log line matching `re` (already seen or yet to come) and when it was seen. */
  waitFor(re: RegExp, ms: number): Promise<{ line: string; at: number }>;
}

export function spawnCoordinator(args: string[], env?: NodeJS.ProcessEnv): CoordinatorProcess {
  const child = spawn(process.execPath, ["dist/cli/main.js", "coordinator", ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
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

/** Peak resident set (VmHWM) of a process in bytes; 0 once it is gone. */
export function vmHwmBytes(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}
