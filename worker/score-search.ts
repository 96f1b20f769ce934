/**
 * A task of a score run (objective "score", docs/cluster.md "Score runs"): the engine's score mode for the task's
 * budget, complete boards with the fewest mismatched edges: branch and bound for SCORE_LNS_MS, then neighbourhood
 * search around its best board (engine/lns.c). Every improvement of the task's best board that also beats the run's
 * best as the run record says (a shared bound) is reported at once (`job.improved`: an interim verdict, the task
 * stays open). The bound filters what is reported, not what is searched: the neighbourhood search improves this
 * slot's own board, which a restart with a tighter bound would throw away. Ends SAT with a perfect board, otherwise
 * UNKNOWN with the task's best board; running out of a narrowed space proves nothing.
 */

import type { Placement } from "../core/puzzle.js";
import { faultOf } from "../core/errors.js";
import { runEngine, SCORE_FROM_PCT, SCORE_LNS_MS, SCORE_RAMP_PCT, SCORE_RESTART_NODES, type EngineBest, type EngineOutcome } from "./engine/index.js";
import type { CubeJob } from "./cube-job.js";
import type { WorkerContext } from "./context.js";
import type { CubeResult, CubeStats } from "./verdict.js";

/** The most mismatched edges a better board than the run's best may have (undefined: no bound yet). */
function boundOf(job: CubeJob, ctx: WorkerContext): number | undefined {
  const best = ctx.table.get(job.run.id)?.best ?? job.run.best;
  return best ? best.maxScore - best.score - 1 : undefined;
}

/** Searches until the budget ends, the task stops, or a perfect board. */
export async function scoreSearch(
  ctx: WorkerContext, job: CubeJob, problem: string, shape: { rows: number; cols: number; pieces: number }, searchMs: number, t0: number,
): Promise<CubeResult> {
  const { task, run, active } = job;
  let best: EngineBest | null = null;
  let outcome: EngineOutcome;
  const stats = (nodes: number, cpuMs: number): CubeStats => ({ engine: "search", wallMs: Math.round((performance.now() - t0) * 1000) / 1000, searchNodes: nodes, ...(cpuMs > 0 ? { cpuMs } : {}) });
  const start = boundOf(job, ctx);
  if (start !== undefined && start < 0) return { kind: "unknown", reason: "score: the run has a perfect board", stats: stats(0, 0) };
  ctx.log.debug("score search started", { run: run.id, cube: task.cubeId, breaks: start ?? "any" });
  try {
    outcome = await runEngine(problem, shape, {
      order: "row", seed: 1 + (task.solver?.seed ?? 0), restartBase: SCORE_RESTART_NODES,
      score: { fromPct: SCORE_FROM_PCT, rampPct: SCORE_RAMP_PCT, lnsMs: SCORE_LNS_MS },
      timeLimitMs: Math.max(1, searchMs), signal: active.signal, binary: ctx.config.enginePath,
      onBest: (b) => {
        if (b.score === undefined || (best?.score !== undefined && b.score <= best.score)) return;
        best = b;
        const bound = boundOf(job, ctx);
        if (bound === undefined || (b.breaks !== undefined && b.breaks <= bound)) job.improved?.(b.board, b.nodes);
      },
    });
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: stats(0, 0) };
    ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
    return { kind: "error", fault: faultOf(err), reason: `${(err as Error).name}: ${(err as Error).message}`, stats: stats(0, 0) };
  }
  const done = stats(outcome.stats.nodes, Math.round(outcome.stats.seconds * 1000));
  if (active.stopReason !== null) return { kind: "stopped", stats: done };
  if (outcome.kind === "sat") return { kind: "sat-board", board: outcome.board, stats: done };
  const board: Placement[] | undefined = (best as EngineBest | null)?.board;
  return { kind: "unknown", reason: "score", stats: done, ...(board && board.length > 0 ? { best: board } : {}) };
}
