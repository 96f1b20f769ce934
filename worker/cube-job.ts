/**
 * One cube to work, as every kind of cube sees it (a square cube's race in worker/solve-cube.ts, a count in
 * worker/count-cube.ts, a triangle cube in worker/triangle/cube.ts), and what they share: the cube's base formula
 * from the cache (or the Object Store, retried when the transport fails) and the SAT solver's options. A formula
 * that is not there or not what its name says is the task's fault (core/errors.ts), never the worker's.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { CubeTask } from "../proto/gen/cubist/v1/cube.js";
import type { Placement } from "../core/puzzle.js";
import { faultOf, RETRY } from "../core/errors.js";
import type { CachedFormula } from "../host/formula-cache.js";
import type { SolverName, SolverOptions } from "../host/solver/index.js";
import type { ActiveCube } from "./active.js";
import type { WorkerContext } from "./context.js";
import type { WorkerRun } from "./run-table.js";
import type { CubeLimits } from "./validate-task.js";
import type { CubeResult } from "./verdict.js";

/** A validated task, its run, its limits and its registration among the active cubes. */
export interface CubeJob {
  task: CubeTask;
  run: WorkerRun;
  limits: CubeLimits;
  active: ActiveCube;
  /** Score runs: reports an improvement of the task's best board while it goes on (an interim verdict). */
  improved?: (best: readonly Placement[], searchNodes: number) => void;
}

/** Download attempts for a formula when the transport fails (a missing or corrupt object is not retried). */
const FORMULA_ATTEMPTS = 3;

/** The SAT solver name that turns the solver off (the engine alone). */
export const NO_SOLVER = "none";

/** The formula from the disk cache or the Object Store, retried when the transport fails. */
async function getFormula(ctx: WorkerContext, sha256: string, signal: AbortSignal): Promise<CachedFormula> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.cache.get(sha256);
    } catch (err) {
      // Only a passing failure (the transport) is worth another try here; a bad object or a full disk is not.
      if (RETRY[faultOf(err, "transient")] !== "later" || attempt >= FORMULA_ATTEMPTS || signal.aborted) throw err;
      ctx.log.warn("formula download failed; retrying", { formula: sha256.slice(0, 12), attempt, err: (err as Error).message });
      await sleep(1000 * attempt, undefined, { signal }).catch(() => undefined);
    }
  }
}

/** The cube's base formula (cache or Object Store), or what ends the cube: stopped meanwhile, or an error result. */
export async function cubeFormula(ctx: WorkerContext, job: CubeJob, solver: string): Promise<CachedFormula | CubeResult> {
  const { task, run, active } = job;
  let formula: CachedFormula;
  try {
    formula = await getFormula(ctx, task.formulaSha256, active.signal);
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: { engine: solver } };
    // Unclassified failures are the transport's (cluster/formula-source.ts); a missing or bad object is the task's.
    return { kind: "error", fault: faultOf(err, "transient"), reason: `formula unavailable: ${(err as Error).message}`, stats: { engine: solver } };
  }
  if (active.stopReason !== null) return { kind: "stopped", stats: { engine: solver } };
  if (formula.numVars !== run.numVars) {
    return { kind: "error", fault: "task", reason: `formula ${formula.sha256.slice(0, 12)} has ${formula.numVars} variables, the run ${run.numVars}`, stats: { engine: solver } };
  }
  return formula;
}

/** The SAT solver's options for a cube: the task's limits and seed; the configured binary for the configured solver. */
export function cubeSolverOptions(ctx: WorkerContext, limits: CubeLimits, solver: SolverName, signal: AbortSignal): SolverOptions {
  return {
    solver,
    binary: solver === ctx.config.solver ? ctx.config.solverPath : solver,
    timeLimitSec: limits.timeLimitSec,
    conflictLimit: limits.conflictLimit,
    seed: limits.seed,
    extraArgs: ctx.config.solverArgs,
    signal,
  };
}
