/**
 * Checks a refuted cube's proof as it sits in the proofs store: the cube's formula written from the run's base
 * formula and the cube's units (which the checker takes from the coordinator's ledger, never from the producer),
 * the proof downloaded by its SHA-256 (the download checks the hash), and the checker of the proof's format run on
 * the two (certify/lrat-check.ts checkCubeProof). Used by the coordinator's own check slots and by workers' check
 * tasks alike, in a temporary directory of its own that it removes.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProofStream } from "../cluster/proof-stream.js";
import type { ProofCheck } from "./drat-trim.js";
import { writeCubeCnf, type BaseCnf } from "./cnf.js";
import { checkCubeProof, type CubeCheckOptions, type ProofFormat } from "./lrat-check.js";
import { downloadProof } from "./proof-store.js";

export interface StoredProof {
  base: BaseCnf;
  units: readonly number[];
  proofs: ProofStream;
  sha256: string;
}

/** Checks `proof` (see the module comment); `parent` is where the temporary directory goes (the OS's by default). */
export async function checkStoredProof(proof: StoredProof, options: CubeCheckOptions, parent = tmpdir()): Promise<ProofCheck & { format: ProofFormat }> {
  const dir = await mkdtemp(join(parent, "cubist-check-"));
  try {
    const cnf = join(dir, "cube.cnf");
    const file = join(dir, "cube.proof");
    await writeCubeCnf(proof.base, proof.units, cnf);
    await downloadProof(proof.proofs, proof.sha256, file);
    return await checkCubeProof(cnf, file, options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
