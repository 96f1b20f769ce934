/**
 * Follows the runs KV bucket into a RunTable. The KV watcher (an ordered consumer) recovers from NATS reconnects
 * by itself; should it end anyway (the bucket was deleted and recreated, the consumer could not be recreated), a
 * new one is started from the revision after the last one seen, so deletions in between are not missed.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { KV } from "@nats-io/kv";
import type { Logger } from "../cluster/log.js";
import type { RunTable } from "./run-table.js";

/** Watches until `signal` aborts. Resolves then; never rejects. */
export async function watchRuns(kv: KV, table: RunTable, log: Logger, signal: AbortSignal): Promise<void> {
  let lastRevision = 0;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const iter = await kv.watch({ key: ">", ...(lastRevision > 0 ? { resumeFromRevision: lastRevision + 1 } : {}) });
      const stop = (): void => iter.stop();
      if (signal.aborted) stop();
      signal.addEventListener("abort", stop, { once: true });
      if (failures > 0) log.info("runs watcher restarted", { fromRevision: lastRevision + 1 });
      failures = 0;
      try {
        for await (const e of iter) {
          lastRevision = Math.max(lastRevision, e.revision);
          if (e.operation === "PUT") table.put(e.key, e.value, e.revision);
          else table.delete(e.key);
        }
      } finally {
        signal.removeEventListener("abort", stop);
      }
      if (!signal.aborted) log.warn("runs watcher ended; restarting");
    } catch (err) {
      failures++;
      if (failures === 1 || failures % 30 === 0) log.warn("runs watcher failed; retrying", { attempt: failures, err: (err as Error).message });
    }
    if (!signal.aborted) await sleep(Math.min(5000, 250 * 2 ** Math.min(failures, 5)), undefined, { signal }).catch(() => undefined);
  }
}
