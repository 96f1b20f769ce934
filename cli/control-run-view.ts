/**
 * Text views of runs for `cubist run show` and `cubist run list` (pure: the caller passes `now`).
 */
import { terminalSafe } from "../cluster/terminal-text.js";
import type { RunInfo } from "../proto/gen/cubist/v1/api.js";
import { RunState } from "../proto/gen/cubist/v1/run.js";
import {
  boardCells, emptyCounts, formatBoardSize, formatCount, formatFormula, formatCounts, formatDuration, formatEta, formatPercent, formatProgress, formatTable, formatTime, isTerminal, runStateName,
} from "./control-format.js";
import { formatCertification, formatProofChecks } from "./certification-format.js";

function age(now: number, unixMs: number): string {
  return unixMs ? `${formatDuration(Math.max(0, now - unixMs) / 1000)} ago` : "-";
}

/** `paused`, `paused (running cubes stopped)`, `cancelled (by ops)`: the message unless it only repeats the state. */
export function stateWithMessage(state: string, message: string): string {
  if (!message || message === state) return state;
  return message.startsWith(`${state} `) ? message : `${state} (${message})`;
}

function sci(n: number): string {
  return n >= 1e6 ? n.toExponential(2) : String(Math.round(n));
}

/**
 * Placements so far and their rate (an ended run: its average), then the work left by the tree estimates with its
 * standard error: `1.2e9 placements at 3.1e7/s; left about 4.0e11 ± 1.1e11 placements`. The time is the ETA line's.
 */
export function workLine(s: RunInfo["status"], ended: boolean): string {
  if (!s) return "-";
  const done = `${sci(s.placements)} placements${s.placementsPerSecond > 0 ? ` at ${sci(s.placementsPerSecond)}/s${ended ? " on average" : ""}` : ""}`;
  if (ended) return done;
  if (s.remainingNodes < 0) return `${done}; no tree estimate yet`;
  return `${done}; left about ${sci(s.remainingNodes)} ± ${sci(s.remainingNodesStderr)} placements`;
}

/**
 * The one ETA: the smoothed tree-estimate time (coordinator/model/steady-eta.ts) with a two-standard-error range from
 * the estimate, `1h02m (40m-1h50m)`; `done`, `-` for a cancelled or failed run, none while paused or for a score run.
 */
export function etaLine(s: RunInfo["status"], score: boolean): string {
  if (!s) return "?";
  if (isTerminal(s.state)) return formatEta(s);
  if (score) return "none (a score run improves its best board until it is stopped)";
  if (s.state === RunState.RUN_STATE_PAUSED) return "none while paused";
  if (s.etaSeconds < 0) return "? (no rate yet)";
  if (s.remainingNodes <= 0) return formatDuration(s.etaSeconds);
  const lo = s.etaSeconds * Math.max(0, s.remainingNodes - 2 * s.remainingNodesStderr) / s.remainingNodes;
  const hi = s.etaSeconds * (s.remainingNodes + 2 * s.remainingNodesStderr) / s.remainingNodes;
  return `${formatDuration(s.etaSeconds)} (${formatDuration(lo)}-${formatDuration(hi)})`;
}

/**
 * What runs on each cube, in words: `kissat: 1m00s per cube, the placement engine beside it for the first 1.0s,
 * seed 0`, or `none (the placement engine alone): 1m00s per cube, seed 0` (the engine stops at the budget or at its
 * search time, whichever comes first).
 */
export function solverLine(solver: RunInfo["solver"]): string {
  if (!solver) return "?";
  const budgetSec = solver.timeLimitSec;
  const searchSec = (solver.searchMs ?? 0) / 1000;
  const perCube = (sec: number): string => (sec > 0 ? `${formatDuration(sec)} per cube` : "no time budget");
  if (solver.solver === "none") {
    const engineSec = budgetSec > 0 && searchSec > 0 ? Math.min(budgetSec, searchSec) : budgetSec || searchSec;
    return `none (the placement engine alone): ${perCube(engineSec)}, seed ${solver.seed}`;
  }
  const engine = searchSec <= 0 ? ""
    : budgetSec > 0 && searchSec < budgetSec ? `the placement engine beside it for the first ${formatDuration(searchSec)}` : "the placement engine beside it throughout";
  return `${solver.solver}: ${[perCube(budgetSec), solver.conflictLimit > 0 ? `${solver.conflictLimit} conflicts per cube` : "", engine, `seed ${solver.seed}`]
    .filter(Boolean).join(", ")}`;
}

/** `258 cubes (256 asked)`: what the initial split made, and its goal when that differs. */
function cubesMade(r: RunInfo): string {
  const asked = r.cubing?.targetCubes ?? 0;
  const made = r.status?.initialCubes ?? 0;
  if (made === 0) return `${asked || "?"} cubes asked`;
  return made === asked ? `${made} cubes` : `${made} cubes (${asked} asked)`;
}

/** The `run show` block: one `label  value` line per fact. */
export function renderRunDetails(r: RunInfo, now: number): string {
  const s = r.status;
  const c = s?.cubes ?? emptyCounts();
  const rs = r.resplit;
  const resplit = rs
    ? `after ${rs.afterBudgets} unknown budget(s), ${rs.targetChildren > 0 ? `into ${rs.targetChildren} children` : `${rs.depth} placement(s) deeper`}`
    : "-";
  // The time it ran (paused time left out); older records without it: start to end.
  const end = isTerminal(s?.state) ? s?.finishedUnixMs ?? 0 : now;
  const running = s?.runningSeconds ? s.runningSeconds : s?.startedUnixMs && end ? (end - s.startedUnixMs) / 1000 : -1;
  const score = r.solver?.objective === "score";
  const counting = s?.solutionCount !== undefined;
  const rows: Array<[string, string]> = [
    ["run", r.runId],
    ["name", r.name],
    ["state", stateWithMessage(runStateName(s?.state), s?.message ?? "")],
    ["puzzle", `${formatBoardSize(r)}, ${formatFormula(r)}`],
    ["solver", solverLine(r.solver)],
    ["cubing", `${cubesMade(r)}${r.cubing?.maxDepth ? ` (max depth ${r.cubing.maxDepth})` : ""}, ${r.cubing?.cellOrder ?? "?"} cell order${(r.cubing?.parts ?? 0) > 1 ? `, each cube in ${r.cubing!.parts} parts` : ""}; re-split ${resplit}`],
    ...(s?.solutionCount !== undefined ? [["count", `${formatCount(s)} (cubist solution list ${r.runId})`] as [string, string]] : []),
    ["progress", s?.state === RunState.RUN_STATE_SAT && s.solutionCount === undefined
      ? `solved (${formatPercent(s.progress, 2)} of the search space closed before the solution)`
      : `${formatPercent(s?.progress ?? 0, 2)} of the search space closed`],
    ["cubes", formatCounts(c)],
    ["open", `${c.queued + c.running + c.unknown} cube(s) open`],
    ["rate", `${(s?.cubesPerSecond ?? 0).toFixed(2)} cubes/s${isTerminal(s?.state) ? " on average" : ""}`],
    ["ETA", etaLine(s, score)],
    // A counting run's count (above) is its one number of solutions; its recorded boards are in solution list.
    ...(counting ? [] : [["solutions", `${s?.solutions ?? 0}${s?.solutions ? ` (cubist solution show ${r.runId})` : ""}${s?.rejectedModels ? `; ${s.rejectedModels} SAT answer(s) rejected by the verifier` : ""}`] as [string, string]]),
    ...(counting && s?.rejectedModels ? [["rejected", `${s.rejectedModels} board(s) rejected by the verifier`] as [string, string]] : []),
    ["work", workLine(s, s?.state === RunState.RUN_STATE_SAT || s?.state === RunState.RUN_STATE_UNSAT)],
    ["best board", s?.best
      ? `score ${s.best.score} of ${s.best.maxScore}, ${s.best.placed} of ${boardCells(r)} cells (cube ${s.best.cubeId}, worker ${s.best.workerId}, ${age(now, s.best.foundUnixMs)}; checked by the verifier; cubist run best ${r.runId})`
      : "- (none reported yet)"],
    ["priority", String(s?.priority ?? 0)],
    ...(s?.waiting ? [["waiting", s.waiting] as [string, string]] : []),
    ["created", `${formatTime(r.createdUnixMs)} (${age(now, r.createdUnixMs)})`],
    [isTerminal(s?.state) ? "ran for" : "running for", running >= 0 ? `${formatDuration(running)}${s?.state === RunState.RUN_STATE_PAUSED ? " (stopped while paused)" : ""}` : "-"],
  ];
  const certified = formatCertification(s?.certification, c.unsat);
  if (certified) rows.push(["certified", certified]);
  const checks = formatProofChecks(s?.certification);
  if (checks) rows.push(["proof checks", checks]);
  if (s?.finishedUnixMs) rows.push(["finished", `${formatTime(s.finishedUnixMs)} (${age(now, s.finishedUnixMs)})`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${k.padEnd(width)}  ${terminalSafe(v)}`).join("\n") + "\n";
}

/** A score run's best score so far (`448/480`); "-" for other runs and before a board. */
function bestScore(r: RunInfo): string {
  const b = r.status?.best;
  return r.solver?.objective === "score" && b ? `${b.score}/${b.maxScore}` : "-";
}

/** The `run list` table, newest first (as the coordinator sends them). */
export function renderRunTable(runs: readonly RunInfo[], now: number): string {
  if (runs.length === 0) return "no runs\n";
  return formatTable(
    ["RUN", "STATE", "PROGRESS", "OPEN", "DONE", "SOLUTIONS", "BEST", "SIZE", "CREATED", "NAME"],
    runs.map((r) => {
      const c = r.status?.cubes ?? emptyCounts();
      return [
        r.runId,
        runStateName(r.status?.state),
        r.status ? formatProgress(r.status) : formatPercent(0),
        String(c.queued + c.running + c.unknown),
        String(c.unsat + c.sat + c.failed),
        String(r.status?.solutionCount ?? r.status?.solutions ?? 0),
        bestScore(r),
        formatBoardSize(r),
        `${formatTime(r.createdUnixMs).replace(/:\d\d UTC$/, " UTC")} (${age(now, r.createdUnixMs)})`,
        r.name,
      ];
    }),
  );
}
