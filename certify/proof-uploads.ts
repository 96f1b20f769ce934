/**
 * How a DRAT proof travels in the proofs stream (cluster/proof-stream.ts), and how a reader picks it out. Pure: no
 * NATS, no files.
 *
 * One upload is a run of chunk messages on `<p>.proofs.<sha256>.<uploader>`, each carrying the upload's random id
 * and its index (0, 1, 2, ...); the last one also carries the proof's size in bytes. Nothing under a proof's name
 * is ever replaced or removed except by the coordinator (workers may not delete, purge or roll up), but anyone who
 * may store proofs can add messages beside it: a worker's retry after a failed upload, or junk a worker adds under
 * its own id. So a reader follows the uploads it meets in stream order, each apart (an upload is named by subject
 * and id, so nobody can add to another uploader's upload), and takes the first one that is complete, in order, no
 * larger than the limit, and whose bytes hash to the name. Added junk costs reading, never a wrong byte.
 */

import { createHash, type Hash } from "node:crypto";
import { PROOF_HEADERS } from "../proto/contract.js";

/** Uploads of one proof a reader follows at most; uploads that start after these are not looked at. */
export const MAX_UPLOADS_FOLLOWED = 16;

const UPLOAD_ID_RE = /^[0-9a-f]{8,64}$/;
const COUNT_RE = /^(0|[1-9][0-9]{0,14})$/;

/** One chunk message, as read from the stream. */
export interface ProofChunk {
  readonly subject: string;
  readonly upload: string;
  readonly index: number;
  /** The proof's size, on the last chunk; null on the others. */
  readonly size: number | null;
  readonly data: Uint8Array;
}

/** The chunk in a message, or null when the message is not a well-formed chunk (a reader skips it). */
export function parseChunk(subject: string, header: (name: string) => string, data: Uint8Array): ProofChunk | null {
  const upload = header(PROOF_HEADERS.upload);
  const index = header(PROOF_HEADERS.chunk);
  const size = header(PROOF_HEADERS.size);
  if (!UPLOAD_ID_RE.test(upload) || !COUNT_RE.test(index) || (size !== "" && !COUNT_RE.test(size))) return null;
  return { subject, upload, index: Number(index), size: size === "" ? null : Number(size), data };
}

/** Names an upload: its subject (so its uploader) and its id. */
export function uploadKey(chunk: Pick<ProofChunk, "subject" | "upload">): string {
  return `${chunk.subject} ${chunk.upload}`;
}

/**
 * What became of one message: `ignored` (not a chunk, or of an upload that is broken, done or not followed),
 * `broken` (it broke its upload: out of order, over the limit, or the size or hash is wrong), `data` (its bytes are
 * the next of upload `key`) or `complete` (its bytes end upload `key`, which is the proof).
 */
export type ChunkStep =
  | { readonly kind: "ignored" }
  | { readonly kind: "broken"; readonly key: string; readonly reason: string }
  | { readonly kind: "data" | "complete"; readonly key: string };

interface Upload {
  next: number;
  bytes: number;
  readonly hash: Hash;
  state: "open" | "broken" | "done";
}

/**
 * Follows the uploads of proof `name` (its SHA-256 in hex) as their messages arrive in stream order. `only`
 * restricts it to one upload (a second reading of the upload a first one found to be the proof).
 */
export class UploadFollower {
  private readonly uploads = new Map<string, Upload>();
  /** Why the last upload that broke did (for the error when no upload is the proof). */
  lastProblem = "";

  constructor(
    private readonly name: string,
    private readonly maxBytes: number,
    private readonly only?: string,
  ) {}

  take(chunk: ProofChunk | null): ChunkStep {
    if (chunk === null) return { kind: "ignored" };
    const key = uploadKey(chunk);
    if (this.only !== undefined && key !== this.only) return { kind: "ignored" };
    let upload = this.uploads.get(key);
    if (upload === undefined) {
      if (chunk.index !== 0 || this.uploads.size >= MAX_UPLOADS_FOLLOWED) return { kind: "ignored" };
      upload = { next: 0, bytes: 0, hash: createHash("sha256"), state: "open" };
      this.uploads.set(key, upload);
    }
    if (upload.state !== "open") return { kind: "ignored" };
    const problem = this.check(upload, chunk);
    if (problem !== null) {
      upload.state = "broken";
      this.lastProblem = problem;
      return { kind: "broken", key, reason: problem };
    }
    upload.next++;
    upload.bytes += chunk.data.length;
    upload.hash.update(chunk.data);
    if (chunk.size === null) return { kind: "data", key };
    const digest = upload.hash.digest("hex");
    // A finished upload takes nothing more: whatever follows under its key is ignored.
    upload.state = "done";
    if (upload.bytes !== chunk.size) return this.broke(key, `an upload says ${chunk.size} bytes but has ${upload.bytes}`);
    if (digest !== this.name) return this.broke(key, `an upload's bytes hash to ${digest.slice(0, 12)}`);
    return { kind: "complete", key };
  }

  private check(upload: Upload, chunk: ProofChunk): string | null {
    if (chunk.index !== upload.next) return `an upload's chunk ${chunk.index} came where ${upload.next} was due`;
    if (upload.bytes + chunk.data.length > this.maxBytes) return `an upload has more than the limit of ${this.maxBytes} bytes`;
    return null;
  }

  private broke(key: string, reason: string): ChunkStep {
    this.lastProblem = reason;
    return { kind: "broken", key, reason };
  }
}
