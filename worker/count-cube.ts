/**
 * A cube of a counting run (objective "count", docs/cluster.md "Counting"): the placement engine alone counts the
 * cube's solutions (`--count`) within the cube's budget. A cube is counted only when the engine exhausted it; a
 * partial count is never reported (the cube comes back unknown and is re-split or retried, like any cube over
 * budget), so no solution is counted twice or missed.
 *
 * The boards: a first pass prints boards up to the task's `count_boards` plus one (`--limit`). When it exhausts the
 * cube, its boards are all of them. When it stops at the limit, a second pass counts without printing (printing
 * every board of a cube with millions costs more than counting them), and the verdict carries the first pass's
 * boards with the second pass's count. The coordinator verifies every board it gets (coordinator/count-intake.ts).
 */

import { performance } from "node:perf_hooks";
import type { Placement } from "../core/puzzle.js";
import type { CubeJob } from "./solve-cube.js";
import type { WorkerContext } from "./context.js";
import { runEngine, type EngineOutcome } from "./engine/index.js";
import type { CubeResult, CubeStats } from "./verdict.js";

type Shape = { rows: number; cols: number; pieces: number };

function statsOf(outcomes: EngineOutcome[], wallMs: number): CubeStats {
  const nodes = outcomes.reduce((s, o) => s + o.stats.nodes, 0);
  const cpu = Math.round(outcomes.reduce((s, o) => s + o.stats.seconds, 0) * 1000);
  return { engine: "search", wallMs, searchNodes: nodes, ...(cpu > 0 ? { cpuMs: cpu } : {}) };
}

export async function countCube(ctx: WorkerContext, job: CubeJob, problem: string | null, shape: Shape, searchMs: number, t0: number): Promise<CubeResult> {
  const { task, run, active, limits } = job;
  active.phase = "search";
  const wall = (): number => Math.round((performance.now() - t0) * 1000) / 1000;
  // Contradicting placements: no board at all, counted without a process.
  if (problem === null) return { kind: "counted", solutions: 0, boards: [], stats: { engine: "search", wallMs: wall() } };
  const cap = limits.countBoards;
  const outcomes: EngineOutcome[] = [];
  const boards: Placement[][] = [];
  const engine = (opts: { print: boolean; limit?: number; timeLimitMs: number }): Promise<EngineOutcome> =>
    runEngine(problem, shape, {
      order: "short",
      count: true,
      printAll: opts.print,
      solutionLimit: opts.limit,
      keepBoards: false,
      onBoard: opts.print ? (b) => void (boards.length < cap && boards.push(b)) : undefined,
      timeLimitMs: opts.timeLimitMs,
      signal: active.signal,
      binary: ctx.config.enginePath,
    });
  try {
    let last: EngineOutcome | null = null;
    if (cap > 0) {
      last = await engine({ print: true, limit: cap + 1, timeLimitMs: searchMs });
      outcomes.push(last);
    }
    if (last === null || last.stats.end === "solution-limit") {
      const left = searchMs - (performance.now() - t0);
      if (left >= 1 && active.stopReason === null) {
        last = await engine({ print: false, timeLimitMs: left });
        outcomes.push(last);
      }
    }
    if (active.stopReason !== null) return { kind: "stopped", stats: statsOf(outcomes, wall()) };
    const stats = statsOf(outcomes, wall());
    if (last === null || last.stats.end !== "exhausted") {
      const reason = last === null || last.kind !== "unknown" ? "time-limit" : last.reason;
      return { kind: "unknown", reason: `count: ${reason}`, stats };
    }
    return { kind: "counted", solutions: last.stats.solutions, boards: boards.slice(0, Math.min(cap, last.stats.solutions)), stats };
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: statsOf(outcomes, wall()) };
    ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
    return { kind: "error", reason: `${(err as Error).name}: ${(err as Error).message}`, stats: statsOf(outcomes, wall()) };
  }
}
