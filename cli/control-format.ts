/**
 * Pure helpers of the control commands (`cubist run ...`, `cubes list`, `cube resplit`, `solution show`):
 * run-state names, durations (`30s`, `10m`, `1h30m` in; `12m05s` out), the exit code a run's end maps to,
 * plain-text tables, and the JSON shapes printed by `--json`. No I/O, no clock (callers pass `now`).
 */

import { certificationJSON, proofChecksJSON } from "./certification-format.js";
import { InvalidOptionError } from "../core/errors.js";
import { RunState, type CubeCounts, type RunStatus } from "../proto/gen/cubist/v1/run.js";
import type { RunInfo } from "../proto/gen/cubist/v1/api.js";
import { EXIT } from "./exit-codes.js";
import { formatDuration, formatPercent } from "./number-format.js";
import { terminalSafe } from "../cluster/terminal-text.js";
import { isTerminal, RUN_STATE_NAMES, runStateName, runStateOf } from "../proto/vocabulary.js";

export { CUBE_STATE_NAMES, isTerminal, RUN_STATE_NAMES, runStateName } from "../proto/vocabulary.js";
export { formatDuration, formatPercent };

/** The run state a `--state` value names; throws InvalidOptionError for any other value. */
export function runStateOption(name: string): RunState {
  const v = runStateOf(name);
  if (v === undefined) throw new InvalidOptionError("--state", `must be one of ${RUN_STATE_NAMES.join(", ")}; got "${name}"`);
  return v;
}

/** The exit code of a run that ended (like `cubist solve`): 0 sat, 20 unsat, 30 cancelled, 1 failed. */
export function exitCodeOfRun(state: RunState | undefined): number {
  switch (state) {
    case RunState.RUN_STATE_SAT: return EXIT.OK;
    case RunState.RUN_STATE_UNSAT: return EXIT.UNSAT;
    case RunState.RUN_STATE_CANCELLED: return EXIT.UNKNOWN;
    case RunState.RUN_STATE_FAILED: return EXIT.ERROR;
    default: return EXIT.UNKNOWN;
  }
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 };

/**
 * Parses a duration: a number of seconds (`90`, `2.5`) or unit parts (`30s`, `10m`, `2h`, `1h30m`, `1.5h`,
 * `500ms`, `1d`). Returns seconds; an InvalidOptionError naming `flag` otherwise.
 */
export function parseDuration(text: string, flag = "--duration"): number {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let end = 0;
  let parts = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * UNIT_SECONDS[m[2]];
    end = re.lastIndex;
    parts++;
  }
  if (parts === 0 || end !== t.length) {
    throw new InvalidOptionError(flag, `expected a duration like 30s, 10m, 2h or 1h30m; got "${text}"`);
  }
  return total;
}

/** The ETA of a status: "done" when solved or refuted, "-" when cancelled, failed or paused, "?" when unknown. */
export function formatEta(status: Pick<RunStatus, "etaSeconds" | "state">, score = false): string {
  if (status.state === RunState.RUN_STATE_SAT || status.state === RunState.RUN_STATE_UNSAT) return "done";
  if (isTerminal(status.state) || status.state === RunState.RUN_STATE_PAUSED) return "-";
  // A score run improves its best board until it is stopped: it has no end to estimate.
  if (score) return "none";
  return status.etaSeconds < 0 ? "?" : formatDuration(status.etaSeconds);
}

/**
 * The share of the search space closed, or "solved" for a run that found its solution (its closed share means
 * little); a counting run always shows its share (covered weight).
 */
export function formatProgress(status: Pick<RunStatus, "progress" | "state" | "solutionCount">, digits = 1): string {
  return status.state === RunState.RUN_STATE_SAT && status.solutionCount === undefined ? "solved" : formatPercent(status.progress ?? 0, digits);
}

/** A counting run's count: `exactly 1234 solutions`, `at least 56 solutions so far`; "" for other runs. */
export function formatCount(status: Pick<RunStatus, "solutionCount" | "countComplete" | "state"> | undefined): string {
  if (status?.solutionCount === undefined) return "";
  const n = status.solutionCount;
  const noun = `solution${n === 1 ? "" : "s"}`;
  if (status.countComplete) return `exactly ${n} ${noun}`;
  return `at least ${n} ${noun}${isTerminal(status.state) ? " (the count stopped before the space was covered)" : " so far"}`;
}

/**
 * A cube's weight (its share of the search space) in one format everywhere: three significant digits, as a decimal
 * from 0.001 up (`0.25`, `0.0125`) and in exponent notation below (`1.39e-4`, `3.05e-7`), so a column of weights
 * compares at a glance.
 */
export function formatWeight(w: number): string {
  if (w <= 0) return "0";
  if (w >= 0.001) return String(Number(w.toPrecision(3)));
  return w.toExponential(2);
}

/** UTC time `2026-11-22 04:13:24`; "-" for 0. */
export function formatTime(unixMs: number): string {
  if (!unixMs) return "-";
  return new Date(unixMs).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
}

export function emptyCounts(): CubeCounts {
  return { queued: 0, running: 0, sat: 0, unsat: 0, unknown: 0, failed: 0, resplit: 0, refutedBySplit: 0, purged: 0 };
}

/** `12 queued, 2 running, 30 unsat, ...` (every count, in a fixed order). */
export function formatCounts(c: CubeCounts | undefined): string {
  const k = c ?? emptyCounts();
  return `${k.queued} queued, ${k.running} running, ${k.unsat} unsat, ${k.sat} sat, ${k.unknown} unknown, ${k.failed} failed, ${k.resplit} re-split, ${k.refutedBySplit} refuted by the splitter${k.purged ? `, ${k.purged} purged` : ""}`;
}

/** Left-aligned columns separated by two spaces; the last column is not padded; cells are made terminal-safe. */
export function formatTable(header: readonly string[], cellRows: ReadonlyArray<readonly string[]>): string {
  // Cells carry names, ids and reasons from others: escaped, so a row is always one line (cli/terminal-text.ts).
  const rows = cellRows.map((r) => r.map(terminalSafe));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** `--json` shape of a run's status. */
export function statusJSON(s: RunStatus | undefined): Record<string, unknown> {
  const st = s ?? ({ state: RunState.RUN_STATE_UNSPECIFIED } as RunStatus);
  return {
    state: runStateName(st.state),
    progress: st.progress ?? 0,
    cubes: { ...emptyCounts(), ...(st.cubes ?? {}) },
    cubesPerSecond: st.cubesPerSecond ?? 0,
    etaSeconds: isTerminal(st.state) ? 0 : st.etaSeconds ?? -1,
    solutions: st.solutions ?? 0,
    // A counting run: the count so far (exact counts of closed cubes) and whether it covers the whole space.
    ...(st.solutionCount !== undefined ? { count: st.solutionCount, complete: st.countComplete === true } : {}),
    rejectedModels: st.rejectedModels ?? 0,
    message: st.message ?? "",
    priority: st.priority ?? 0,
    waiting: st.waiting ?? "",
    initialCubes: st.initialCubes ?? 0,
    startedUnixMs: st.startedUnixMs ?? 0,
    finishedUnixMs: st.finishedUnixMs ?? 0,
    // Seconds it has run (paused time left out); an ended run's cubesPerSecond is its average over them.
    runningSeconds: st.runningSeconds ?? 0,
    updatedUnixMs: st.updatedUnixMs ?? 0,
    certified: certificationJSON(st.certification),
    proofChecks: proofChecksJSON(st.certification),
    // The best board so far (a score run's incumbent, else the deepest partial board); its cells: `run best --json`.
    best: st.best ? { score: st.best.score, maxScore: st.best.maxScore, placed: st.best.placed, cube: st.best.cubeId, worker: st.best.workerId, foundUnixMs: st.best.foundUnixMs } : null,
  };
}

/** A run's board as RunInfo gives it: rows x cols, or a triangle of side `rows` (RunInfo.shape). */
export type BoardOfRun = Pick<RunInfo, "shape" | "rows" | "cols">;

/** "6x6", "triangle 6" (the triangle file's header), "Sudoku 9x9" or "CNF 300 variables" (formula runs). */
export function formatBoardSize(r: BoardOfRun): string {
  if (r.shape === "formula") return r.rows === 1 ? `CNF ${r.cols} variables` : `Sudoku ${r.rows}x${r.cols}`;
  return r.shape === "triangle" ? `triangle ${r.rows}` : `${r.rows}x${r.cols}`;
}

/**
 * A run's base formula as RunInfo gives it: its encoding and size, or that it has none (0 variables: a score run, whose
 * slots search boards with the placement engine alone and need no formula; docs/cluster.md "Score runs").
 */
export function formatFormula(r: Pick<RunInfo, "encoding" | "numVars" | "numClauses">): string {
  return hasFormula(r) ? `encoding ${r.encoding}, ${r.numVars} vars, ${r.numClauses} clauses` : "no CNF formula (a score run)";
}

/** Whether the run has a base formula (a score run has none: 0 variables). */
export function hasFormula(r: Pick<RunInfo, "numVars">): boolean {
  return r.numVars > 0;
}

/** Cells of a run's board. */
export function boardCells(r: BoardOfRun): number {
  return r.shape === "triangle" ? r.rows * r.rows : r.rows * r.cols;
}

/** Where a cell lies: row and column on a square board; row (0 at the apex) and position on a triangle. */
export function cellPlace(r: BoardOfRun, cell: number): { row: number; col: number } | { row: number; pos: number } {
  if (r.shape === "triangle") {
    const row = Math.floor(Math.sqrt(cell));
    return { row, pos: cell - row * row };
  }
  return { row: Math.floor(cell / r.cols), col: cell % r.cols };
}

/** `--json` shape of a run (`run show`, `run list`, `run submit`). */
export function runJSON(r: RunInfo): Record<string, unknown> {
  return {
    run: r.runId,
    name: r.name,
    ...statusJSON(r.status),
    shape: r.shape ?? "square",
    rows: r.rows,
    cols: r.cols,
    encoding: r.encoding,
    vars: hasFormula(r) ? r.numVars : null,
    clauses: hasFormula(r) ? r.numClauses : null,
    cubing: r.cubing ? { targetCubes: r.cubing.targetCubes, maxDepth: r.cubing.maxDepth, cellOrder: r.cubing.cellOrder, parts: r.cubing.parts ?? 1 } : null,
    solver: r.solver
      ? { solver: r.solver.solver, timeLimitSec: r.solver.timeLimitSec, conflictLimit: r.solver.conflictLimit, seed: r.solver.seed, searchMs: r.solver.searchMs, objective: r.solver.objective || "sat" }
      : null,
    resplit: r.resplit ? { afterBudgets: r.resplit.afterBudgets, depth: r.resplit.depth, targetChildren: r.resplit.targetChildren } : null,
    createdUnixMs: r.createdUnixMs,
  };
}
