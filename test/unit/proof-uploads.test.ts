/**
 * How a reader picks a proof out of what is stored under its name (certify/proof-uploads.ts): the first upload that
 * is complete, in order, within the limit and hashing to the name, whatever junk was added before, among or after
 * its chunks.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { MAX_UPLOADS_FOLLOWED, parseChunk, UploadFollower, uploadKey, type ChunkStep, type ProofChunk } from "../../certify/proof-uploads.js";
import { PROOF_HEADERS } from "../../proto/contract.js";

const PROOF = Buffer.from("d 1 2 0\n-3 0\n0\n");
const NAME = createHash("sha256").update(PROOF).digest("hex");
const HONEST = `cubist.proofs.${NAME}.w1`;
const JUNK = `cubist.proofs.${NAME}.w2`;

/** The chunks of one upload of `bytes`, `size` bytes per chunk (the last carries the size). */
function upload(subject: string, id: string, bytes: Buffer, size = 5): ProofChunk[] {
  const out: ProofChunk[] = [];
  for (let i = 0; i * size < bytes.length || i === 0; i++) {
    const data = bytes.subarray(i * size, (i + 1) * size);
    const last = (i + 1) * size >= bytes.length;
    out.push({ subject, upload: id, index: i, size: last ? bytes.length : null, data });
  }
  return out;
}

/** Feeds the chunks in order; returns the key of the first complete upload and the bytes of that upload seen. */
function follow(chunks: readonly ProofChunk[], follower = new UploadFollower(NAME, 1 << 20)): { complete: string | null; steps: ChunkStep[] } {
  const steps: ChunkStep[] = [];
  for (const c of chunks) {
    const step = follower.take(c);
    steps.push(step);
    if (step.kind === "complete") return { complete: step.key, steps };
  }
  return { complete: null, steps };
}

test("proof uploads - one honest upload is the proof; its chunks are data, the last completes it", () => {
  const chunks = upload(HONEST, "a1a1a1a1", PROOF);
  const { complete, steps } = follow(chunks);
  assert.equal(complete, uploadKey(chunks[0]));
  assert.deepEqual(steps.map((s) => s.kind), [...Array<string>(chunks.length - 1).fill("data"), "complete"]);
});

test("proof uploads - junk uploads before and among the honest one's chunks are passed over; the honest upload is found", () => {
  const honest = upload(HONEST, "a1a1a1a1", PROOF);
  const junk = upload(JUNK, "b2b2b2b2", Buffer.from("junk bytes that are not the proof"));
  const sameId = upload(JUNK, "a1a1a1a1", Buffer.from("forged chunks under the honest upload's id"));
  const mixed = [...junk.slice(0, 2), honest[0], sameId[0], ...junk.slice(2), ...honest.slice(1), ...sameId.slice(1)];
  const { complete, steps } = follow(mixed);
  assert.equal(complete, uploadKey(honest[0]));
  assert.ok(steps.some((s) => s.kind === "broken" && /hash to/.test(s.reason)), "the junk upload is broken by its hash");
});

test("proof uploads - what follows a complete upload, or repeats its chunks, is ignored", () => {
  const honest = upload(HONEST, "a1a1a1a1", PROOF);
  const f = new UploadFollower(NAME, 1 << 20);
  assert.ok(follow(honest, f).complete);
  assert.deepEqual(f.take({ ...honest[1], index: honest.length }), { kind: "ignored" });
  assert.deepEqual(f.take(honest[0]), { kind: "ignored" });
});

test("proof uploads - an upload out of order, over the limit, or with a wrong size or hash is broken", () => {
  const honest = upload(HONEST, "a1a1a1a1", PROOF);
  const swapped = [honest[0], honest[2], honest[1], ...honest.slice(3)];
  assert.equal(follow(swapped).complete, null);
  const small = new UploadFollower(NAME, PROOF.length - 1);
  assert.equal(follow(honest, small).complete, null);
  assert.match(small.lastProblem, /more than the limit/);
  const wrongSize = honest.map((c) => (c.size === null ? c : { ...c, size: c.size + 1 }));
  assert.equal(follow(wrongSize).complete, null);
  const truncated = upload(HONEST, "c3c3c3c3", PROOF.subarray(0, PROOF.length - 1));
  const f = new UploadFollower(NAME, 1 << 20);
  assert.equal(follow(truncated, f).complete, null);
  assert.match(f.lastProblem, /hash to/);
});

test("proof uploads - at most MAX_UPLOADS_FOLLOWED uploads are followed; an upload that starts later is not looked at", () => {
  const junk = Array.from({ length: MAX_UPLOADS_FOLLOWED }, (_, i) => upload(JUNK, `d${String(i).padStart(7, "0")}`, Buffer.from(`junk ${i}`))[0]);
  const honest = upload(HONEST, "a1a1a1a1", PROOF);
  const { complete, steps } = follow([...junk.map((c) => ({ ...c, size: null })), ...honest]);
  assert.equal(complete, null);
  assert.ok(steps.slice(MAX_UPLOADS_FOLLOWED).every((s) => s.kind === "ignored"));
});

test("proof uploads - restricted to one upload (a second reading), every other is ignored", () => {
  const honest = upload(HONEST, "a1a1a1a1", PROOF);
  const other = upload(HONEST, "e5e5e5e5", PROOF);
  const f = new UploadFollower(NAME, 1 << 20, uploadKey(other[0]));
  const { complete, steps } = follow([...honest, ...other], f);
  assert.equal(complete, uploadKey(other[0]));
  assert.ok(steps.slice(0, honest.length).every((s) => s.kind === "ignored"));
});

test("proof uploads - a message without well-formed chunk headers is not a chunk", () => {
  const header = (values: Record<string, string>) => (name: string): string => values[name] ?? "";
  const data = new Uint8Array([1]);
  assert.deepEqual(parseChunk(HONEST, header({ [PROOF_HEADERS.upload]: "a1a1a1a1", [PROOF_HEADERS.chunk]: "3", [PROOF_HEADERS.size]: "9" }), data), { subject: HONEST, upload: "a1a1a1a1", index: 3, size: 9, data });
  assert.equal(parseChunk(HONEST, header({ [PROOF_HEADERS.chunk]: "0" }), data), null);
  assert.equal(parseChunk(HONEST, header({ [PROOF_HEADERS.upload]: "not hex!", [PROOF_HEADERS.chunk]: "0" }), data), null);
  assert.equal(parseChunk(HONEST, header({ [PROOF_HEADERS.upload]: "a1a1a1a1", [PROOF_HEADERS.chunk]: "-1" }), data), null);
  assert.equal(parseChunk(HONEST, header({ [PROOF_HEADERS.upload]: "a1a1a1a1", [PROOF_HEADERS.chunk]: "01" }), data), null);
  assert.equal(parseChunk(HONEST, header({ [PROOF_HEADERS.upload]: "a1a1a1a1", [PROOF_HEADERS.chunk]: "0", [PROOF_HEADERS.size]: "1e3" }), data), null);
  assert.equal(follow([]).complete, null);
  assert.deepEqual(new UploadFollower(NAME, 10).take(null), { kind: "ignored" });
});
