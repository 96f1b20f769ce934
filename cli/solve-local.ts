/**
 * Single-machine solving: encode, stream the CNF to one solver process, decode and verify the model.
 * A SAT answer is only returned after the verifier accepted the decoded board; a model that fails is an
 * EncoderBugError naming the first violated constraint.
 */

import { acceptModel, arrayValue } from "../core/accept.js";
import { EncoderBugError } from "../core/errors.js";
import { dimacsChunks, encode, type EncodeOptions } from "../core/encode/index.js";
import type { Board, Puzzle } from "../core/puzzle.js";
import { runSolver, type SolverName, type SolverStats, type UnknownReason } from "../worker/solver/index.js";

export interface LocalSolveOptions {
  encoding: string;
  encodeOptions?: EncodeOptions;
  solver?: SolverName;
  binary?: string;
  timeLimitSec?: number;
  seed?: number;
  signal?: AbortSignal;
}

export type LocalSolveResult = (
  | { status: "sat"; board: Board }
  | { status: "unsat" }
  | { status: "unknown"; reason: UnknownReason }
) & {
  stats: SolverStats;
  encodeMs: number;
  numVars: number;
  numClauses: number;
};

export async function solveLocal(puzzle: Puzzle, options: LocalSolveOptions): Promise<LocalSolveResult> {
  const t0 = performance.now();
  const formula = encode(options.encoding, puzzle, options.encodeOptions);
  const encodeMs = performance.now() - t0;
  const outcome = await runSolver(dimacsChunks(formula), formula.numVars, {
    solver: options.solver,
    binary: options.binary,
    timeLimitSec: options.timeLimitSec,
    seed: options.seed,
    signal: options.signal,
  });
  const common = { stats: outcome.stats, encodeMs, numVars: formula.numVars, numClauses: formula.clauses.count };
  if (outcome.kind === "sat") {
    const accepted = acceptModel(puzzle, formula.varMap, arrayValue(outcome.model));
    if (!accepted.ok) throw new EncoderBugError(`${options.encoding}: ${accepted.reason}`);
    return { status: "sat", board: accepted.board, ...common };
  }
  if (outcome.kind === "unsat") return { status: "unsat", ...common };
  return { status: "unknown", reason: outcome.reason, ...common };
}
