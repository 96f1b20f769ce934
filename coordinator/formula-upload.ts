/**
 * Uploading a run's base formula to the Object Store under its SHA-256. Content-addressed: a formula that is
 * already there (same puzzle, encoding and options; or a restarted coordinator) is not uploaded again.
 * The DIMACS is produced twice (once to hash, once to upload) rather than held in memory.
 */

import { createHash } from "node:crypto";
import type { ObjectStore } from "@nats-io/obj";

export async function uploadFormula(store: ObjectStore, chunks: () => Iterable<Uint8Array>): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for (const c of chunks()) {
    hash.update(c);
    bytes += c.length;
  }
  const sha256 = hash.digest("hex");
  const info = await store.info(sha256).catch(() => null);
  if (info && !info.deleted && info.size === bytes) return { sha256, bytes };
  const it = chunks()[Symbol.iterator]();
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = it.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  await store.put({ name: sha256, description: "cubist base formula (DIMACS)" }, stream);
  return { sha256, bytes };
}
