/**
 * Single-machine solving: encode, stream the CNF to one solver process, decode and verify the model.
 * A SAT answer is only returned after the verifier accepted the decoded board; a model that fails is an
 * EncoderBugError naming the first violated constraint.
 *
 * With `searchMs > 0` the placement search (the workers' backtracker, in a worker thread) runs beside the solver
 * for at most that long, a two-engine portfolio on two cores: whichever proves the answer first wins and the other
 * is stopped. Small boards fall to the search in milliseconds; where it stalls, Kissat carries on alone.
 */

import { acceptBoard, acceptModel, arrayValue } from "../core/accept.js";
import { writeCanonical } from "../core/formats/index.js";
import { EncoderBugError } from "../core/errors.js";
import { dimacsChunks, encode, type EncodeOptions } from "../core/encode/index.js";
import { boardFromPlacements, type Board, type Puzzle } from "../core/puzzle.js";
import { PlacementSearcher, type SearchOutcome } from "../worker/search.js";
import { runSolver, type SolverName, type SolverStats, type UnknownReason } from "../worker/solver/index.js";

export interface LocalSolveOptions {
  encoding: string;
  encodeOptions?: EncodeOptions;
  solver?: SolverName;
  binary?: string;
  timeLimitSec?: number;
  seed?: number;
  signal?: AbortSignal;
  /** Placement search beside the solver for at most this many ms (0 or absent: the solver alone). */
  searchMs?: number;
}

export type LocalSolveResult = (
  | { status: "sat"; board: Board }
  | { status: "unsat" }
  | { status: "unknown"; reason: UnknownReason }
) & {
  stats: SolverStats;
  /** Who decided: the SAT solver, or the placement search. */
  engine: "solver" | "search";
  /** Placements the search tried (0 without a search). */
  searchNodes: number;
  encodeMs: number;
  numVars: number;
  numClauses: number;
};

export async function solveLocal(puzzle: Puzzle, options: LocalSolveOptions): Promise<LocalSolveResult> {
  const t0 = performance.now();
  const formula = encode(options.encoding, puzzle, options.encodeOptions);
  const encodeMs = performance.now() - t0;
  // One signal stops both engines: the caller's, or the other engine's answer.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (options.signal?.aborted) stop.abort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  const searcher = options.searchMs ? new PlacementSearcher() : null;
  const s0 = performance.now();
  const searching = searcher?.search("local", writeCanonical(puzzle), [], options.searchMs!, stop.signal);
  const solving = runSolver(dimacsChunks(formula), formula.numVars, {
    solver: options.solver,
    binary: options.binary,
    timeLimitSec: options.timeLimitSec,
    seed: options.seed,
    signal: stop.signal,
  });
  try {
    const common = { encodeMs, numVars: formula.numVars, numClauses: formula.clauses.count };
    let searchNodes = 0;
    if (searching) {
      // null: the solver ended first, or the search failed (then the solver alone decides).
      const first = await Promise.race([searching.catch((): SearchOutcome | null => null), solving.then(() => null)]);
      if (first) searchNodes = first.nodes;
      if (first?.kind === "sat" || first?.kind === "unsat") {
        const searchMs = performance.now() - s0;
        stop.abort();
        await solving;
        const stats: SolverStats = { wallMs: searchMs, cpuMs: searchMs, exitCode: null, signal: null };
        if (first.kind === "unsat") return { status: "unsat", stats, engine: "search", searchNodes, ...common };
        const accepted = acceptBoard(puzzle, boardFromPlacements(puzzle, first.board));
        if (!accepted.ok) throw new EncoderBugError(`placement search: ${accepted.reason}`);
        return { status: "sat", board: accepted.board, stats, engine: "search", searchNodes, ...common };
      }
    }
    const outcome = await solving;
    const result = { stats: outcome.stats, engine: "solver" as const, searchNodes, ...common };
    if (outcome.kind === "sat") {
      const accepted = acceptModel(puzzle, formula.varMap, arrayValue(outcome.model));
      if (!accepted.ok) throw new EncoderBugError(`${options.encoding}: ${accepted.reason}`);
      return { status: "sat", board: accepted.board, ...result };
    }
    if (outcome.kind === "unsat") return { status: "unsat", ...result };
    return { status: "unknown", reason: outcome.reason, ...result };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.abort();
    await searcher?.close();
  }
}
