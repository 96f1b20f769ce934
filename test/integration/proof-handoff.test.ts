/**
 * Proofs handed over as files (the embedded cluster: ProofStream.handoffDir, certify/proof-store.ts), with a real
 * nats-server behind the streams as in `cubist solve`: a worker's proof is moved under its SHA-256, the coordinator
 * reads it back byte for byte; a file that does not hash to its name, one over the limit or a missing one is
 * refused, and nothing goes through the proofs stream.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { downloadProof, ProofUnavailableError, uploadProof } from "../../certify/proof-store.js";
import { openLayout } from "../../cluster/layout.js";
import type { ProofStream } from "../../cluster/proof-stream.js";
import { sha256Hex } from "../helpers/runs.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";

let dir: string;
let handoff: string;
let t: TestNats;
let worker: ProofStream;
let coordinator: ProofStream;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "cubist-proof-handoff-"));
  handoff = join(dir, "proofs");
  mkdirSync(handoff);
  t = await startTestNats();
  worker = (await openLayout(t.nc, t.names, "w1", handoff)).proofs;
  coordinator = (await openLayout(t.nc, t.names, "coordinator", handoff)).proofs;
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

test("proof handoff - a worker's proof is moved under its SHA-256 and read back byte for byte; nothing crosses the proofs stream", async () => {
  const bytes = randomBytes(300_000);
  const path = file("cube.lrat", bytes);
  const name = await uploadProof(worker, path, "test proof");
  assert.equal(name, sha256Hex(bytes));
  assert.equal(existsSync(path), false, "the worker's file is moved, not copied");
  assert.equal(await coordinator.count(name), 1);
  const out = join(dir, "down.lrat");
  await downloadProof(coordinator, name, out);
  assert.deepEqual(readFileSync(out), bytes);
  const info = await t.jsm.streams.info(t.names.proofsStream);
  assert.equal(info.state.messages, 0);
  assert.equal(await coordinator.delete(name), true);
  assert.equal(await coordinator.count(name), 0);
});

test("proof handoff - a file that does not hash to its name, a proof over the limit and a missing one are refused", async () => {
  const bytes = randomBytes(1000);
  const name = await uploadProof(worker, file("a.lrat", bytes), "test proof");
  const out = join(dir, "down2.lrat");
  await assert.rejects(downloadProof(coordinator, name, out, 999), (err: Error) => err instanceof ProofUnavailableError && /more than the limit/.test(err.message));
  // Swapped after the handoff: the coordinator hashes what it reads.
  writeFileSync(join(handoff, name), randomBytes(1000));
  await assert.rejects(downloadProof(coordinator, name, out), (err: Error) => err instanceof ProofUnavailableError && /does not hash to its name/.test(err.message));
  assert.equal(existsSync(out), false);
  await assert.rejects(downloadProof(coordinator, "0".repeat(64), out), (err: Error) => err instanceof ProofUnavailableError && /not in the proofs store/.test(err.message));
});
