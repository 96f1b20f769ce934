/**
 * The certificate bundle of a certified UNSAT run (certify/bundle.ts): the base formula and the proofs come from
 * the Object Stores, the cubes from the run's ledger-backed model. Only a run that ended UNSAT with its coverage
 * checked has one. A formula run's bundle is the one-machine CNF bundle (certify/cnf-bundle.ts): its claim is about
 * formula.cnf alone, with no encoder to tie it to a puzzle.
 */

import { createReadStream } from "node:fs";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { readProof } from "../../certify/proof-store.js";
import { proofFormatOf } from "../../certify/lrat-check.js";
import { CHECK_SCRIPT, checksText, cubesText, formulaTieFiles, readmeText, textFile, type BundleFile } from "../../certify/bundle.js";
import { cnfBundleTexts } from "../../certify/cnf-bundle.js";
import { isFormulaEncoding } from "../../core/cnf/run-formula.js";
import { FailedPreconditionError } from "../errors.js";
import type { RunController } from "./run.js";

function proofFile(run: RunController, path: string, name: string): BundleFile {
  return {
    path,
    async *chunks() {
      const data = await readProof(run.stores.proofs, name);
      if (data === null) throw new Error(`proof ${name.slice(0, 12)} (${path}) is no longer in the proofs store`);
      yield* data;
    },
  };
}

/** The bundle's files, in the order they are sent. Throws FailedPreconditionError when the run has none. */
export async function certificateFiles(run: RunController): Promise<BundleFile[]> {
  const model = run.model;
  const certification = model.certification;
  if (!run.spec.certify) throw new FailedPreconditionError(`run ${run.id} was not certified (submit it with --certify)`);
  if (run.state !== RunState.RUN_STATE_UNSAT || certification.coverage !== "checked" || run.certifier === null) {
    throw new FailedPreconditionError(`run ${run.id} has no certificate: it is not a certified UNSAT (yet)`);
  }
  const cubes = model.refutedCubes();
  const missing = cubes.find((c) => !certification.proofs.has(c.id));
  if (missing) throw new FailedPreconditionError(`run ${run.id}: cube ${missing.id} has no recorded proof`);
  const base = await run.certifier.baseFormula();
  // The base file as downloaded and hash-checked: the exact bytes of the run's formula.
  const formula: BundleFile = { path: "formula.cnf", chunks: () => createReadStream(base.path, { highWaterMark: 1 << 20 }) };
  const files: BundleFile[] = isFormulaEncoding(run.spec.encoding) ? formulaRunTexts(run, cubes) : [
    textFile("README.md", readmeText({
      run: run.id, puzzleName: run.spec.name, encoding: run.spec.encoding, formulaSha256: run.spec.formulaSha256,
      numVars: run.spec.numVars, numClauses: run.spec.numClauses, cubes: cubes.length,
    })),
    textFile("check.sh", CHECK_SCRIPT),
    ...formulaTieFiles(run.spec.encoding, run.spec.order),
    textFile("puzzle.txt", run.spec.puzzleText),
    textFile("cubes.txt", cubesText(cubes)),
  ];
  // Who checked what during the run (coordinator/model/proof-checks.ts), for the record.
  files.push(textFile("checks.txt", checksText(cubes.flatMap((c) => certification.checks.get(c.id) ?? []))));
  files.push(formula, proofFile(run, "coverage.drat", certification.coverageProof));
  for (const c of cubes) {
    const name = certification.proofs.get(c.id)!;
    files.push(proofFile(run, `proofs/${c.id}.${await storedProofFormat(run, name)}`, name));
  }
  return files;
}

/** README.md, check.sh and cubes.txt of a formula run's bundle (certify/cnf-bundle.ts). */
function formulaRunTexts(run: RunController, cubes: ReadonlyArray<{ id: string; units: readonly number[] }>): BundleFile[] {
  const spec = run.spec;
  const source = spec.encoding === "dimacs" ? undefined : `the ${spec.encoding} encoding of the Sudoku in puzzle.txt (not re-derived by check.sh)`;
  const facts = { file: spec.name, numVars: spec.numVars, numClauses: spec.numClauses, formulaSha256: spec.formulaSha256, cubes: cubes.length, run: run.id, source };
  const texts = cnfBundleTexts(facts, cubes);
  return source === undefined ? texts : [...texts, textFile("puzzle.txt", spec.puzzleText)];
}

/** A stored proof's format (certify/lrat-check.ts), from its first chunk: the bundle names the file after it. */
async function storedProofFormat(run: RunController, name: string): Promise<"drat" | "lrat"> {
  const data = await readProof(run.stores.proofs, name);
  if (data === null) throw new Error(`proof ${name.slice(0, 12)} is no longer in the proofs store`);
  for await (const chunk of data) return proofFormatOf(chunk);
  return "drat";
}
