/**
 * A cube of a counting run (objective "count", docs/cluster.md "Counting"): the placement engine alone counts the
 * cube's solutions (`--count`) within the cube's budget. A cube is counted only when the engine exhausted it; a
 * partial count is never reported (the cube comes back unknown and is re-split or retried, like any cube over
 * budget), so no solution is counted twice or missed.
 *
 * The boards: the engine prints every board it counts (`--print`) and the verdict carries the first
 * `count_boards` of them. Printing costs little beside the search on these boards (a 6x6 board with 170,000
 * solutions makes 12,000 placements per solution), and one pass keeps the count and its boards from the same
 * search. The coordinator verifies every board it gets (coordinator/model/count-intake.ts).
 */

import { performance } from "node:perf_hooks";
import { faultOf } from "../core/errors.js";
import type { Placement } from "../core/puzzle.js";
import type { CubeJob } from "./cube-job.js";
import type { WorkerContext } from "./context.js";
import { runEngine, type EngineOutcome } from "./engine/index.js";
import type { CubeResult, CubeStats } from "./verdict.js";

/** Random probes of the cube's tree before the count (as worker/solve-cube.ts does before a search). */
const ESTIMATE_PROBES = 256;

type Shape = { rows: number; cols: number; pieces: number };

function statsOf(outcome: EngineOutcome | null, wallMs: number): CubeStats {
  const cpu = Math.round((outcome?.stats.seconds ?? 0) * 1000);
  const est = outcome?.stats.estNodes !== undefined ? { estNodes: outcome.stats.estNodes, estNodesStderr: outcome.stats.estStderr } : {};
  return { engine: "search", wallMs, searchNodes: outcome?.stats.nodes ?? 0, ...(cpu > 0 ? { cpuMs: cpu } : {}), ...est };
}

export async function countCube(ctx: WorkerContext, job: CubeJob, problem: string | null, shape: Shape, searchMs: number, t0: number): Promise<CubeResult> {
  const { task, run, active, limits } = job;
  active.phase = "search";
  const wall = (): number => Math.round((performance.now() - t0) * 1000) / 1000;
  // Contradicting placements: no board at all, counted without a process.
  if (problem === null) return { kind: "counted", solutions: 0, boards: [], stats: { engine: "search", wallMs: wall() } };
  const cap = limits.countBoards ?? 0;
  const boards: Placement[][] = [];
  let outcome: EngineOutcome | null = null;
  try {
    outcome = await runEngine(problem, shape, {
      order: "short",
      count: true,
      printAll: cap > 0,
      keepBoards: false,
      onBoard: cap > 0 ? (b) => void (boards.length < cap && boards.push(b)) : undefined,
      timeLimitMs: searchMs,
      // The cube's tree estimate (Knuth's estimator) feeds the run's work ETA, as in a search run.
      estimateProbes: ESTIMATE_PROBES,
      signal: active.signal,
      binary: ctx.config.enginePath,
    });
    const stats = statsOf(outcome, wall());
    if (active.stopReason !== null) return { kind: "stopped", stats };
    // A partial count is never reported: the cube goes back as unknown (re-split or retried).
    if (outcome.stats.end !== "exhausted") return { kind: "unknown", reason: `count: ${outcome.kind === "unknown" ? outcome.reason : outcome.stats.end}`, stats };
    return { kind: "counted", solutions: outcome.stats.solutions, boards, stats };
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: statsOf(outcome, wall()) };
    ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
    return { kind: "error", fault: faultOf(err), reason: `${(err as Error).name}: ${(err as Error).message}`, stats: statsOf(outcome, wall()) };
  }
}
