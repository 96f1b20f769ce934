/**
 * The certificate bundle of a formula proved unsatisfiable by cube and conquer: on one machine (`cubist solve F.cnf
 * --certify --certificate DIR`) and of a certified formula run on the cluster (`cubist run certificate RUN -o DIR`,
 * coordinator/shell/certificate.ts). The formula itself (formula.cnf: the input's clauses, rewritten plainly, or a
 * Sudoku's encoding), cubes.txt (on one machine every leaf of the cube tree, the ones the lookahead refuted
 * included; on the cluster the refuted cubes, the coverage proof refuting the branches the cuber pruned), a Kissat
 * DRAT proof per cube, the coverage proof, README.md and check.sh, which re-checks everything with drat-trim alone.
 * There is no encoder to tie the formula to a puzzle: the claim is about formula.cnf.
 */

import { CHECK_SCRIPT, textFile, type BundleFile } from "./bundle.js";

/** check.sh of a formula bundle: the puzzle bundle's, without the step that ties the formula to a puzzle. */
export function cnfCheckScript(): string {
  const kept = CHECK_SCRIPT.split("\n").filter((l) => l !== "#!/bin/sh" && !(l.startsWith("#") && /encode\.py|python3|puzzle/.test(l)) && !/python3|encoding\.txt|encode\.py/.test(l));
  const header = ["#!/bin/sh", "# Re-checks this certificate: every cube's proof and the coverage proof with drat-trim.", "# Needs: sh, awk, grep, drat-trim (https://github.com/marijnheule/drat-trim)."];
  return [...header, ...kept].join("\n");
}

/** What a formula bundle's README says. */
export interface CnfBundleFacts {
  file: string;
  numVars: number;
  numClauses: number;
  formulaSha256: string;
  cubes: number;
  /** The cluster run the bundle is of. */
  run?: string;
  /** What formula.cnf is when it is not the clauses of `file` (a Sudoku's encoding). */
  source?: string;
}

/** README.md of a formula bundle. */
export function cnfReadme(f: CnfBundleFacts): string {
  const origin = f.source ?? `those of ${f.file}, in order (comments dropped, one clause a line)`;
  return `# Certificate: ${f.file} is unsatisfiable
${f.run !== undefined ? `\nRun \`${f.run}\`.\n` : ""}
The claim: \`formula.cnf\` (${f.numVars} variables, ${f.numClauses} clauses, SHA-256 ${f.formulaSha256}) is
unsatisfiable. Its clauses are ${origin}.

The proof is cube-and-conquer:

1. Each line of \`cubes.txt\` is a cube: \`<cube-id> <literal> ... 0\`. For every cube, \`formula.cnf\` plus the cube's
   literals as unit clauses is unsatisfiable; \`proofs/<cube-id>.drat\` is a DRAT proof of that (binary DRAT, written
   by Kissat).
2. Coverage: \`formula.cnf\` plus, for every cube, one clause of its negated literals is unsatisfiable;
   \`coverage.drat\` is a DRAT proof of that.${f.run !== undefined ? " (Branches the cuber refuted are not cubes: this proof refutes them.)" : ""}

Together: any model of formula.cnf satisfies some cube (by 2) and no cube (by 1), so there is none.

Re-check with \`sh check.sh\` (needs sh, awk, grep and drat-trim); it prints \`cubes: N/N VERIFIED\` and
\`coverage: VERIFIED\` and exits 0 only when every proof holds. ${f.cubes} cube(s).
`;
}

/** The bundle's text files (the formula and proofs are added by the caller as they are written). */
export function cnfBundleTexts(facts: CnfBundleFacts, cubes: ReadonlyArray<{ id: string; units: readonly number[] }>): BundleFile[] {
  return [
    textFile("README.md", cnfReadme(facts)),
    textFile("check.sh", cnfCheckScript()),
    textFile("cubes.txt", cubes.map((c) => `${c.id} ${[...c.units, 0].join(" ")}\n`).join("")),
  ];
}
