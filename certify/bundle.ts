/**
 * A certificate bundle: the files that let anyone re-check a certified UNSAT with drat-trim and Python 3 alone,
 * without Cubist. `README.md` says what each file is. `check.sh` first ties the formula to the puzzle: `encode.py`
 * (certify/encode.py, a separate encoder of cubist-placement written from docs/encodings.md, sharing no code with
 * core/encode/) encodes puzzle.txt as `encoding.txt` names and must get formula.cnf's clauses. Then it builds every
 * cube's formula (formula.cnf + the cube's literals as unit clauses) and the coverage formula (formula.cnf + every
 * cube negated) and checks each with its proof: lrat-check for a cube's LRAT proof, drat-trim for DRAT.
 */

import { chmod, mkdir } from "node:fs/promises";
import { createWriteStream, readFileSync } from "node:fs";
import { dirname, join, normalize, isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/** One file of a bundle: a relative path and its bytes. */
export interface BundleFile {
  readonly path: string;
  chunks(): AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
}

export interface BundleFacts {
  run: string;
  puzzleName: string;
  encoding: string;
  formulaSha256: string;
  numVars: number;
  numClauses: number;
  cubes: number;
}

/** cubes.txt: one refuted cube per line, `<cube-id> <literal> ... 0` (literals of formula.cnf's variables). */
export function cubesText(cubes: ReadonlyArray<{ id: string; units: readonly number[] }>): string {
  return cubes.map((c) => `${c.id} ${[...c.units, 0].join(" ")}\n`).join("");
}

/** One finding of a checker on a cube's proof during the run (a ProofCheck ledger entry that is not "sent"). */
export interface CheckFinding {
  readonly cubeId: string;
  readonly producer: string;
  readonly checker: string;
  readonly outcome: string;
  readonly cpuMs: number;
  readonly wallMs: number;
}

/**
 * checks.txt: who checked each cube's proof during the run, one finding a line,
 * `<cube-id> <producer> <checker> <verified|rejected> <cpu-ms> <wall-ms>` ("coordinator" as checker: the coordinator).
 * For the record only: check.sh checks every proof again itself.
 */
export function checksText(findings: readonly CheckFinding[]): string {
  const head = "# cube producer checker outcome cpu-ms wall-ms\n";
  return head + findings.map((f) => `${f.cubeId} ${f.producer} ${f.checker} ${f.outcome} ${Math.round(f.cpuMs)} ${Math.round(f.wallMs)}\n`).join("");
}

export const CHECK_SCRIPT = `#!/bin/sh
# Re-checks this certificate: that formula.cnf is puzzle.txt encoded (encode.py), then every cube's proof (LRAT with
# lrat-check, DRAT with drat-trim) and the coverage proof with drat-trim. Needs: sh, awk, grep, python3, drat-trim
# and lrat-check (both from https://github.com/marijnheule/drat-trim; Debian's drat-trim package has both).
# Exit 0 only when all are verified.
set -eu
cd "$(dirname "$0")"
command -v python3 >/dev/null 2>&1 || { echo "formula: NOT VERIFIED: check.sh needs python3 to re-derive formula.cnf from puzzle.txt"; exit 1; }
encoding=$(awk '$1 == "encoding" {print $2; exit}' encoding.txt)
order=$(awk '$1 == "order" {print $2; exit}' encoding.txt)
# The proofs are about formula.cnf; this ties formula.cnf to the puzzle. Nothing else is checked without it.
python3 encode.py --check formula.cnf --encoding "$encoding" --order "$order" puzzle.txt || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
V=$(awk '/^p cnf/ {print $3; exit}' formula.cnf)
C=$(awk '/^p cnf/ {print $4; exit}' formula.cnf)
grep -v '^[cp]' formula.cnf > "$tmp/clauses"
failed=0; n=0
# drat-trim exits 0 also when a proof fails, and ends its progress lines with a carriage return.
verified() { drat-trim "$1" "$2" -w | tr '\\r' '\\n' | grep -qx 's VERIFIED'; }
# lrat-check follows each lemma's hints and prints "c VERIFIED" for a proof that ends in the empty clause; it lets
# an empty clause its hints do not derive through, so lrat_guard.py replays those.
lrat_verified() { lrat-check "$1" "$2" | grep -qx 'c VERIFIED' && python3 lrat_guard.py "$1" "$2"; }
cube_verified() { if [ -f "proofs/$2.lrat" ]; then lrat_verified "$1" "proofs/$2.lrat"; else verified "$1" "proofs/$2.drat"; fi; }
while read -r id lits; do
  k=$(echo "$lits" | awk '{print NF - 1}')
  { echo "p cnf $V $((C + k))"; cat "$tmp/clauses"; echo; echo "$lits" | awk '{for (i = 1; i < NF; i++) print $i, 0}'; } > "$tmp/cube.cnf"
  if cube_verified "$tmp/cube.cnf" "$id"; then n=$((n + 1)); else echo "cube $id: NOT VERIFIED"; failed=1; fi
done < cubes.txt
m=$(wc -l < cubes.txt)
{ echo "p cnf $V $((C + m))"; cat "$tmp/clauses"; echo; awk '{s = ""; for (i = 2; i < NF; i++) s = s (-$i) " "; print s "0"}' cubes.txt; } > "$tmp/coverage.cnf"
if verified "$tmp/coverage.cnf" coverage.drat; then echo "coverage: VERIFIED"; else echo "coverage: NOT VERIFIED"; failed=1; fi
echo "cubes: $n/$m VERIFIED"
exit $failed
`;

export function readmeText(f: BundleFacts): string {
  return `# Certificate: ${f.puzzleName} has no solution

Run \`${f.run}\`, encoding \`${f.encoding}\`. The claim: \`formula.cnf\` (${f.numVars} variables, ${f.numClauses} clauses,
SHA-256 ${f.formulaSha256}) is unsatisfiable. It is the puzzle in \`puzzle.txt\` encoded to CNF as \`encoding.txt\`
says; a solution of the puzzle is a model of the formula.

0. The formula is the puzzle: \`encode.py\` (Python 3, standard library only), an encoder of cubist-placement
   written from the encoding's definition (Cubist's docs/encodings.md) apart from the one that made
   \`formula.cnf\`, encodes \`puzzle.txt\` again; \`formula.cnf\` must have the same header and the same clauses.
   Without this the proofs below would be about some formula, not about the puzzle.

The proof is cube-and-conquer, as in Heule, Kullmann and Marek's certified cube-and-conquer:

1. Each line of \`cubes.txt\` is a cube: \`<cube-id> <literal> ... 0\`. For every cube, \`formula.cnf\` plus the cube's
   literals as unit clauses is unsatisfiable; \`proofs/<cube-id>.drat\` is a DRAT proof of that (binary DRAT,
   written by Cubist's placement prover or by Kissat), or \`proofs/<cube-id>.lrat\` an LRAT proof (text LRAT,
   written by the placement prover, each lemma naming the clauses it follows from).
2. Coverage: \`formula.cnf\` plus, for every cube, one clause of its negated literals is unsatisfiable;
   \`coverage.drat\` is a DRAT proof of that. (Branches the splitter refuted are not cubes: this proof refutes them.)

Together: any model of formula.cnf satisfies some cube (by 2) and no cube (by 1), so there is none; and a solution
of the puzzle would be one (by 0).

\`checks.txt\` records who checked each cube's proof while the run went on (a worker other than the one that wrote
the proof, or the coordinator), with the checker's CPU and wall time; it is not needed to re-check anything.

## Re-checking without Cubist

\`\`\`sh
sh check.sh
\`\`\`

checks the formula against the puzzle, then builds each formula from \`formula.cnf\` and \`cubes.txt\` and runs
its checker on it (lrat-check or drat-trim). By hand: \`python3 encode.py --check formula.cnf --order ORDER puzzle.txt\` (ORDER from
\`encoding.txt\`; without \`--check\` it prints its formula), then for a cube
\`17 5 -9 12 0\` of a formula with header \`p cnf V C\`:

\`\`\`sh
{ echo "p cnf V $((C + 3))"; grep -v '^[cp]' formula.cnf; printf '5 0\\n-9 0\\n12 0\\n'; } > cube-17.cnf
drat-trim cube-17.cnf proofs/17.drat -w        # must print: s VERIFIED
{ echo "p cnf V $((C + $(wc -l < cubes.txt)))"; grep -v '^[cp]' formula.cnf
  awk '{s = ""; for (i = 2; i < NF; i++) s = s (-$i) " "; print s "0"}' cubes.txt; } > coverage.cnf
drat-trim coverage.cnf coverage.drat -w         # must print: s VERIFIED
\`\`\`

A cube with an LRAT proof: \`lrat-check cube-17.cnf proofs/17.lrat\` must print \`c VERIFIED\`, and
\`python3 lrat_guard.py cube-17.cnf proofs/17.lrat\` exit 0 (lrat-check accepts an empty clause that its hints do
not derive; the guard replays the proof's empty clauses).

drat-trim exits 0 also when a proof fails: read its \`s VERIFIED\` / \`s NOT VERIFIED\` line (it follows a
carriage return: \`drat-trim ... | tr '\\r' '\\n' | grep -x 's VERIFIED'\`).
${f.cubes} cube(s).
`;
}

/** A script shipped in bundles: certify/NAME, beside this module (the build copies it into dist/certify). */
function scriptSource(name: string): Buffer {
  const path = join(dirname(fileURLToPath(import.meta.url)), name);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new Error(`the certificate's script ${path} is missing (npm run build copies it): ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The files that tie a bundle's formula to its puzzle: `encoding.txt` (the run's encoding and variable order) and
 * `encode.py`, which check.sh runs on them; with them `lrat_guard.py`, which check.sh runs after lrat-check.
 */
export function formulaTieFiles(encoding: string, order: string): BundleFile[] {
  const source = scriptSource("encode.py");
  const guard = scriptSource("lrat_guard.py");
  return [
    textFile("encoding.txt", `encoding ${encoding}\norder ${order || "paper"}\n`),
    { path: "encode.py", chunks: () => [source] },
    // Not about the formula, but shipped the same way: check.sh runs it after lrat-check (certify/lrat-guard.ts).
    { path: "lrat_guard.py", chunks: () => [guard] },
  ];
}

/** Writes a bundle into `dir` (created if missing). Paths stay inside `dir`. */
export async function writeBundle(dir: string, files: readonly BundleFile[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of files) {
    const rel = normalize(f.path);
    if (isAbsolute(rel) || rel.startsWith("..")) throw new Error(`bundle path "${f.path}" leaves the directory`);
    const out = join(dir, rel);
    await mkdir(dirname(out), { recursive: true });
    await pipeline(Readable.from(f.chunks()), createWriteStream(out));
    if (rel === "check.sh") await chmod(out, 0o755);
  }
}

/** A bundle file from a string. */
export function textFile(path: string, text: string): BundleFile {
  return { path, chunks: () => [Buffer.from(text)] };
}


