/**
 * The formula cache's source in production: the JetStream Object Store (`layout.formulas`, object name = SHA-256
 * of the DIMACS). A download that stops delivering chunks (NATS went away mid-transfer) fails after `stallMs`
 * instead of hanging the slot; the cache then discards the partial file and the worker retries. Transport failures
 * are plain Errors (a passing fault, core/errors.ts: worth a retry); FormulaUnavailableError from the cache means the
 * object is missing or bad (the task's fault).
 */

import type { ObjectStore } from "@nats-io/obj";
import type { FormulaSource } from "../host/formula-cache.js";

export const DEFAULT_STALL_MS = 30_000;

/** Reads a web ReadableStream, failing when no chunk arrives for `stallMs`. */
async function* withStallTimeout(stream: ReadableStream<Uint8Array>, name: string, stallMs: number): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`formula ${name}: download stalled (no data for ${stallMs} ms)`)), stallMs);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), stalled]);
        if (done) return;
        if (value && value.length > 0) yield value;
      } finally {
        clearTimeout(timer);
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

export function objectStoreSource(store: ObjectStore, stallMs: number = DEFAULT_STALL_MS): FormulaSource {
  return {
    async open(name: string) {
      const result = await store.get(name);
      if (result === null) return null;
      result.error.catch(() => undefined); // the same failure also errors the data stream, which is what we read
      return withStallTimeout(result.data, name, stallMs);
    },
  };
}
