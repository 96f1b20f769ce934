/**
 * Certified cube and conquer on one machine for a DIMACS formula (`cubist solve F.cnf --certify [--certificate DIR]`):
 * every leaf of the lookahead's cube tree, the ones it refuted included, goes to Kissat with a DRAT proof, and each
 * proof is checked by drat-trim in a process of its own; then the coverage formula (the formula plus every cube
 * negated) is refuted and checked the same way. An UNSAT answer is printed only when all of them are verified; a
 * model ends the solve as without --certify (checked against every clause). With a directory, the proofs are kept
 * there as a bundle that check.sh re-checks with drat-trim alone (certify/cnf-bundle.ts).
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { CubistError } from "../core/errors.js";
import { WrongModelError, type Cnf } from "../core/cnf/cnf.js";
import { checkModel } from "../core/cnf/check-model.js";
import { dimacsChunks } from "../core/encode/dimacs.js";
import { openBaseCnf, writeCoverageCnf, writeCubeCnf, type BaseCnf } from "../certify/cnf.js";
import { checkProof } from "../certify/drat-trim.js";
import { cnfBundleTexts } from "../certify/cnf-bundle.js";
import { writeBundle } from "../certify/bundle.js";
import { runSolver, type SolverName } from "../host/solver/index.js";
import { cubeFormula, type CnfSolveResult } from "./solve-cnf.js";

/** A proof drat-trim did not verify: nothing is claimed. */
export class ProofNotVerifiedError extends CubistError {
  override readonly name = "ProofNotVerifiedError";
  override readonly fault = "worker";
}

export interface CnfCertifyOptions {
  readonly workers: number;
  readonly maxDepth: number;
  readonly solver?: SolverName;
  readonly binary?: string;
  /** Keep the bundle here (created if missing); else the proofs go to a temporary directory, removed at the end. */
  readonly certificate?: string;
  /** The input's name, for the bundle's README. */
  readonly file: string;
  readonly signal?: AbortSignal;
}

interface Leaf {
  readonly id: string;
  readonly units: readonly number[];
}

/** Refutes one leaf with a checked proof; a model, or unknown, when the solver finds one. */
async function refuteLeaf(base: BaseCnf, cnf: Cnf, leaf: Leaf, dir: string, o: CnfCertifyOptions, signal: AbortSignal): Promise<"unsat" | { model: Uint8Array } | { unknown: string }> {
  const cnfPath = join(dir, "work", `cube-${leaf.id}.cnf`), proof = join(dir, "proofs", `${leaf.id}.drat`);
  await writeCubeCnf(base, leaf.units, cnfPath);
  const outcome = await runSolver(cnfPath, cnf.numVars, { solver: o.solver, binary: o.binary, proofPath: proof, signal });
  if (outcome.kind === "unknown") return { unknown: outcome.reason };
  if (outcome.kind === "sat") return { model: outcome.model };
  const check = await checkProof(cnfPath, proof, { signal });
  if (!check.verified) throw new ProofNotVerifiedError(`cube ${leaf.id} (${leaf.units.join(" ") || "the whole formula"}): ${check.detail}`);
  await rm(cnfPath, { force: true });
  return "unsat";
}

/** Solves `cnf` with certified UNSAT (see the module note). */
export async function certifyCnfLocal(cnf: Cnf, o: CnfCertifyOptions): Promise<CnfSolveResult> {
  const start = performance.now();
  const split = cubeFormula(cnf, o.maxDepth);
  const cubingMs = performance.now() - start;
  const leaves: Leaf[] = [...split.cubes, ...split.refuted].map((units, i) => ({ id: String(i + 1), units }));
  const dir = o.certificate ?? (await mkdtemp(join(tmpdir(), "cubist-certify-")));
  let solved = 0;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  o.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await mkdir(join(dir, "proofs"), { recursive: true });
    await mkdir(join(dir, "work"), { recursive: true });
    const formulaPath = join(dir, "formula.cnf");
    await pipeline(Readable.from(dimacsChunks(cnf)), createWriteStream(formulaPath));
    const base = await openBaseCnf(formulaPath);
    const queue = [...leaves];
    let answer: { model: Uint8Array; cube: readonly number[] } | { unknown: string } | null = null;
    const runOne = async (): Promise<void> => {
      for (let leaf = queue.shift(); leaf !== undefined && answer === null; leaf = queue.shift()) {
        const r = await refuteLeaf(base, cnf, leaf, dir, o, stop.signal);
        if (r === "unsat") solved++;
        else if ("model" in r) {
          const check = checkModel(cnf, r.model);
          if (!check.ok) throw new WrongModelError(check.clause, check.literals);
          answer = { model: r.model, cube: leaf.units };
          stop.abort();
        } else answer ??= r; // an "aborted" after another process's model must not replace it
      }
    };
    // The first answer, error or stop ends every other solver and checker before the directory is touched again.
    const guarded = (): Promise<void> => runOne().catch((err: unknown) => {
      stop.abort();
      throw err;
    });
    const settled = await Promise.allSettled(Array.from({ length: Math.max(1, Math.min(o.workers, leaves.length)) }, guarded));
    stop.abort();
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const stats = { cubes: split.cubes.length, refuted: split.refuted.length, failedLiterals: split.failedLiterals, solved, cubingMs, solverSeconds: 0 };
    const done = (): number => performance.now() - start;
    if (answer !== null) {
      const a = answer as { model: Uint8Array; cube: readonly number[] } | { unknown: string };
      return "model" in a ? { status: "sat", model: a.model, cube: a.cube, stats: { ...stats, wallMs: done() } } : { status: "unknown", reason: a.unknown, stats: { ...stats, wallMs: done() } };
    }
    await refuteCoverage(base, cnf, leaves, dir, o);
    await rm(join(dir, "work"), { recursive: true, force: true });
    if (o.certificate !== undefined) {
      const sha = createHash("sha256");
      for (const chunk of dimacsChunks(cnf)) sha.update(chunk);
      await writeBundle(dir, cnfBundleTexts({ file: o.file, numVars: cnf.numVars, numClauses: cnf.clauses.count, formulaSha256: sha.digest("hex"), cubes: leaves.length }, leaves));
    }
    return { status: "unsat", stats: { ...stats, wallMs: done() } };
  } finally {
    o.signal?.removeEventListener("abort", onAbort);
    if (o.certificate === undefined) await rm(dir, { recursive: true, force: true });
  }
}

/** The coverage formula refuted by Kissat, its proof checked by drat-trim (proof kept as coverage.drat). */
async function refuteCoverage(base: BaseCnf, cnf: Cnf, leaves: readonly Leaf[], dir: string, o: CnfCertifyOptions): Promise<void> {
  const cnfPath = join(dir, "work", "coverage.cnf"), proof = join(dir, "coverage.drat");
  await writeCoverageCnf(base, leaves.map((l) => l.units), cnfPath);
  const outcome = await runSolver(cnfPath, cnf.numVars, { solver: o.solver, binary: o.binary, proofPath: proof, signal: o.signal });
  if (outcome.kind !== "unsat") throw new ProofNotVerifiedError(`the coverage formula: the solver answered ${outcome.kind}, not unsat (a cuber bug)`);
  const check = await checkProof(cnfPath, proof, { signal: o.signal });
  if (!check.verified) throw new ProofNotVerifiedError(`the coverage proof: ${check.detail}`);
}
