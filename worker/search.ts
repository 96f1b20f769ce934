/**
 * The optional placement search before the SAT solver (a task's `search_ms`), run in a worker thread so a long
 * search never blocks the event loop: heartbeats (`working()`), cancels and status messages of every slot keep
 * flowing. Measured on this machine (docs/worker.md): the same search run on the main thread in doubling slices
 * with setImmediate between them delays the event loop by up to half the budget, since the last slice alone is
 * about that long; in a thread the event loop stays within a few milliseconds.
 *
 * One thread per slot, started on first use and kept. An abort terminates the thread (V8 stops it mid-loop); the
 * next search starts a new one.
 */

import { Worker } from "node:worker_threads";
import type { Placement } from "../core/puzzle.js";
import type { BudgetedSearch } from "./search-budget.js";
import type { SearchRequest } from "./search-thread.js";

/**
 * The compiled thread file under dist; under tsx (tests, development) the TypeScript source, loaded through tsx's
 * API because Node 20 does not carry the main thread's module hooks into worker threads.
 */
function startSearchThread(): Worker {
  if (!import.meta.url.endsWith(".ts")) return new Worker(new URL("./search-thread.js", import.meta.url));
  const api = import.meta.resolve("tsx/esm/api");
  const entry = new URL("./search-thread.ts", import.meta.url).href;
  return new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

export type SearchOutcome = BudgetedSearch | { kind: "aborted"; nodes: 0 };

export class PlacementSearcher {
  private thread: Worker | null = null;
  private nextId = 0;

  /** Searches for a solution that extends the hints and `fixed`, for at most about `budgetMs`. */
  search(key: string, puzzleText: string, fixed: readonly Placement[], budgetMs: number, signal?: AbortSignal): Promise<SearchOutcome> {
    if (signal?.aborted) return Promise.resolve({ kind: "aborted", nodes: 0 });
    const thread = (this.thread ??= this.startThread());
    const id = ++this.nextId;
    return new Promise<SearchOutcome>((resolve, reject) => {
      const cleanup = (): void => {
        thread.off("message", onMessage);
        thread.off("error", onError);
        thread.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
      };
      const onMessage = (m: { id: number; result?: BudgetedSearch; error?: string }): void => {
        if (m.id !== id) return;
        cleanup();
        if (m.error !== undefined) reject(new Error(`placement search: ${m.error}`));
        else resolve(m.result!);
      };
      const onError = (err: Error): void => {
        cleanup();
        this.drop(thread);
        reject(new Error(`placement search thread failed: ${err.message}`, { cause: err }));
      };
      const onExit = (code: number): void => {
        cleanup();
        this.drop(thread);
        reject(new Error(`placement search thread exited (code ${code})`));
      };
      const onAbort = (): void => {
        cleanup();
        this.drop(thread);
        void thread.terminate();
        resolve({ kind: "aborted", nodes: 0 });
      };
      thread.on("message", onMessage);
      thread.once("error", onError);
      thread.once("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      const req: SearchRequest = { id, key, puzzleText, fixed: fixed.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })), budgetMs };
      thread.postMessage(req);
    });
  }

  /** Stops the thread (if any). */
  async close(): Promise<void> {
    const t = this.thread;
    this.thread = null;
    if (t) await t.terminate();
  }

  private startThread(): Worker {
    const t = startSearchThread();
    t.unref();
    return t;
  }

  private drop(thread: Worker): void {
    if (this.thread === thread) this.thread = null;
  }
}
