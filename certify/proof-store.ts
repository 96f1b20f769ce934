/**
 * DRAT proofs of certified runs, whole, in the proofs stream (cluster/proof-stream.ts), content-addressed like the
 * formulas: a proof's name is the SHA-256 of its bytes. Workers store them; the coordinator reads them, and never
 * trusts one: it takes the first complete upload under the name whose bytes hash to it (certify/proof-uploads.ts),
 * whatever else anyone added beside it. A proof larger than the limit is refused before it is stored or read.
 * Handed over as a file (ProofStream.handoffDir: a coordinator and its workers in one process), a proof is moved
 * into the directory under its name and read from there with the same checks: its size, and its bytes hashed again.
 */

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, link, mkdtemp, open, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CubistError } from "../core/errors.js";
import { isSha256Hex } from "../core/sha256.js";
import type { ProofStream } from "../cluster/proof-stream.js";
import { PROOF_CHUNK_BYTES } from "../proto/contract.js";
import { parseChunk, UploadFollower, type ChunkStep } from "./proof-uploads.js";

/** Largest proof accepted. @default 4 GiB */
export const DEFAULT_MAX_PROOF_BYTES = 4 * 1024 ** 3;

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

/** Stores the proof file under its SHA-256 and this store's uploader; returns the name. */
export async function uploadProof(store: ProofStream, path: string, description: string, maxBytes = DEFAULT_MAX_PROOF_BYTES): Promise<string> {
  const size = (await stat(path)).size;
  if (size > maxBytes) throw new ProofUnavailableError(`proof of ${size} bytes is larger than the limit of ${maxBytes}`);
  const sha256 = await fileSha256(path);
  if (store.handoffDir !== null) {
    await handOver(path, join(store.handoffDir, sha256));
    return sha256;
  }
  await store.publishUpload(sha256, createReadStream(path, { highWaterMark: PROOF_CHUNK_BYTES }), description);
  return sha256;
}

/**
 * Moves the file at `from` to `to` (a rename: no bytes copied), or copies it when they are on different file
 * systems; `to` appears whole or not at all. `from` is gone afterwards either way.
 */
async function handOver(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
    const part = `${to}.${process.pid}.part`;
    await copyFile(from, part);
    await rename(part, to);
    await rm(from, { force: true });
  }
}

/** Reads handed-over proof `name` into `out` (a hard link, else a copy) when it is no larger than `maxBytes` and hashes to its name. */
async function takeHandedOver(dir: string, name: string, out: string, maxBytes: number): Promise<void> {
  const from = join(dir, name);
  const size = await stat(from).then((s) => s.size, () => -1);
  if (size < 0) throw new ProofUnavailableError(`proof ${name.slice(0, 12)} is not in the proofs store`);
  if (size > maxBytes) throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: ${size} bytes, more than the limit of ${maxBytes}`);
  await link(from, out).catch(() => copyFile(from, out));
  // Hashed as it will be checked: the file at `out`, not the one handed over.
  if ((await fileSha256(out)) !== name) {
    await rm(out, { force: true });
    throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: the handed-over file does not hash to its name`);
  }
}

/**
 * Reads the uploads of `name` once, writing the first one it meets to `out`, until an upload is the proof. Returns
 * that upload's key, and whether `out` holds it; null when no upload is the proof.
 */
async function readOnce(store: ProofStream, name: string, out: FileHandle, follower: UploadFollower, maxBytes: number): Promise<{ key: string; written: boolean } | null> {
  let writing: string | null = null;
  let read = 0;
  for await (const msg of store.messages(name)) {
    read += msg.data.length;
    // Junk that others added under the name is read at most up to twice the limit.
    if (read > 2 * maxBytes) throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: more than ${2 * maxBytes} bytes stored under its name without a complete upload`);
    const step: ChunkStep = follower.take(parseChunk(msg.subject, (h) => msg.headers?.get(h) ?? "", msg.data));
    if (step.kind !== "data" && step.kind !== "complete") continue;
    writing ??= step.key;
    if (step.key === writing) await out.write(msg.data);
    if (step.kind === "complete") return { key: step.key, written: step.key === writing };
  }
  return null;
}

/** Downloads proof `name` to `out`: the first complete upload that is no larger than `maxBytes` and hashes to the name. */
export async function downloadProof(store: ProofStream, name: string, out: string, maxBytes = DEFAULT_MAX_PROOF_BYTES): Promise<void> {
  if (!isSha256Hex(name)) throw new ProofUnavailableError(`not a proof name: "${name.slice(0, 80)}"`);
  if (store.handoffDir !== null) return takeHandedOver(store.handoffDir, name, out, maxBytes);
  if ((await store.count(name)) === 0) throw new ProofUnavailableError(`proof ${name.slice(0, 12)} is not in the proofs store`);
  try {
    const follower = new UploadFollower(name, maxBytes);
    let file = await open(out, "w");
    let found;
    try {
      found = await readOnce(store, name, file, follower, maxBytes);
    } finally {
      await file.close();
    }
    if (found === null) throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: no complete upload hashes to its name${follower.lastProblem ? ` (${follower.lastProblem})` : ""}`);
    if (found.written) return;
    // The proof was an upload other than the first: read again, that upload alone.
    file = await open(out, "w");
    try {
      if ((await readOnce(store, name, file, new UploadFollower(name, maxBytes, found.key), maxBytes)) === null) {
        throw new ProofUnavailableError(`proof ${name.slice(0, 12)}: its upload was gone on a second reading`);
      }
    } finally {
      await file.close();
    }
  } catch (err) {
    await rm(out, { force: true });
    throw err;
  }
}

/** The proof's bytes as chunks (for a certificate bundle), checked as downloadProof checks them. Null when there is no such proof. */
export async function readProof(store: ProofStream, name: string): Promise<AsyncIterable<Uint8Array> | null> {
  if (!isSha256Hex(name) || (await store.count(name)) === 0) return null;
  const dir = await mkdtemp(join(tmpdir(), "cubist-proof-"));
  try {
    await downloadProof(store, name, join(dir, "proof.drat"));
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return (async function* () {
    try {
      yield* createReadStream(join(dir, "proof.drat"), { highWaterMark: 1 << 20 }) as AsyncIterable<Uint8Array>;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
}
