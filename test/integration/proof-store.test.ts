/**
 * The proofs stream against a real nats-server configured as the embedded cluster's (per-worker users): a worker
 * stores proofs with its own user, the coordinator's user reads them back byte for byte and deletes them; junk a
 * worker adds under a proof's name, even before the honest upload, never comes back in its place.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { downloadProof, readProof, uploadProof } from "../../certify/proof-store.js";
import { startLocalNats } from "../../cli/local-cluster.js";
import { openLayout } from "../../cluster/layout.js";
import { workerInboxPrefix } from "../../cluster/nats-users.js";
import type { ProofStream } from "../../cluster/proof-stream.js";
import { PROOF_CHUNK_BYTES, PROOF_HEADERS } from "../../proto/contract.js";
import { sha256Hex } from "../helpers/runs.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";

let dir: string;
let t: TestNats;
/** The proofs stream as worker "good" sees it, and worker "junk"'s connection. */
let good: ProofStream;
let junk: NatsConnection;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "cubist-proof-store-"));
  const local = await startLocalNats(join(dir, "jetstream"), ["good", "junk"]);
  t = await startTestNats({ running: local.server, auth: local.coordinator });
  const as = (id: "good" | "junk"): Promise<NatsConnection> => t.connect(id, { ...local.workers.get(id)!, inboxPrefix: workerInboxPrefix(id) });
  good = (await openLayout(await as("good"), t.names, "good")).proofs;
  junk = await as("junk");
});

after(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

/** An upload of one chunk, `bytes`, that worker "junk" adds under its own name (complete: with the size). */
async function publishJunk(name: string, upload: string, bytes: Uint8Array, complete = true): Promise<void> {
  const h = headers();
  h.set(PROOF_HEADERS.upload, upload);
  h.set(PROOF_HEADERS.chunk, "0");
  if (complete) h.set(PROOF_HEADERS.size, String(bytes.length));
  await jetstream(junk).publish(t.names.proofSubject(name, "junk"), bytes, { headers: h });
}

test("proofs - a worker stores a proof of many chunks and an empty one; the coordinator reads both back byte for byte and deletes them", async () => {
  const big = randomBytes(3 * PROOF_CHUNK_BYTES + 12_345);
  const name = await uploadProof(good, file("big.drat", big), "test proof");
  assert.equal(name, sha256Hex(big));
  assert.equal(await t.layout.proofs.count(name), 4, "four chunks");
  await downloadProof(t.layout.proofs, name, join(dir, "big.out"));
  assert.ok(readFileSync(join(dir, "big.out")).equals(big));
  const chunks: Buffer[] = [];
  for await (const c of (await readProof(t.layout.proofs, name))!) chunks.push(Buffer.from(c));
  assert.ok(Buffer.concat(chunks).equals(big));

  const empty = await uploadProof(good, file("empty.drat", new Uint8Array(0)), "empty proof");
  await downloadProof(t.layout.proofs, empty, join(dir, "empty.out"));
  assert.equal(readFileSync(join(dir, "empty.out")).length, 0);

  assert.equal(await t.layout.proofs.delete(name), true);
  assert.equal(await t.layout.proofs.count(name), 0);
  assert.equal(await readProof(t.layout.proofs, name), null);
  await assert.rejects(downloadProof(t.layout.proofs, name, join(dir, "gone.out")), /is not in the proofs store/);
  assert.equal(await t.layout.proofs.delete(name), false, "nothing left to delete");
  assert.equal(await t.layout.proofs.count(empty), 1, "deleting one proof leaves the others");
});

test("proofs - junk stored under a proof's name before the honest upload (by a worker that knew the hash) is passed over", async () => {
  const proof = randomBytes(PROOF_CHUNK_BYTES + 100);
  const name = sha256Hex(proof);
  await publishJunk(name, "aaaaaaaaaaaaaaaa", new TextEncoder().encode("not the proof"));
  await publishJunk(name, "bbbbbbbbbbbbbbbb", proof.subarray(0, 1000), false);
  await assert.rejects(downloadProof(t.layout.proofs, name, join(dir, "junk.out")), /no complete upload hashes to its name/);
  assert.equal(await uploadProof(good, file("honest.drat", proof), "honest proof"), name);
  await downloadProof(t.layout.proofs, name, join(dir, "honest.out"));
  assert.ok(readFileSync(join(dir, "honest.out")).equals(proof), "the honest upload, read again alone");
  await assert.rejects(downloadProof(t.layout.proofs, name, join(dir, "small.out"), proof.length - 1), /no complete upload/);
});
