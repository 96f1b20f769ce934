/**
 * A cube of a triangle run (docs/cluster.md "Triangle runs"): the triangle placement search (core/triangle/search.ts)
 * on the puzzle with the cube's placements fixed, in a worker thread (worker/triangle/search.ts) so the worker's
 * heartbeats and acks go on, beside the SAT solver on the cached triangle formula plus the cube's units (one literal
 * per placement), as worker/solve-cube.ts races the C engine and the solver on a square cube. `search_ms` caps the
 * search (capped by the cube's budget; 0 leaves the solver alone); the solver "none" leaves the search alone.
 *
 * Counting (objective "count"): the search alone counts the cube and hands over its first `count_boards` boards. Only
 * a cube the search exhausted within its budget is counted; otherwise the cube comes back unknown (re-split or
 * retried), so no solution is counted twice or missed. The coordinator verifies every board it gets.
 */

import { performance } from "node:perf_hooks";
import { modelToBitset } from "../../core/accept.js";
import { faultOf } from "../../core/errors.js";
import type { Placement } from "../../core/puzzle.js";
import { placementsOfTriangleBoard } from "../../core/triangle/puzzle.js";
import type { TriangleSearchResult } from "../../core/triangle/search.js";
import type { WorkerContext } from "../context.js";
import { firstProof, type Contender } from "../engine/index.js";
import { cubeInput } from "../../host/formula-cache.js";
import { cubeFormula, cubeSolverOptions, NO_SOLVER, type CubeJob } from "../cube-job.js";
import { runSolver, type SolverOutcome } from "../../host/solver/index.js";
import type { CubeResult, CubeStats } from "../verdict.js";
import { runTriangleSearch } from "./search.js";

type Member = { search: TriangleSearchResult; board: Placement[] | null } | { solver: SolverOutcome };

export async function solveTriangleCube(ctx: WorkerContext, job: CubeJob): Promise<CubeResult> {
  const { task, run, limits, active } = job;
  const t0 = performance.now();
  const wallMs = (): number => Math.round((performance.now() - t0) * 1000) / 1000;
  const budgetMs = limits.timeLimitSec ? limits.timeLimitSec * 1000 : 0;
  const searchMs = budgetMs > 0 ? Math.min(limits.searchMs, budgetMs) : limits.searchMs;
  const solver = limits.solver ?? ctx.config.solver;
  const search = (maxBoards: number, limit: number | undefined, signal: AbortSignal, boards: Placement[][]): Promise<TriangleSearchResult> =>
    runTriangleSearch(
      { text: run.puzzleText, file: `<run ${run.id}>`, fixed: task.placements, limit, maxBoards, deadline: searchMs > 0 ? Date.now() + searchMs : undefined },
      { signal, onBoard: (cells) => void (boards.length < maxBoards && boards.push(placementsOfTriangleBoard({ cells }))) },
    );
  const searchStats = (r: TriangleSearchResult | undefined, extra: Partial<CubeStats> = {}): CubeStats => ({ engine: "search", wallMs: wallMs(), searchNodes: r?.nodes ?? 0, ...extra });

  if (limits.objective === "count") {
    active.phase = "search";
    const cap = limits.countBoards ?? 0;
    const boards: Placement[][] = [];
    let r: TriangleSearchResult;
    try {
      r = await search(cap, undefined, active.signal, boards);
    } catch (err) {
      if (active.stopReason !== null) return { kind: "stopped", stats: searchStats(undefined) };
      ctx.log.warn("triangle search failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
      return { kind: "error", fault: faultOf(err), reason: `${(err as Error).name}: ${(err as Error).message}`, stats: searchStats(undefined) };
    }
    if (active.stopReason !== null) return { kind: "stopped", stats: searchStats(r) };
    // A partial count is never reported: the cube goes back as unknown (re-split or retried).
    if (!r.complete) return { kind: "unknown", reason: "count: time-limit", stats: searchStats(r) };
    return { kind: "counted", solutions: r.count, boards, stats: searchStats(r) };
  }

  const contenders: Contender<Member>[] = [];
  if (searchMs > 0) {
    contenders.push({
      name: "search",
      decided: (m) => "search" in m && (m.search.count > 0 || m.search.complete),
      run: async (signal) => {
        const boards: Placement[][] = [];
        const r = await search(1, 1, signal, boards);
        return { search: r, board: boards[0] ?? null };
      },
    });
  }
  if (solver !== NO_SOLVER) {
    const formula = await cubeFormula(ctx, job, solver);
    if ("kind" in formula) return formula;
    contenders.push({
      name: solver,
      decided: (m) => "solver" in m && m.solver.kind !== "unknown",
      run: async (signal) => ({ solver: await runSolver(cubeInput(formula, task.units), run.numVars, cubeSolverOptions(ctx, limits, solver, signal)) }),
    });
  }
  active.phase = solver !== NO_SOLVER ? "solver" : "search";
  const { winner, entries } = await firstProof(contenders, active.signal);
  const searched = entries.find((e) => e.result && "search" in e.result)?.result as { search: TriangleSearchResult } | undefined;
  const solved = entries.find((e) => e.result && "solver" in e.result)?.result as { solver: SolverOutcome } | undefined;
  const s = solved?.solver.stats;
  const stats = (engine: string): CubeStats => searchStats(searched?.search, {
    engine, ...(s ? { conflicts: s.conflicts, decisions: s.decisions, propagations: s.propagations, solverSeconds: s.solverSeconds, maxRssBytes: s.maxRssBytes, cpuMs: s.cpuMs } : {}),
  });
  if (winner) {
    const r = winner.result!;
    if ("search" in r) return r.board ? { kind: "sat-board", board: r.board, stats: stats("search") } : { kind: "unsat", stats: stats("search") };
    if (r.solver.kind === "sat") return { kind: "sat", model: modelToBitset(r.solver.model), stats: stats(solver) };
    return { kind: "unsat", stats: stats(solver) };
  }
  const engine = solver !== NO_SOLVER ? solver : "search";
  if (active.stopReason !== null) return { kind: "stopped", stats: stats(engine) };
  // Every member failed: an error (the cube is sent again). A failure beside a member that gave up is only logged.
  const failed = entries.filter((e) => e.error);
  if (failed.length > 0 && failed.length === entries.length) {
    const err = failed[0].error!;
    return { kind: "error", fault: faultOf(err), reason: `${err.name}: ${err.message}`, stats: stats(engine) };
  }
  for (const e of failed) ctx.log.warn("triangle cube member failed", { run: run.id, cube: task.cubeId, member: e.name, err: e.error!.message });
  const reason = solved?.solver.kind === "unknown" ? solved.solver.reason : "time-limit";
  return { kind: "unknown", reason, stats: stats(engine) };
}
