/**
 * Solving one validated cube (steps 4-6 of docs/cluster.md "A worker, per slot"): the base formula from the disk
 * cache (downloaded from the Object Store and hash-checked on a miss), the optional placement search for
 * `search_ms`, then the solver on base + units with the cube's limits. Expected answers and failures are values:
 * a crash, garbage output, a missing formula or a missing solver are "error" results (the task is retried
 * elsewhere); a stop (cancel, pause, shutdown) is "stopped".
 */

import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { modelToBitset } from "../core/accept.js";
import type { CubeTask } from "../proto/gen/cubist/v1/cube.js";
import type { ActiveCube } from "./active.js";
import type { WorkerContext } from "./context.js";
import { cubeInput, FormulaUnavailableError, type CachedFormula } from "./formula-cache.js";
import type { RunInfo } from "./run-table.js";
import type { PlacementSearcher } from "./search.js";
import { runSolver, type SolverStats } from "./solver/index.js";
import type { CubeLimits } from "./validate-task.js";
import type { CubeResult, CubeStats } from "./verdict.js";

export interface CubeJob {
  task: CubeTask;
  run: RunInfo;
  limits: CubeLimits;
  active: ActiveCube;
}

/** Download attempts for a formula when the transport fails (a missing or corrupt object is not retried). */
const FORMULA_ATTEMPTS = 3;

async function getFormula(ctx: WorkerContext, sha256: string, signal: AbortSignal): Promise<CachedFormula> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.cache.get(sha256);
    } catch (err) {
      if (err instanceof FormulaUnavailableError || attempt >= FORMULA_ATTEMPTS || signal.aborted) throw err;
      ctx.log.warn("formula download failed; retrying", { formula: sha256.slice(0, 12), attempt, err: (err as Error).message });
      await sleep(1000 * attempt, undefined, { signal }).catch(() => undefined);
    }
  }
}

function solverStats(s: SolverStats, engine: string, searchNodes: number, searchMs: number): CubeStats {
  return {
    conflicts: s.conflicts,
    decisions: s.decisions,
    propagations: s.propagations,
    solverSeconds: s.solverSeconds,
    wallMs: s.wallMs + searchMs,
    cpuMs: s.cpuMs !== undefined ? s.cpuMs + searchMs : undefined,
    maxRssBytes: s.maxRssBytes,
    searchNodes,
    engine,
  };
}

export async function solveCube(ctx: WorkerContext, searcher: PlacementSearcher, job: CubeJob): Promise<CubeResult> {
  const { task, run, limits, active } = job;
  const solver = limits.solver ?? ctx.config.solver;
  const stopped = (stats: CubeStats): CubeResult => ({ kind: "stopped", stats });
  const t0 = performance.now();
  const elapsed = (): number => Math.round((performance.now() - t0) * 1000) / 1000;

  let formula: CachedFormula;
  try {
    formula = await getFormula(ctx, task.formulaSha256, active.signal);
  } catch (err) {
    if (active.stopReason !== null) return stopped({ engine: solver });
    return { kind: "error", reason: `formula unavailable: ${(err as Error).message}`, stats: { engine: solver } };
  }
  if (active.stopReason !== null) return stopped({ engine: solver });
  if (formula.numVars !== run.numVars) {
    return { kind: "error", reason: `formula ${formula.sha256.slice(0, 12)} has ${formula.numVars} variables, the run ${run.numVars}`, stats: { engine: solver } };
  }

  let searchNodes = 0;
  let searchMs = 0;
  if (limits.searchMs > 0) {
    active.phase = "search";
    const s0 = performance.now();
    try {
      const r = await searcher.search(run.puzzleSha256 || run.id, run.puzzleText, task.placements, limits.searchMs, active.signal);
      searchMs = performance.now() - s0;
      if (r.kind === "aborted") return stopped({ engine: "search", wallMs: searchMs });
      searchNodes = r.nodes;
      const stats: CubeStats = { engine: "search", searchNodes, wallMs: searchMs, cpuMs: searchMs };
      if (r.kind === "sat") return { kind: "sat-board", board: r.board, stats };
      if (r.kind === "unsat") return { kind: "unsat", stats };
    } catch (err) {
      searchMs = performance.now() - s0;
      ctx.log.warn("placement search failed; going on with the SAT solver", { run: run.id, cube: task.cubeId, err: (err as Error).message });
    }
  }

  active.phase = "solver";
  try {
    const outcome = await runSolver(cubeInput(formula, task.units), run.numVars, {
      solver,
      binary: solver === ctx.config.solver ? ctx.config.solverPath : solver,
      timeLimitSec: limits.timeLimitSec,
      conflictLimit: limits.conflictLimit,
      seed: limits.seed,
      extraArgs: ctx.config.solverArgs,
      signal: active.signal,
    });
    const stats = solverStats(outcome.stats, solver, searchNodes, searchMs);
    if (outcome.kind === "sat") return { kind: "sat", model: modelToBitset(outcome.model), stats };
    if (outcome.kind === "unsat") return { kind: "unsat", stats };
    if (outcome.reason === "aborted" && active.stopReason !== null) return stopped(stats);
    return { kind: "unknown", reason: outcome.reason, stats };
  } catch (err) {
    if (active.stopReason !== null) return stopped({ engine: solver, wallMs: elapsed() });
    // The cached file vanished or became unreadable: look again next time.
    if ((err as NodeJS.ErrnoException).code !== undefined) ctx.cache.forget(formula.sha256);
    return { kind: "error", reason: `${(err as Error).name}: ${(err as Error).message}`, stats: { engine: solver, wallMs: elapsed(), searchNodes } };
  }
}
