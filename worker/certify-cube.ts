/**
 * The worker's side of a certified run (CubeTask.certify): the SAT solver runs on the cube's formula as a file
 * (the solvers cannot write a proof while reading stdin) and writes a binary DRAT proof beside it; an UNSAT answer
 * is only reported with that proof uploaded to the proofs Object Store. The worker checks nothing itself: the
 * coordinator checks every proof with drat-trim, against the cube's formula it builds on its own.
 */

import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBaseCnf, writeCubeCnf } from "../certify/cnf.js";
import { uploadProof } from "../certify/proof-store.js";
import type { WorkerContext } from "./context.js";
import type { CachedFormula } from "./formula-cache.js";

/** A cube's formula and proof files, in a directory of their own. */
export interface ProofFiles {
  readonly cnf: string;
  readonly proof: string;
  /** Removes both (idempotent). */
  remove(): Promise<void>;
}

export async function proofFiles(formula: CachedFormula, units: readonly number[]): Promise<ProofFiles> {
  const dir = await mkdtemp(join(tmpdir(), "cubist-proof-"));
  const cnf = join(dir, "cube.cnf");
  try {
    await writeCubeCnf(await openBaseCnf(formula.path), units, cnf);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { cnf, proof: join(dir, "cube.drat"), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Uploads the proof of a refuted cube; returns its object name. Throws when there is none or the upload fails. */
export async function publishProof(ctx: WorkerContext, files: ProofFiles, run: string, cube: string): Promise<string> {
  const size = await stat(files.proof).then((s) => s.size, () => -1);
  if (size < 0) throw new Error("the solver said UNSAT but wrote no proof");
  return uploadProof(ctx.layout.proofs, files.proof, `cubist DRAT proof, run ${run} cube ${cube}`);
}
