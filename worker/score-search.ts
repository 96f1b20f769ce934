/**
 * A task of a score run (objective "score", docs/cluster.md "Score runs"): the engine's score mode for the task's
 * budget, complete boards with the fewest mismatched edges. Every improvement of the task's best board is reported at
 * once (`job.improved`: an interim verdict, the task stays open). The search looks only for boards better than the
 * run's best as the run record says (a shared bound: `--breaks` one below the best board's breaks); when another
 * worker's board raises the run's best above what this search is bound to beat, the engine is started again with the
 * tighter bound (its restarts reshuffle anyway, so little is lost). Ends SAT with a perfect board, otherwise UNKNOWN
 * with the task's best board; running out of a narrowed space proves nothing.
 */

import type { Placement } from "../core/puzzle.js";
import { faultOf } from "../core/errors.js";
import { runEngine, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES, type EngineBest, type EngineOutcome } from "./engine/index.js";
import type { CubeJob } from "./cube-job.js";
import type { WorkerContext } from "./context.js";
import type { CubeResult, CubeStats } from "./verdict.js";

/** How often the search looks at the run's best while it goes on. */
const BOUND_CHECK_MS = 500;

/** The most mismatched edges a better board than the run's best may have (undefined: no bound yet). */
function boundOf(job: CubeJob, ctx: WorkerContext): number | undefined {
  const best = ctx.table.get(job.run.id)?.best ?? job.run.best;
  return best ? best.maxScore - best.score - 1 : undefined;
}

/** Searches until the budget ends, the task stops, or a perfect board; one engine run per bound. */
export async function scoreSearch(
  ctx: WorkerContext, job: CubeJob, problem: string, shape: { rows: number; cols: number; pieces: number }, searchMs: number, t0: number,
): Promise<CubeResult> {
  const { task, run, active } = job;
  const deadline = performance.now() + searchMs;
  let best: EngineBest | null = null;
  let nodes = 0;
  let last: EngineOutcome | undefined;
  let engineRuns = 0;
  let cpuMs = 0;
  const stats = (): CubeStats => ({ engine: "search", wallMs: Math.round((performance.now() - t0) * 1000) / 1000, searchNodes: nodes, ...(cpuMs > 0 ? { cpuMs } : {}) });
  for (;;) {
    const bound = boundOf(job, ctx);
    if (bound !== undefined && bound < 0) return { kind: "unknown", reason: "score: the run has a perfect board", stats: stats() };
    ctx.log.debug("score search started", { run: run.id, cube: task.cubeId, breaks: bound ?? "any" });
    const tighter = new AbortController();
    // What the engine is bound to now: the bound it started with, or below its own best since (branch and bound).
    const engineBound = (): number | undefined => {
      const own = best?.breaks !== undefined ? best.breaks - 1 : undefined;
      return own === undefined ? bound : bound === undefined ? own : Math.min(own, bound);
    };
    const watch = setInterval(() => {
      const now = boundOf(job, ctx);
      const mine = engineBound();
      if (now !== undefined && (mine === undefined || now < mine)) tighter.abort();
    }, BOUND_CHECK_MS);
    try {
      last = await runEngine(problem, shape, {
        order: "row", seed: 1 + (task.solver?.seed ?? 0) + engineRuns * 7919, restartBase: SCORE_RESTART_NODES,
        score: { fromPct: SCORE_FROM_PCT, rampPct: SCORE_RAMP_PCT, ...(bound !== undefined ? { breaks: bound } : {}) },
        timeLimitMs: Math.max(1, deadline - performance.now()), signal: AbortSignal.any([active.signal, tighter.signal]), binary: ctx.config.enginePath,
        onBest: (b) => {
          if (b.score === undefined || (best?.score !== undefined && b.score <= best.score)) return;
          best = b;
          job.improved?.(b.board, nodes + b.nodes);
        },
      });
    } catch (err) {
      if (active.stopReason !== null) return { kind: "stopped", stats: stats() };
      ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
      return { kind: "error", fault: faultOf(err), reason: `${(err as Error).name}: ${(err as Error).message}`, stats: stats() };
    } finally {
      clearInterval(watch);
    }
    nodes += last.stats.nodes;
    cpuMs += Math.round(last.stats.seconds * 1000);
    engineRuns++;
    if (active.stopReason !== null) return { kind: "stopped", stats: stats() };
    if (last.kind === "sat") return { kind: "sat-board", board: last.board, stats: stats() };
    if (!tighter.signal.aborted || performance.now() >= deadline) break;
    ctx.log.debug("score search bound tightened by the run's best", { run: run.id, cube: task.cubeId, breaks: boundOf(job, ctx) });
  }
  const board: Placement[] | undefined = (best as EngineBest | null)?.board;
  return { kind: "unknown", reason: "score", stats: stats(), ...(board && board.length > 0 ? { best: board } : {}) };
}
