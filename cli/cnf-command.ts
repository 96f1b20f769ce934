/**
 * `cubist solve F.cnf`: any DIMACS CNF (plain or gzipped), by cube and conquer on this machine (cli/solve-cnf.ts), or
 * with --workers N on the embedded cluster (cli/solve-formula-cluster.ts, chosen by cli/commands/solve.ts).
 * The answer is printed in the SAT competition format: `s SATISFIABLE` and `v` lines (the model, checked against
 * the formula), `s UNSATISFIABLE` or `s UNKNOWN`, after `c` lines that say how the formula was cubed and solved;
 * --json prints {"status", "model": [literals] | null, "stats"} instead.
 */

import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { loadCnf } from "./cnf-io.js";
import { defaultCubeDepth, solveCnfLocal, type CnfSolveResult } from "./solve-cnf.js";
import { defaultThreads } from "./solve-local.js";
import { onInterrupt } from "./interrupt.js";
import { certifyCnfLocal } from "./certify-cnf.js";
import { modelLines } from "../core/cnf/check-model.js";
import { InvalidOptionError } from "../core/errors.js";
import { sizeLimits } from "../core/limits.js";
import type { SolverName } from "../host/solver/index.js";

/** The flags of `solve` that a CNF does not take (puzzle flags, counting). */
const NOT_FOR_CNF = ["all", "hints", "objective", "portfolio", "output", "limit"] as const;

/** Solves a DIMACS file and prints the answer; returns the exit code. */
export async function solveCnfCommand(path: string, values: ParsedValues): Promise<number> {
  for (const flag of NOT_FOR_CNF) {
    const v = values[flag];
    if (v !== undefined && v !== false && !(flag === "objective" && v === "sat")) throw new InvalidOptionError(`--${flag}`, "is not for a DIMACS formula (docs/formats.md \"DIMACS CNF\")");
  }
  if (values.solver === "none") throw new InvalidOptionError("--solver", "none leaves nothing to solve a DIMACS formula with");
  if (values.certificate !== undefined && values.certify !== true) throw new InvalidOptionError("--certificate", "goes with --certify");
  if (values.certify === true && values.time !== undefined) throw new InvalidOptionError("--time", "does not go with --certify (every proof must finish)");
  const maxFormulaMb = values["max-formula-mb"] as number | undefined;
  if (maxFormulaMb !== undefined && !(maxFormulaMb > 0)) throw new InvalidOptionError("--max-formula-mb", `must be a positive number, got ${maxFormulaMb}`);
  const cnf = await loadCnf(path, sizeLimits({ maxFormulaMb }));
  const workers = (values.threads as number | undefined) ?? defaultThreads();
  const stop = onInterrupt();
  try {
    const maxDepth = (values["max-depth"] as number | undefined) ?? defaultCubeDepth(workers);
    const solver = values.solver as SolverName | undefined, binary = values["solver-path"] as string | undefined;
    const result = values.certify === true
      ? await certifyCnfLocal(cnf, { workers, maxDepth, solver, binary, certificate: values.certificate as string | undefined, file: path, signal: stop.signal })
      : await solveCnfLocal(cnf, { workers, maxDepth, solver, binary, timeLimitSec: values.time as number | undefined, seed: values.seed as number | undefined, signal: stop.signal });
    const notes = values.certify === true && result.status === "unsat"
      ? [`c every cube's DRAT proof and the coverage proof verified by drat-trim${typeof values.certificate === "string" ? `; certificate in ${values.certificate} (sh check.sh)` : ""}`]
      : [];
    if (stop.interrupted) return EXIT.INTERRUPTED;
    process.stdout.write(values.json ? jsonOf(cnf.numVars, result, workers) : textOf(cnf.numVars, result, workers, notes));
    return result.status === "sat" ? EXIT.OK : result.status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    stop.dispose();
  }
}

function textOf(numVars: number, r: CnfSolveResult, workers: number, notes: readonly string[]): string {
  const s = r.stats;
  const lines = [
    `c cubes ${s.cubes} open, ${s.refuted} refuted by the lookahead (${s.failedLiterals} failed literals), in ${(s.cubingMs / 1000).toFixed(2)} s`,
    `c solved ${s.solved} cubes with ${workers} solver process${workers === 1 ? "" : "es"} in ${(s.wallMs / 1000).toFixed(2)} s in all`,
  ];
  if (r.status === "sat") lines.push("c the model is checked against every clause", "s SATISFIABLE", ...modelLines(numVars, r.model));
  else if (r.status === "unsat") lines.push(...notes, "s UNSATISFIABLE");
  else lines.push(`c no answer: ${r.reason}`, "s UNKNOWN");
  return lines.join("\n") + "\n";
}

function jsonOf(numVars: number, r: CnfSolveResult, workers: number): string {
  const model = r.status === "sat" ? Array.from({ length: numVars }, (_, i) => (r.model[i + 1] === 1 ? i + 1 : -(i + 1))) : null;
  const s = r.stats;
  return JSON.stringify({
    status: r.status, model, ...(r.status === "unknown" ? { reason: r.reason } : {}), vars: numVars, workers,
    stats: { cubes: s.cubes, refuted: s.refuted, failedLiterals: s.failedLiterals, solved: s.solved, cubingMs: Math.round(s.cubingMs), wallMs: Math.round(s.wallMs) },
  }) + "\n";
}
