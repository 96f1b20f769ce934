/**
 * The triangle placement search (core/triangle/search.ts) in worker threads, so the calling process's event loop
 * (a worker's heartbeats and acks, the CLI's progress) stays free while it runs: `solve TRIANGLE --all` runs one job
 * per part (cli/count-triangle.ts), a cluster worker one per triangle cube (worker/triangle/cube.ts). A thread that
 * finished its job waits, unreferenced, for the next one (starting a thread and loading the search costs about
 * 30 ms, more than most cubes of a count take).
 *
 * Stopping: `signal` raises the job's shared flag, which the search polls every 65,536 placements (milliseconds); a
 * thread still busy a second later is terminated. A stopped search resolves with `complete` false, reason "stopped".
 */

import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import type { Placement } from "../../core/puzzle.js";
import type { TriangleBoard } from "../../core/triangle/puzzle.js";
import type { TriangleSearchResult } from "../../core/triangle/search.js";

export interface TriangleSearchJob {
  /** The puzzle's canonical text (core/triangle/format.ts), parsed again in the thread. */
  text: string;
  /** Its label in error messages. */
  file: string;
  /** Placements fixed beyond the hints (a cube's). @default none */
  fixed?: readonly Placement[];
  /** This part of n disjoint parts of the space. @default the whole space */
  part?: { k: number; n: number };
  /** Stop after this many solutions (the count is then a lower bound). */
  limit?: number;
  /** Boards handed to `onBoard` before the rest are only counted. @default 0 */
  maxBoards?: number;
  /** Give up at this time (ms since the epoch): the count is then a lower bound. */
  deadline?: number;
}

/** What a thread gets for one job (worker/triangle/search-thread.ts). */
export interface SearchThreadJob extends Omit<TriangleSearchJob, "fixed" | "maxBoards"> {
  fixed: Placement[];
  maxBoards: number;
  stop: SharedArrayBuffer;
}

type ThreadMessage =
  | { type: "board"; cells: TriangleBoard["cells"] }
  | { type: "done"; result: TriangleSearchResult }
  | { type: "failed"; message: string };

/** How long a stopped search may take to notice the flag before its thread is terminated. */
const STOP_GRACE_MS = 1000;
/** Idle threads kept for later jobs (a worker runs one job per slot; `solve --all` one per core). */
const MAX_IDLE = 16;

const BUILT = new URL("./search-thread.js", import.meta.url);
/**
 * Run from the sources (tsx: tests with in-process workers), the thread is the .ts file, and Node 20 does not hand
 * tsx's loader to a worker thread: a one-line bootstrap registers it in the thread first.
 */
const SOURCE_BOOTSTRAP = `import("tsx/esm/api").then((m) => { m.register(); return import(${JSON.stringify(new URL("./search-thread.ts", import.meta.url).href)}); })`;

const idle: Worker[] = [];

function takeThread(): Worker {
  const t = idle.pop();
  if (t) {
    t.ref();
    return t;
  }
  return existsSync(BUILT) ? new Worker(BUILT) : new Worker(SOURCE_BOOTSTRAP, { eval: true });
}

function releaseThread(t: Worker): void {
  if (idle.length >= MAX_IDLE) {
    void t.terminate();
    return;
  }
  // An idle thread does not keep the process alive.
  t.unref();
  idle.push(t);
}

export function runTriangleSearch(
  job: TriangleSearchJob,
  options: { signal?: AbortSignal; onBoard?: (cells: TriangleBoard["cells"]) => void } = {},
): Promise<TriangleSearchResult> {
  const stop = new SharedArrayBuffer(4);
  const data: SearchThreadJob = { ...job, fixed: (job.fixed ?? []).map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })), maxBoards: job.maxBoards ?? 0, stop };
  const thread = takeThread();
  return new Promise((resolve, reject) => {
    let killer: NodeJS.Timeout | undefined;
    const finish = (reusable: boolean): void => {
      clearTimeout(killer);
      options.signal?.removeEventListener("abort", onAbort);
      thread.off("message", onMessage);
      thread.off("error", onError);
      thread.off("exit", onExit);
      if (reusable) releaseThread(thread);
    };
    const onAbort = (): void => {
      Atomics.store(new Int32Array(stop), 0, 1);
      killer = setTimeout(() => void thread.terminate(), STOP_GRACE_MS);
    };
    const onMessage = (m: ThreadMessage): void => {
      if (m.type === "board") {
        options.onBoard?.(m.cells);
        return;
      }
      finish(true);
      if (m.type === "done") resolve(m.result);
      else reject(new Error(`triangle search: ${m.message}`));
    };
    const onError = (err: Error): void => {
      finish(false);
      reject(err);
    };
    const onExit = (code: number): void => {
      finish(false);
      if (options.signal?.aborted) resolve({ count: 0, complete: false, reason: "stopped", nodes: 0 });
      else reject(new Error(`triangle search thread exited with code ${code} and no result`));
    };
    thread.on("message", onMessage);
    thread.on("error", onError);
    thread.on("exit", onExit);
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    thread.postMessage(data);
  });
}
