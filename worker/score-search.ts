/**
 * A task of a score run (objective "score", docs/cluster.md "Score runs"): the engine's score mode for the task's
 * budget, complete boards with the fewest mismatched edges, searched as `cubist solve --objective score` searches
 * (cli/solve-score.ts: the same settings), with the run's best as a shared bound. Every improvement of the task's
 * best board is reported at once (`job.improved`: an interim verdict, the task stays open). The search looks only
 * for boards better than the run's best as the run record says (`--breaks` one below the best board's breaks); when
 * another worker's board raises the run's best, the new bound goes to the running engine through its bound file
 * (`--bound-file`), which takes it without a restart. A slot's next attempt on this process goes on exactly where
 * its last one stopped (the same seed, `--restart-skip` its placements and `--resume-from` the engine's path), so a
 * slot searches as one engine of `solve` does; on another process it starts the schedule with the task's seed. Ends SAT
 * with a perfect board, otherwise UNKNOWN with the task's best board; running out of a narrowed space proves nothing.
 */

import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Placement } from "../core/puzzle.js";
import { faultOf } from "../core/errors.js";
import { runEngine, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES, type EngineBest, type EngineOutcome } from "./engine/index.js";
import type { CubeJob } from "./cube-job.js";
import type { WorkerContext } from "./context.js";
import type { CubeResult, CubeStats } from "./verdict.js";

/** How often the search looks at the run's best while it goes on. */
const BOUND_CHECK_MS = 500;

/**
 * Where a slot's search stopped in this process: the placements of its restart schedule, and, when the engine said
 * where it goes on (engine --resume-from), the seed it searched with and that path.
 */
interface SlotStop {
  placements: number;
  seed: number;
  resume?: readonly number[];
}

/** Each slot's last stop in this process (run and slot -> stop). */
const slotStops = new Map<string, SlotStop>();
/** Slots remembered at most (the oldest forgotten first: a forgotten slot starts its schedule again, nothing worse). */
const MAX_SLOTS_REMEMBERED = 4096;

function rememberStop(key: string, stop: SlotStop): void {
  slotStops.delete(key);
  slotStops.set(key, stop);
  if (slotStops.size > MAX_SLOTS_REMEMBERED) slotStops.delete(slotStops.keys().next().value!);
}

/**
 * How a slot's attempt searches: exactly where its last one in this process stopped (that seed and path), or with
 * the task's seed from where its schedule's placements ended (none: from the start).
 */
function slotStart(stop: SlotStop | undefined, taskSeed: number): SlotStop {
  if (stop?.resume?.length) return stop;
  return { placements: stop?.placements ?? 0, seed: taskSeed };
}

/** The most mismatched edges a better board than the run's best may have (undefined: no bound yet). */
function boundOf(job: CubeJob, ctx: WorkerContext): number | undefined {
  const best = ctx.table.get(job.run.id)?.best ?? job.run.best;
  return best ? best.maxScore - best.score - 1 : undefined;
}

/** Writes the bound where the engine reads it (a whole file at once: written aside, then renamed). */
async function writeBound(file: string, bound: number): Promise<void> {
  await writeFile(`${file}.new`, `${bound}\n`);
  await rename(`${file}.new`, file);
}

/** Searches until the budget ends, the task stops, or a perfect board: one engine run, its bound kept up to date. */
export async function scoreSearch(
  ctx: WorkerContext, job: CubeJob, problem: string, shape: { rows: number; cols: number; pieces: number }, searchMs: number, t0: number,
): Promise<CubeResult> {
  const { task, run, active } = job;
  const deadline = performance.now() + searchMs;
  const stats = (nodes: number, cpuMs: number): CubeStats => ({ engine: "search", wallMs: Math.round((performance.now() - t0) * 1000) / 1000, searchNodes: nodes, ...(cpuMs > 0 ? { cpuMs } : {}) });
  const bound = boundOf(job, ctx);
  if (bound !== undefined && bound < 0) return { kind: "unknown", reason: "score: the run has a perfect board", stats: stats(0, 0) };
  const key = `${run.id}/${task.cubeId}`;
  const start = slotStart(slotStops.get(key), 1 + (task.solver?.seed ?? 0));
  ctx.log.debug("score search started", { run: run.id, cube: task.cubeId, breaks: bound ?? "any", seed: start.seed, restartSkip: start.placements, exactly: start.resume ? "yes" : "no" });
  const dir = await mkdtemp(join(tmpdir(), "cubist-bound-"));
  const boundFile = join(dir, "bound");
  let best: EngineBest | null = null;
  let told = bound;
  // What the engine is bound to now: the last bound it was told, or below its own best since (branch and bound).
  const watch = setInterval(() => {
    const now = boundOf(job, ctx);
    const own = best?.breaks !== undefined ? best.breaks - 1 : undefined;
    const mine = own === undefined ? told : told === undefined ? own : Math.min(own, told);
    if (now === undefined || (mine !== undefined && now >= mine)) return;
    told = now;
    writeBound(boundFile, now).catch((err: Error) => ctx.log.debug("bound not written", { run: run.id, cube: task.cubeId, err: err.message }));
  }, BOUND_CHECK_MS);
  let last: EngineOutcome;
  try {
    last = await runEngine(problem, shape, {
      order: "row", seed: start.seed, restartBase: SCORE_RESTART_NODES,
      score: {
        fromPct: SCORE_FROM_PCT, rampPct: SCORE_RAMP_PCT, ...(bound !== undefined ? { breaks: bound } : {}), boundFile,
        restartSkip: start.placements, ...(start.resume ? { resume: start.resume } : {}),
      },
      timeLimitMs: Math.max(1, deadline - performance.now()), signal: active.signal, binary: ctx.config.enginePath,
      onBest: (b) => {
        if (b.score === undefined || (best?.score !== undefined && b.score <= best.score)) return;
        best = b;
        job.improved?.(b.board, b.nodes);
      },
    });
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: stats(0, 0) };
    ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: (err as Error).message });
    return { kind: "error", fault: faultOf(err), reason: `${(err as Error).name}: ${(err as Error).message}`, stats: stats(0, 0) };
  } finally {
    clearInterval(watch);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  const resume = last.stats.resumeFrom;
  rememberStop(key, { placements: start.placements + last.stats.nodes, seed: start.seed, ...(resume?.length ? { resume } : {}) });
  const done = stats(last.stats.nodes, Math.round(last.stats.seconds * 1000));
  if (active.stopReason !== null) return { kind: "stopped", stats: done };
  if (last.kind === "sat") return { kind: "sat-board", board: last.board, stats: done };
  const board: Placement[] | undefined = (best as EngineBest | null)?.board;
  return { kind: "unknown", reason: "score", stats: done, ...(board && board.length > 0 ? { best: board } : {}) };
}
