/**
 * Uploading a run's base formula to the Object Store under its SHA-256. Content-addressed: a formula that is
 * already there (same puzzle, encoding and options; or a restarted coordinator) is not uploaded again.
 * The DIMACS is produced twice (once to hash, once to upload) rather than held in memory.
 * A cancelled run releases its formula: the object is deleted unless another run that is not over shares it. A
 * deleted run releases its formula and proofs unless a run that is kept, in any state, shares them.
 */

import { createHash } from "node:crypto";
import type { ObjectStore } from "@nats-io/obj";
import type { Logger } from "../../cluster/log.js";
import type { ProofStream } from "../../cluster/proof-stream.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { isSha256Hex } from "../../core/sha256.js";
import type { RunRecord, RunState } from "../../proto/gen/cubist/v1/run.js";

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

/** Deletes the formula `sha256` of run `runId` unless one of `runs` that is not over uses it too; never throws. */
export async function releaseFormula(
  store: ObjectStore,
  sha256: string,
  runId: string,
  runs: Iterable<{ readonly id: string; readonly state: RunState; readonly spec: { readonly formulaSha256: string } }>,
  log: Logger,
): Promise<void> {
  if (!isSha256Hex(sha256)) return;
  for (const r of runs) {
    if (r.id !== runId && r.spec.formulaSha256 === sha256 && !isTerminal(r.state)) return;
  }
  try {
    if (await store.delete(sha256)) log.info("formula deleted", { run: runId, formula: sha256 });
  } catch (err) {
    log.warn("formula not deleted", { run: runId, formula: sha256, err: (err as Error).message });
  }
}

/**
 * Deletes the DRAT proofs of run `runId` (a cancelled certified run) from the proofs store, except those that an
 * open run also holds (identical cube and proof bytes); never throws.
 */
export async function releaseProofs(
  store: ProofStream,
  proofs: Iterable<string>,
  runId: string,
  runs: Iterable<{ readonly id: string; readonly state: RunState; readonly proofs: ReadonlyMap<string, string> }>,
  log: Logger,
): Promise<void> {
  const shared = new Set<string>();
  for (const r of runs) if (r.id !== runId && !isTerminal(r.state)) for (const sha of r.proofs.values()) shared.add(sha);
  let deleted = 0;
  for (const sha of new Set(proofs)) {
    if (!isSha256Hex(sha) || shared.has(sha)) continue;
    try {
      if (await store.delete(sha)) deleted++;
    } catch (err) {
      log.warn("proof not deleted", { run: runId, proof: sha, err: (err as Error).message });
    }
  }
  if (deleted > 0) log.info("proofs deleted", { run: runId, proofs: deleted });
}

/**
 * A deleted run's base formula and DRAT proofs leave their stores, except what a run that is still kept (in any
 * state: an ended run's answer is about its formula, its certificate needs its proofs) holds too. Objects are stored
 * by content, so only runs made from the same formula can share them; `load` rebuilds those (from their ledger) to
 * see their proofs. Never throws.
 */
export async function releaseDeletedRun(
  stores: { readonly formulas: ObjectStore; readonly proofs: ProofStream },
  deleted: { readonly id: string; readonly sha: string; readonly proofs: readonly string[] },
  kept: Iterable<RunRecord>,
  load: (id: string) => Promise<{ readonly model: { readonly certification: { readonly proofs: ReadonlyMap<string, string>; readonly coverageProof: string } } } | undefined>,
  log: Logger,
): Promise<void> {
  if (deleted.sha === "") return;
  let shared = false;
  const held = new Set<string>();
  for (const rec of kept) {
    const other = rec.spec?.runId ?? "";
    if (other === deleted.id || rec.spec?.formulaSha256 !== deleted.sha) continue;
    shared = true;
    const run = await load(other).catch(() => undefined);
    for (const proof of run?.model.certification.proofs.values() ?? []) held.add(proof);
    if (run) held.add(run.model.certification.coverageProof);
  }
  if (!shared) await releaseFormula(stores.formulas, deleted.sha, deleted.id, [], log);
  await releaseProofs(stores.proofs, deleted.proofs.filter((p) => !held.has(p)), deleted.id, [], log);
}
