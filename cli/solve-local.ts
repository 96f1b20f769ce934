/**
 * Single-machine solving: a portfolio of searches on the whole puzzle, one process per core, first proof wins.
 *
 * The members (worker/engine/portfolio.ts) are configurations of the native placement engine and, optionally,
 * the SAT solver on the encoded formula. Engines start at once (they need no encoding); the SAT member encodes
 * after they are running. A SAT answer is only returned after the verifier accepted the board (an engine's board
 * directly, the solver's model after decoding); a board that fails is an EncoderBugError naming the first violated
 * constraint. UNSAT comes from a member that exhausted the whole space (every part of a split member) or from the
 * SAT solver.
 */

import { checkFormulaSize, formulaBytes, type SizeLimits } from "../core/limits.js";
import { availableParallelism } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { acceptBoard, acceptModel, arrayValue } from "../core/accept.js";
import { EncoderBugError } from "../core/errors.js";
import type { EncodeOptions, Formula } from "../core/encode/index.js";
import { boardFromPlacements, equivalentPieces, pieceKind, type Board, type Puzzle } from "../core/puzzle.js";
import { log10ExpectedSolutions, MANY_SOLUTIONS_LOG10 } from "../core/solution-estimate.js";
import { acceptScored, betterScored, type ScoredBoard } from "../core/score.js";
import {
  engineContender,
  engineProblem,
  firstProof,
  memberName,
  type Contender,
  type EngineMemberResult,
  type EngineProgress,
  type EngineOrder,
  type MemberSpec,
} from "../worker/engine/index.js";
import type { SolverName, SolverOutcome, SolverStats, UnknownReason } from "../host/solver/index.js";

export interface LocalSolveOptions {
  encoding: string;
  encodeOptions?: EncodeOptions;
  solver?: SolverName;
  binary?: string;
  timeLimitSec?: number;
  seed?: number;
  signal?: AbortSignal;
  /** The members to run side by side (defaultPortfolio when absent). */
  portfolio?: MemberSpec[];
  /** Cores to use, for the default portfolio. @default every core */
  threads?: number;
  /**
   * How long the engines run alone before the SAT member encodes and starts (encoding blocks this process, and
   * most boards fall to an engine sooner). @default defaultSatDelayMs(puzzle)
   */
  satDelayMs?: number;
  /** The engines' progress about once a second (member name, its latest progress line). */
  onProgress?: (member: string, p: EngineProgress) => void;
  /** The SAT member refuses a formula above these limits (the engines go on). @default core/limits.ts */
  limits?: SizeLimits;
}

export type LocalSolveResult = (
  | { status: "sat"; board: Board }
  | { status: "unsat" }
  | { status: "unknown"; reason: UnknownReason }
) & {
  stats: SolverStats;
  /** Who decided: the SAT solver, or the placement engine. */
  engine: "solver" | "search";
  /** The deciding member's name (e.g. "short", "spiral:s1:r100000", "sat"), or null. */
  member: string | null;
  /** Placements made by all engine members together. */
  searchNodes: number;
  /** What members that failed said (an answer from another member still stands). */
  errors: string[];
  encodeMs: number;
  numVars: number;
  numClauses: number;
  /** On unknown: the deepest partial board any engine member reached, checked and scored (core/score.ts). */
  best?: ScoredBoard | null;
};

/**
 * The default members for `threads` cores, chosen by measurement (BENCHMARKS.md "Conquer engine", "Frontier 2",
 * "Brendan 8x8 heavy tail"). Near-unique boards (log10ExpectedSolutions below MANY_SOLUTIONS_LOG10: Brendan's sets,
 * em_7_4_*): complete scans along the short side from two corners, the scan and its mirror, whose trees put the
 * solution in different places (either one needs 1.2-20x the other's placements, neither wins in general): on one
 * core the two take turns (`short:a<ALTERNATE_NODES>`), on two each has a core. On a square board without hints
 * whose four corner pieces all differ, the four pinned corner pieces and the mirror make eight trees
 * (`eightTreeScans`), and on one or two cores all eight take turns instead. From three cores on the long side's scans
 * (then shuffled ones) and the SAT solver on the last core, since it won none of the frontier runs (and the engine
 * refuted the hard UNSAT 7x7 in 0.3 s where Kissat needs 36 s). Boards with many solutions (most of Heule's em-*):
 * restarting searches with shuffled candidates, the spiral first, and the SAT solver after `satDelayMs`.
 */
export function defaultPortfolio(threads: number, puzzle: Pick<Puzzle, "rows" | "cols" | "pieces"> & Partial<Pick<Puzzle, "hints">>): MemberSpec[] {
  const engine = (order: EngineOrder, seed = 0, restartBase = 0): Extract<MemberSpec, { kind: "engine" }> => ({ kind: "engine", order, seed, restartBase, parts: 1 });
  const members: MemberSpec[] = [];
  if (log10ExpectedSolutions(puzzle) >= MANY_SOLUTIONS_LOG10) {
    const orders: EngineOrder[] = ["spiral", "short", "border", "long"];
    for (let i = 0; i < Math.max(1, threads); i++) members.push(engine(orders[i % orders.length], i + 1, RESTART_NODES));
  } else {
    const eight = eightTreeScans(puzzle);
    if (eight && threads <= 2) {
      const lists = threads <= 1 ? [eight[0].flatMap((scan, i) => [scan, eight[1][i]])] : eight; /* one core: 0, 0m, 1m, 1, ... */
      return lists.map((scans) => ({ ...engine("short"), alternate: ALTERNATE_NODES, scans }));
    }
    if (threads <= 1) return [{ ...engine("short"), alternate: ALTERNATE_NODES }];
    const scans: MemberSpec[] = [engine("short"), { ...engine("short"), mirror: true }, engine("long"), { ...engine("long"), mirror: true }];
    if (threads <= 2) return scans.slice(0, 2);
    for (let i = 0; i < threads - 1; i++) members.push(scans[i] ?? engine(i % 2 ? "long" : "short", i, 0));
  }
  members.push({ kind: "sat" });
  return members;
}

/**
 * The eight row-scan trees of a square board, as the scans of two cores (`--scans`: a corner piece pinned at the
 * start, m for the mirror; the engine's `--symmetry` pins them, engine/symmetry.c), or null where there are not eight:
 * an oblong board (the half turn pairs its corners up), hints (no symmetry to break), or a corner piece with a twin
 * (`--corner` counts the twin-free ones only). Each core gets every corner piece once, half of them mirrored, and
 * starts with the scan (or mirror) of the two-tree default (one core: the two cores' lists interleaved, so the scan
 * and its mirror come first), so boards that one turn decides place the same pieces.
 * Where the first board lies spreads over 300x across the eight trees (Brendan 8x8): in turns, four per core, the
 * known boards lie 113, 107 and 29.5 G placements per core into seeds 1-3, where the scan and its mirror needed 88, 67
 * and more than 130 G; measured on two cores, seeds 3 and 2 in 388 and 474 s (seed 2 met a board the estimates did
 * not know), seed 1 not in 900 s, where the old default took 30+, 15.5 and 26.3 min (BENCHMARKS.md "Brendan 8x8
 * heavy tail").
 */
export function eightTreeScans(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces"> & Partial<Pick<Puzzle, "hints">>): string[][] | null {
  if (puzzle.rows !== puzzle.cols || (puzzle.hints?.length ?? 0) > 0) return null;
  const corners = puzzle.pieces.filter((p) => pieceKind(p) === "corner");
  const twinFree = corners.filter((p) => puzzle.pieces.filter((q) => equivalentPieces(p.edges, q.edges)).length === 1);
  if (corners.length !== 4 || twinFree.length !== 4) return null;
  return [["0", "1m", "2", "3m"], ["0m", "1", "2m", "3"]];
}

/** Placements per turn when one core alternates a scan and its mirror (about 50 ms). */
export const ALTERNATE_NODES = 4_194_304;

/** Luby unit of the restarting members, in placements (about 2 ms). */
export const RESTART_NODES = 100_000;

/** How long engines run alone before the SAT member starts: longer where they are expected to win. */
export function defaultSatDelayMs(puzzle: Pick<Puzzle, "rows" | "cols" | "pieces">): number {
  return log10ExpectedSolutions(puzzle) >= MANY_SOLUTIONS_LOG10 ? 500 : 2000;
}

export function defaultThreads(): number {
  return availableParallelism();
}

type MemberOutcome = { engine: EngineMemberResult } | { sat: SolverOutcome };

export async function solveLocal(puzzle: Puzzle, options: LocalSolveOptions): Promise<LocalSolveResult> {
  const members = options.portfolio ?? defaultPortfolio(options.threads ?? defaultThreads(), puzzle);
  const started = performance.now();
  const shape = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };
  const problem = engineProblem(puzzle, []);
  if (problem === null) throw new EncoderBugError("the puzzle's hints contradict each other, which validation should have caught");
  const encoded = { encodeMs: 0, numVars: 0, numClauses: 0 };
  let formula: Formula | null = null;
  const timeLimitMs = options.timeLimitSec ? options.timeLimitSec * 1000 : undefined;

  const contenders: Contender<MemberOutcome>[] = members.map((m): Contender<MemberOutcome> => {
    if (m.kind === "engine") {
      const c = engineContender(m, {
        problem, shape, symmetry: puzzle.hints.length === 0, timeLimitMs, best: true,
        ...(options.onProgress ? { progressMs: 1000, onProgress: options.onProgress } : {}),
      });
      return { name: c.name, run: async (s) => ({ engine: await c.run(s) }), decided: (r) => "engine" in r && c.decided(r.engine) };
    }
    return {
      name: memberName(m),
      decided: (r) => "sat" in r && r.sat.kind !== "unknown",
      async run(signal) {
        const aborted = { sat: { kind: "unknown" as const, reason: "aborted" as const, stats: { wallMs: 0, exitCode: null, signal: null } } };
        // Also lets the engines' problem text reach their pipes before encoding blocks the loop.
        await sleep(options.satDelayMs ?? defaultSatDelayMs(puzzle), undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return aborted;
        // Loaded here: most solves end before the SAT member starts, and these modules cost start time.
        const [{ dimacsChunks, encode }, { runSolver }] = await Promise.all([import("../core/encode/index.js"), import("../host/solver/index.js")]);
        const t0 = performance.now();
        formula = encode(options.encoding, puzzle, options.encodeOptions);
        Object.assign(encoded, { encodeMs: performance.now() - t0, numVars: formula.numVars, numClauses: formula.clauses.count });
        checkFormulaSize(formulaBytes(formula), options.limits);
        if (signal.aborted) return aborted;
        return {
          sat: await runSolver(dimacsChunks(formula), formula.numVars, {
            solver: options.solver,
            binary: options.binary,
            timeLimitSec: options.timeLimitSec,
            seed: options.seed,
            signal,
          }),
        };
      },
    };
  });
  const { winner, entries } = await firstProof(contenders, options.signal);
  const wallMs = performance.now() - started;
  let searchNodes = 0;
  let satStats: SolverStats | null = null;
  for (const e of entries) {
    if (e.result && "engine" in e.result) searchNodes += e.result.engine.nodes;
    if (e.result && "sat" in e.result) satStats = e.result.sat.stats;
  }
  const errors = entries.filter((e) => e.error).map((e) => `${e.name}: ${e.error!.message}`);
  const common = { searchNodes, errors, ...encoded };
  const engineStats: SolverStats = { wallMs, cpuMs: undefined, exitCode: null, signal: null };

  if (winner === null) {
    const failed = entries.find((e) => e.error);
    if (failed && entries.every((e) => e.error || (e.result && "engine" in e.result && e.result.engine.reason !== "time-limit" && e.result.engine.reason !== "aborted"))) {
      throw failed.error!;
    }
    const reason: UnknownReason = options.signal?.aborted ? "aborted" : "time-limit";
    let best: ScoredBoard | null = null;
    for (const e of entries) {
      const b = e.result && "engine" in e.result ? e.result.engine.best : null;
      if (!b) continue;
      const a = acceptScored(puzzle, b.board);
      if (!a.ok) errors.push(`${e.name}: its best board was refused: ${a.reason}`);
      else if (betterScored(best, a.scored)) best = a.scored;
    }
    return { status: "unknown", reason, stats: satStats ? { ...satStats, wallMs } : engineStats, engine: "solver", member: null, ...common, best };
  }
  const r = winner.result!;
  if ("engine" in r) {
    const stats = { ...engineStats, cpuMs: Math.round(r.engine.seconds * 1000) };
    if (r.engine.kind === "unsat") return { status: "unsat", stats, engine: "search", member: winner.name, ...common };
    const accepted = acceptBoard(puzzle, boardFromPlacements(puzzle, r.engine.board!));
    if (!accepted.ok) throw new EncoderBugError(`placement engine (${winner.name}): ${accepted.reason}`);
    return { status: "sat", board: accepted.board, stats, engine: "search", member: winner.name, ...common };
  }
  const outcome = r.sat;
  const stats = { ...outcome.stats, wallMs };
  if (outcome.kind === "sat") {
    const accepted = acceptModel(puzzle, formula!.varMap, arrayValue(outcome.model));
    if (!accepted.ok) throw new EncoderBugError(`${options.encoding}: ${accepted.reason}`);
    return { status: "sat", board: accepted.board, stats, engine: "solver", member: winner.name, ...common };
  }
  return { status: "unsat", stats, engine: "solver", member: winner.name, ...common };
}
