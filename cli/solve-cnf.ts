/**
 * Cube and conquer on one machine for any CNF: the lookahead cuber (core/cnf/lookahead.ts) splits the formula, and
 * `workers` solver processes take the open cubes one at a time, each cube given to Kissat as unit clauses after
 * the formula. The first model is checked against the formula (core/cnf/check-model.ts) and stops the rest; the
 * formula is unsatisfiable when every open cube is (the refuted leaves need no solver, and the leaves together
 * cover the space, which is checked before any solver starts). A time limit or a stop leaves the answer unknown.
 */

import type { Cnf } from "../core/cnf/cnf.js";
import { WrongModelError } from "../core/cnf/cnf.js";
import { checkModel } from "../core/cnf/check-model.js";
import { checkCoverage } from "../core/cnf/coverage.js";
import { splitByLookahead, type CubeSplit } from "../core/cnf/lookahead.js";
import { dimacsChunks } from "../core/encode/dimacs.js";
import { runSolver, type SolverName } from "../host/solver/index.js";

/** How to solve. */
export interface CnfSolveOptions {
  /** Solver processes side by side. */
  readonly workers: number;
  /** Lookahead depth: at most this many decisions per cube. */
  readonly maxDepth: number;
  readonly solver?: SolverName;
  readonly binary?: string;
  /** The whole solve's time limit (cubing included) in seconds. */
  readonly timeLimitSec?: number;
  readonly seed?: number;
  readonly signal?: AbortSignal;
}

/** What came of it; `model` is checked against the formula. */
export type CnfVerdict =
  | { readonly status: "sat"; readonly model: Uint8Array; readonly cube: readonly number[] }
  | { readonly status: "unsat" }
  | { readonly status: "unknown"; readonly reason: string };

export interface CnfSolveStats {
  readonly cubes: number;
  readonly refuted: number;
  readonly failedLiterals: number;
  /** Open cubes the solvers finished (sat or unsat). */
  readonly solved: number;
  readonly cubingMs: number;
  readonly wallMs: number;
  /** The solvers' own CPU seconds, summed over every run (finished or stopped). */
  readonly solverSeconds: number;
}

export type CnfSolveResult = CnfVerdict & { readonly stats: CnfSolveStats };

/** The lookahead depth for `workers` solver processes: about 16 cubes each, and at least 4 decisions. */
export function defaultCubeDepth(workers: number): number {
  return Math.min(20, Math.max(4, Math.ceil(Math.log2(16 * workers))));
}

/** Splits the formula and checks that its leaves cover the space (a cuber bug must not become a wrong UNSAT). */
export function cubeFormula(cnf: Cnf, maxDepth: number): CubeSplit {
  const split = splitByLookahead(cnf, { maxDepth });
  if (!checkCoverage([...split.cubes, ...split.refuted])) throw new Error("the lookahead's cubes do not cover the space (a cuber bug)");
  return split;
}

/** Solves `cnf` by cube and conquer on this machine (see the module note). */
export async function solveCnfLocal(cnf: Cnf, options: CnfSolveOptions): Promise<CnfSolveResult> {
  const start = performance.now();
  const split = cubeFormula(cnf, options.maxDepth);
  const cubingMs = performance.now() - start;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const queue = [...split.cubes];
  let solved = 0;
  let solverSeconds = 0;
  let verdict: CnfVerdict | null = null;
  let unknown: string | null = null;
  const deadline = options.timeLimitSec === undefined ? Infinity : start + options.timeLimitSec * 1000;
  const runOne = async (): Promise<void> => {
    for (let cube = queue.shift(); cube !== undefined && verdict === null && !stop.signal.aborted; cube = queue.shift()) {
      const left = (deadline - performance.now()) / 1000;
      if (left <= 0) {
        unknown ??= "time-limit";
        return;
      }
      const outcome = await runSolver(dimacsChunks(cnf, cube.map((l) => [l])), cnf.numVars, {
        solver: options.solver, binary: options.binary, seed: options.seed, signal: stop.signal,
        timeLimitSec: Number.isFinite(left) ? left : undefined,
      });
      solverSeconds += outcome.stats.solverSeconds ?? (outcome.stats.cpuMs ?? 0) / 1000;
      if (outcome.kind === "unknown") {
        if (!stop.signal.aborted || options.signal?.aborted) unknown ??= outcome.reason;
        continue;
      }
      solved++;
      if (outcome.kind === "sat") {
        const check = checkModel(cnf, outcome.model);
        if (!check.ok) throw new WrongModelError(check.clause, check.literals);
        verdict = { status: "sat", model: outcome.model, cube };
        stop.abort();
      }
    }
  };
  try {
    // A crash or a wrong model ends the solve: the other solvers are stopped rather than left to finish their cubes.
    const guarded = (): Promise<void> => runOne().catch((err: unknown) => {
      stop.abort();
      throw err;
    });
    const runners = Array.from({ length: Math.min(options.workers, Math.max(1, split.cubes.length)) }, guarded);
    const settled = await Promise.allSettled(runners);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
  } finally {
    stop.abort();
    options.signal?.removeEventListener("abort", onAbort);
  }
  const stats: CnfSolveStats = {
    cubes: split.cubes.length, refuted: split.refuted.length, failedLiterals: split.failedLiterals, solved, cubingMs,
    wallMs: performance.now() - start, solverSeconds,
  };
  const final: CnfVerdict = verdict ?? (unknown === null && solved === split.cubes.length ? { status: "unsat" } : { status: "unknown", reason: unknown ?? "aborted" });
  return { ...final, stats };
}
