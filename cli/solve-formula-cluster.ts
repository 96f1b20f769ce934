/**
 * `cubist solve F.cnf --workers N` and `solve P.sudoku --workers N`: the formula as a formula run (docs/cluster.md
 * "Formula runs") on the embedded local cluster (cli/solve-cluster.ts), printed as `solve` prints it on one machine.
 * The coordinator cubes it by lookahead, the workers run Kissat on each cube, and the coordinator checks a model
 * before the run ends SAT; the model is checked here again (against every clause, a Sudoku's grid by the Sudoku
 * verifier) before anything is printed. A DIMACS answer is `c` lines, then `s SATISFIABLE` and `v` lines,
 * `s UNSATISFIABLE` or `s UNKNOWN`; a Sudoku's is its grid. The request is checked before the cluster starts, by the
 * coordinator's own rules (coordinator/formula-run-spec.ts), so what a formula run refuses is refused at once. With
 * --certify the coordinator checks every refuted cube's Kissat proof and the coverage before the run ends UNSAT, and
 * --certificate DIR keeps the bundle (the one `run certificate` exports).
 */

import type { ParsedValues } from "./args.js";
import { certificationJSON } from "./certification-format.js";
import { EXIT } from "./exit-codes.js";
import { formulaRunRequest } from "./formula-submit.js";
import { certifiedText, clusterExitCode, runOnLocalCluster, type LocalRunOutcome } from "./solve-cluster.js";
import { terminalSafe } from "../cluster/terminal-text.js";
import { checkModel, modelLines } from "../core/cnf/check-model.js";
import { WrongModelError } from "../core/cnf/cnf.js";
import type { FormulaPuzzle } from "../core/cnf/run-formula.js";
import { EncoderBugError, InvalidOptionError } from "../core/errors.js";
import { sizeLimits } from "../core/limits.js";
import type { Placement } from "../core/puzzle.js";
import { decodeSudoku } from "../core/sudoku/encode.js";
import { oneLine } from "../core/sudoku/format.js";
import { renderSudoku } from "../core/sudoku/render.js";
import { givenCount, type Sudoku } from "../core/sudoku/sudoku.js";
import { verifySudoku } from "../core/sudoku/verify.js";
import { buildFormulaRunSpec } from "../coordinator/formula-run-spec.js";

/** The flags of `solve` that a formula run has no use for (the rest the run's own checks refuse by name). */
const NOT_FOR_FORMULA_RUN = ["portfolio", "sat-delay", "output", "limit", "up-to-symmetry"] as const;

/** Solves the formula file `path` on the embedded cluster and prints the answer; returns the exit code. */
export async function solveFormulaOnCluster(path: string, values: ParsedValues): Promise<number> {
  for (const flag of NOT_FOR_FORMULA_RUN) {
    if (values[flag] !== undefined && values[flag] !== false) throw new InvalidOptionError(`--${flag}`, `is not for a formula run on the cluster (docs/cluster.md "Formula runs")`);
  }
  if (values.solver === "none") throw new InvalidOptionError("--solver", "none leaves nothing to solve a formula with");
  if (values.certificate !== undefined && values.certify !== true) throw new InvalidOptionError("--certificate", "goes with --certify");
  values.workers ??= 1;
  const request = await formulaRunRequest(path, values);
  const limits = sizeLimits({
    maxPuzzleMb: values["max-puzzle-mb"] as number | undefined, maxFormulaMb: values["max-formula-mb"] as number | undefined,
    maxCells: values["max-cells"] as number | undefined,
  });
  // The coordinator's checks, here before anything starts: a refused option is an error now, not after nats-server.
  const { puzzle } = buildFormulaRunSpec(request, Date.now(), limits);
  const outcome = await runOnLocalCluster(request, values);
  if (outcome === null) return EXIT.INTERRUPTED;
  const model = modelOf(puzzle, outcome);
  if (puzzle.sudoku) printSudoku(puzzle.sudoku, model, outcome, values);
  else process.stdout.write(values.json ? cnfJSON(puzzle, model, outcome) : cnfText(puzzle, model, outcome));
  return clusterExitCode(outcome.result.state);
}

/** The SAT run's model (checked here, apart from the coordinator), or null. */
function modelOf(puzzle: FormulaPuzzle, { result }: LocalRunOutcome): Uint8Array | null {
  if (result.state !== "sat") return null;
  const cells: readonly Placement[] = result.solutions[0]?.cells ?? [];
  const model = new Uint8Array(puzzle.cnf.numVars + 1);
  for (const c of cells) {
    if (c.piece !== 1 || c.cell < 0 || c.cell >= puzzle.cnf.numVars) throw new EncoderBugError(`the run's model: placement ${c.cell}:${c.piece}:${c.rot} is not a true variable`);
    model[c.cell + 1] = 1;
  }
  if (puzzle.sudoku) {
    const check = verifySudoku(puzzle.sudoku, decodeSudoku(puzzle.sudoku, model));
    if (!check.ok) throw new EncoderBugError(`the run's grid: ${check.violations[0]}`);
  } else {
    const check = checkModel(puzzle.cnf, model);
    if (!check.ok) throw new WrongModelError(check.clause, check.literals);
  }
  return model;
}

/** The run's counts as the `c` lines and the JSON tell them. */
function statsOf({ result, seconds }: LocalRunOutcome): Record<string, number> {
  const c = result.status.cubes!;
  const p = result.phases;
  return {
    // As on one machine: the open cubes (solved, or waiting when the run ended), those solved, and the lookahead's
    // refuted branches; then the cubes Kissat refuted and those re-split.
    cubes: c.sat + c.unsat + c.queued + c.running, solved: c.sat + c.unsat, refuted: c.refutedBySplit, unsat: c.unsat, resplit: c.resplit,
    // From the coordinator's start to the run's submit: the formula parsed, cubed by lookahead and dispatched.
    submitMs: p.submitted >= 0 && p.coordinatorReady >= 0 ? p.submitted - p.coordinatorReady : -1,
    wallMs: Math.round(seconds * 1000),
  };
}

function reasonOf({ result }: LocalRunOutcome): string {
  return result.state === "failed" ? `failed: ${result.message}` : result.message || result.state;
}

function cnfText(puzzle: FormulaPuzzle, model: Uint8Array | null, outcome: LocalRunOutcome): string {
  const s = statsOf(outcome), r = outcome.result;
  const lines = [
    `c run ${r.runId} on a local cluster of ${r.workers} worker${r.workers === 1 ? "" : "s"}; lookahead cubes, submitted in ${(s.submitMs / 1000).toFixed(2)} s`,
    `c ${s.solved} cubes solved (${s.unsat} refuted), ${s.resplit} re-split, ${s.refuted} branches refuted by the lookahead, in ${(s.wallMs / 1000).toFixed(2)} s in all`,
  ];
  if (model) lines.push("c the model is checked against every clause", "s SATISFIABLE", ...modelLines(puzzle.cnf.numVars, model));
  else if (r.state === "unsat") {
    const certified = certifiedText(outcome.result);
    lines.push(...(certified ? [`c ${certified}`] : []), "s UNSATISFIABLE");
  }
  else lines.push(`c no answer: ${terminalSafe(reasonOf(outcome))}`, "s UNKNOWN");
  return lines.join("\n") + "\n";
}

function cnfJSON(puzzle: FormulaPuzzle, model: Uint8Array | null, outcome: LocalRunOutcome): string {
  const n = puzzle.cnf.numVars, r = outcome.result;
  const status = r.state === "sat" || r.state === "unsat" ? r.state : "unknown";
  return JSON.stringify({
    status, model: model ? Array.from({ length: n }, (_, i) => (model[i + 1] === 1 ? i + 1 : -(i + 1))) : null,
    ...(status === "unknown" ? { reason: reasonOf(outcome) } : {}), vars: n, workers: r.workers, run: r.runId, stats: statsOf(outcome),
    certified: certificationJSON(r.status.certification), certificate: r.certificate,
  }) + "\n";
}

function printSudoku(sudoku: Sudoku, model: Uint8Array | null, outcome: LocalRunOutcome, values: ParsedValues): void {
  const r = outcome.result, secs = outcome.seconds.toFixed(2);
  const grid = model ? decodeSudoku(sudoku, model) : null;
  const status = r.state === "sat" || r.state === "unsat" ? r.state : "unknown";
  if (values.json) {
    process.stdout.write(JSON.stringify({
      status, size: sudoku.size, grid: grid ? Array.from({ length: grid.size }, (_, i) => grid.cells.slice(i * grid.size, (i + 1) * grid.size)) : null,
      ...(grid ? { line: oneLine(grid) } : {}), ...(status === "unknown" ? { reason: reasonOf(outcome) } : {}),
      givens: givenCount(sudoku), workers: r.workers, run: r.runId, stats: statsOf(outcome),
      certified: certificationJSON(r.status.certification), certificate: r.certificate,
    }) + "\n");
    return;
  }
  const name = terminalSafe(sudoku.name ?? "the puzzle"), on = `on ${r.workers} worker${r.workers === 1 ? "" : "s"}`;
  if (grid) process.stdout.write(`solution (verified) for ${name} in ${secs} s ${on}:\n${renderSudoku(grid, { givens: sudoku, color: values.color === true })}`);
  else if (status === "unsat") {
    const certified = certifiedText(outcome.result);
    process.stdout.write(`unsat: ${name} has no solution (proved in ${secs} s ${on})\n${certified ? certified + "\n" : ""}`);
  }
  else process.stdout.write(`unknown: no answer (${terminalSafe(reasonOf(outcome))}) after ${secs} s\n`);
}

