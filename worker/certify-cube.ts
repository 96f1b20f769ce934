/**
 * The worker's side of a certified run (CubeTask.certify): an UNSAT answer is only reported with a proof uploaded
 * to the proofs stream. Two things write one: the proof-producing placement search (`cubist-prove`,
 * worker/engine/prove.ts) for runs whose formula is cubist-placement, binary DRAT or, with the worker's
 * `--proof-format lrat`, LRAT about the cube's formula file; and the SAT solver, a binary DRAT proof, which runs on
 * the cube's formula as a file (the solvers cannot write a proof while reading stdin). The worker checks nothing
 * itself: the coordinator checks every proof (drat-trim or lrat-check, by its format) against the cube's formula it
 * builds on its own.
 */

import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openBaseCnf, writeCubeCnf } from "../certify/cnf.js";
import { CubistError } from "../core/errors.js";
import { PLACEMENT_ENCODING } from "../core/encode/placement.js";
import { placementTable, type PlacementTable } from "../core/encode/placement-table.js";
import type { VariableOrder } from "../core/encode/options.js";
import type { WorkerRun } from "./run-table.js";
import { uploadProof } from "../certify/proof-store.js";
import type { WorkerContext } from "./context.js";
import type { CachedFormula } from "../host/formula-cache.js";
import type { ProofFormat } from "./config.js";
import { isTrianglePuzzle } from "../core/triangle/puzzle.js";
import { isFormulaPuzzle } from "../core/cnf/run-formula.js";

/** A cube's formula and proof files, in a directory of their own. */
export interface ProofFiles {
  /** The cube's formula, for the SAT solver and the LRAT prover ("" when no formula was given). */
  readonly cnf: string;
  /** The SAT solver's proof. */
  readonly proof: string;
  /** The prover's proof. */
  readonly proverProof: string;
  /** Removes them all (idempotent). */
  remove(): Promise<void>;
}

/** A directory for a certified cube's proofs, and the cube's formula file when `formula` is given (the SAT solver's and the LRAT prover's input). */
export async function proofFiles(formula: CachedFormula | null, units: readonly number[], proverFormat: ProofFormat): Promise<ProofFiles> {
  const dir = await mkdtemp(join(tmpdir(), "cubist-proof-"));
  const cnf = formula ? join(dir, "cube.cnf") : "";
  try {
    if (formula) await writeCubeCnf(await openBaseCnf(formula.path), units, cnf);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  return { cnf, proof: join(dir, "cube.drat"), proverProof: join(dir, `cube-prove.${proverFormat}`), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A solver or the prover said UNSAT on a certified cube but wrote no proof: this worker's programs are at fault. */
export class ProofMissingError extends CubistError {
  override readonly name = "ProofMissingError";
  override readonly fault = "worker";
}

/**
 * Uploads the proof at `path` of a refuted cube; returns its object name. Throws ProofMissingError when there is
 * none, or what the upload threw.
 */
export async function publishProof(ctx: WorkerContext, path: string, run: string, cube: string): Promise<string> {
  const size = await stat(path).then((s) => s.size, () => -1);
  if (size < 0) throw new ProofMissingError("UNSAT was said but no proof was written");
  return uploadProof(ctx.layout.proofs, path, `cubist proof, run ${run} cube ${cube}`);
}

/** Placement tables of the runs served lately, by puzzle and variable order (the encoding is cubist-placement). */
const tables = new Map<string, PlacementTable | null>();

/**
 * The prover's placement table for a run, or null when its formula is not cubist-placement (or the table cannot
 * be built: the SAT solver then writes the proofs).
 */
export function proverTable(run: WorkerRun): PlacementTable | null {
  const puzzle = run.puzzle;
  if (run.encoding !== PLACEMENT_ENCODING || isTrianglePuzzle(puzzle) || isFormulaPuzzle(puzzle)) return null;
  const key = `${run.puzzleSha256 || run.id} ${run.order}`;
  let t = tables.get(key);
  if (t === undefined) {
    try {
      t = placementTable(puzzle, run.order ? { order: run.order as VariableOrder } : {});
    } catch {
      t = null;
    }
    if (tables.size >= 4) tables.clear();
    tables.set(key, t);
  }
  return t;
}
