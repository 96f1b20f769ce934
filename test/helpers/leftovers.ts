/**
 * Finding processes a test left behind: every process started under a test gets a marker in its environment
 * (inherited by its children, grandchildren, solvers), and /proc tells which marked processes still live.
 */

import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

export function newMarker(): { name: string; value: string; env: Record<string, string> } {
  const value = randomUUID();
  return { name: "CUBIST_TEST_MARKER", value, env: { CUBIST_TEST_MARKER: value } };
}

/** Live (non-zombie) processes whose environment carries the marker. */
export function markedProcesses(marker: string): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const env = readFileSync(`/proc/${d}/environ`, "latin1");
      if (!env.includes(`CUBIST_TEST_MARKER=${marker}`)) continue;
      const stat = readFileSync(`/proc/${d}/stat`, "latin1");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state === "Z") continue;
      out.push({ pid: Number(d), cmd: readFileSync(`/proc/${d}/cmdline`, "latin1").replace(/\0/g, " ").trim() });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** Waits until no marked process is left (or the timeout), and returns what is left. */
export async function waitNoMarked(marker: string, timeoutMs = 5000): Promise<Array<{ pid: number; cmd: string }>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const left = markedProcesses(marker);
    if (left.length === 0 || Date.now() > end) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}
