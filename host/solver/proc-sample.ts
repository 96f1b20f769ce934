/**
 * Our own measurement of a child's peak RSS and CPU time, from /proc (Linux only).
 *
 * Node cannot get a child's rusage at exit (libuv reaps it without one), and the solver's own peak-RSS report
 * (getrusage ru_maxrss) is inflated: Linux carries the high-water mark of the forked copy of the parent into the
 * child across exec, so a tiny CNF solved from a Node process holding 200 MB of buffers "uses" 200 MB. VmHWM in
 * /proc/<pid>/status belongs to the exec'd image only. So we sample while the solver runs: synchronously when it
 * writes output (at most every MIN_GAP_MS, ~20 us per sample), every second on a timer (for silent stretches),
 * and just before we SIGKILL it. The peak seen is a lower bound that misses at most the last moments of the run.
 */

import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat; 100 on every mainstream Linux architecture. */
const CLOCK_TICKS_PER_SECOND = 100;
/** Minimum time between two output-triggered samples. */
const MIN_GAP_MS = 20;

/** The latest sample; fields are absent until one succeeded. */
export interface ProcSample {
  /** utime + stime at the last sample. */
  cpuMs?: number;
  /** The highest VmHWM seen. */
  maxRssBytes?: number;
}

/** utime + stime of /proc/<pid>/stat in ms (fields 14 and 15; the name in field 2 may contain spaces). */
function parseCpuMs(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
}

/** VmHWM (peak RSS) of /proc/<pid>/status in bytes; absent for a zombie. */
function parseHwmBytes(status: string): number | undefined {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Samples one process until stop(). A no-op off Linux. */
export class ProcSampler {
  readonly last: ProcSample = {};
  private timer: NodeJS.Timeout | null = null;
  private lastAt = -Infinity;
  private inFlight = false;

  constructor(private readonly pid: number, intervalMs = 1000) {
    if (process.platform !== "linux") return;
    this.timer = setInterval(() => void this.sampleAsync(), intervalMs);
    this.timer.unref();
  }

  /** A synchronous sample unless one was taken in the last MIN_GAP_MS. */
  sampleSoon(): void {
    if (this.timer !== null && performance.now() - this.lastAt >= MIN_GAP_MS) this.sampleNow();
  }

  /** A synchronous sample now (only while sampling). */
  sampleNow(): void {
    if (this.timer === null) return;
    this.lastAt = performance.now();
    try {
      this.record(readFileSync(`/proc/${this.pid}/stat`, "latin1"), readFileSync(`/proc/${this.pid}/status`, "latin1"));
    } catch {
      // The process is gone already.
    }
  }

  /** Stops sampling; call when the process has exited (before its pid can be reused). */
  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  private async sampleAsync(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    this.lastAt = performance.now();
    try {
      // Started while the process was alive; pids are allocated cyclically, so no reuse in the meantime.
      const [stat, status] = await Promise.all([
        readFile(`/proc/${this.pid}/stat`, "latin1"),
        readFile(`/proc/${this.pid}/status`, "latin1"),
      ]);
      this.record(stat, status);
    } catch {
      // The process is gone already.
    } finally {
      this.inFlight = false;
    }
  }

  private record(stat: string, status: string): void {
    const cpuMs = parseCpuMs(stat);
    const hwm = parseHwmBytes(status);
    if (cpuMs !== undefined) this.last.cpuMs = Math.max(cpuMs, this.last.cpuMs ?? 0);
    if (hwm !== undefined) this.last.maxRssBytes = Math.max(hwm, this.last.maxRssBytes ?? 0);
  }
}
