/**
 * DRAT proofs in the JetStream Object Store (`layout.proofs`), content-addressed like the formulas: the object
 * name is the SHA-256 of the proof's bytes. Whoever reads a proof hashes it again and refuses one whose bytes do
 * not match its name (the coordinator never trusts a worker), and a proof larger than the limit is refused before
 * it is stored or read.
 */

import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ObjectStore } from "@nats-io/obj";
import { CubistError } from "../core/errors.js";

/** Largest proof accepted. @default 4 GiB */
export const DEFAULT_MAX_PROOF_BYTES = 4 * 1024 ** 3;

export const SHA256_NAME_RE = /^[0-9a-f]{64}$/;

/** A proof that is not in the store, does not hash to its name, or is larger than the limit: the task's fault. */
export class ProofUnavailableError extends CubistError {
  override readonly name = "ProofUnavailableError";
  override readonly fault = "task";
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Stores the proof file under its SHA-256 (once: the same bytes are not uploaded twice); returns the name. */
export async function uploadProof(store: ObjectStore, path: string, description: string, maxBytes = DEFAULT_MAX_PROOF_BYTES): Promise<string> {
  const size = (await stat(path)).size;
  if (size > maxBytes) throw new ProofUnavailableError(`proof of ${size} bytes is larger than the limit of ${maxBytes}`);
  const sha256 = await fileSha256(path);
  const info = await store.info(sha256).catch(() => null);
  if (info && !info.deleted && info.size === size) return sha256;
  const data = Readable.toWeb(createReadStream(path, { highWaterMark: 128 * 1024 })) as ReadableStream<Uint8Array>;
  await store.put({ name: sha256, description }, data);
  return sha256;
}

/** Downloads proof `name` to `out`, checking its size and that its bytes hash to its name. */
export async function downloadProof(store: ObjectStore, name: string, out: string, maxBytes = DEFAULT_MAX_PROOF_BYTES): Promise<void> {
  if (!SHA256_NAME_RE.test(name)) throw new ProofUnavailableError(`not a proof name: "${name.slice(0, 80)}"`);
  const info = await store.info(name).catch(() => null);
  if (!info || info.deleted) throw new ProofUnavailableError(`proof ${name.slice(0, 12)} is not in the proofs store`);
  if (info.size > maxBytes) throw new ProofUnavailableError(`proof ${name.slice(0, 12)} has ${info.size} bytes, more than the limit of ${maxBytes}`);
  const result = await store.get(name);
  if (result === null) throw new ProofUnavailableError(`proof ${name.slice(0, 12)} is not in the proofs store`);
  result.error.catch(() => undefined);
  const hash = createHash("sha256");
  let bytes = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        cb(new ProofUnavailableError(`proof ${name.slice(0, 12)} is larger than the limit of ${maxBytes} bytes`));
        return;
      }
      hash.update(chunk);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(result.data as import("node:stream/web").ReadableStream<Uint8Array>), check, createWriteStream(out));
    const got = hash.digest("hex");
    if (got !== name) throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: its bytes hash to ${got.slice(0, 12)}; refusing it`);
  } catch (err) {
    await rm(out, { force: true });
    throw err;
  }
}

/** The proof's bytes as chunks (for a certificate bundle). Null when there is no such proof. */
export async function readProof(store: ObjectStore, name: string): Promise<AsyncIterable<Uint8Array> | null> {
  if (!SHA256_NAME_RE.test(name)) return null;
  const result = await store.get(name);
  if (result === null) return null;
  result.error.catch(() => undefined);
  return Readable.fromWeb(result.data as import("node:stream/web").ReadableStream<Uint8Array>);
}
