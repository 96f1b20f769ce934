/**
 * What `cubist run watch` shows, as pure functions of the run's status (no I/O, no clock: callers pass `now`).
 *
 * - On a terminal: a two-line block redrawn in place (`redrawFrame`): a progress bar of the closed fraction of the
 *   search space, the cubes by state, cubes/s, ETA and solutions. Lines never exceed the terminal width, so the
 *   cursor arithmetic of the redraw stays right.
 * - Otherwise (a pipe, a log file): one plain line per printed status (`renderStatusLine`), throttled by
 *   `StatusThrottle` to one every interval plus every change of state or of the solution count.
 */

import { placementLiteral } from "../core/cnf/run-formula.js";
import { terminalSafe } from "../cluster/terminal-text.js";
import { VerdictKind, type Placement } from "../proto/gen/cubist/v1/cube.js";
import { RunState, type RunStatus, type Solution } from "../proto/gen/cubist/v1/run.js";
import type { VerdictSummary } from "../proto/gen/cubist/v1/api.js";
import { verdictLabel } from "../proto/vocabulary.js";
import { cellPlace, emptyCounts, formatCount, formatCounts, formatDuration, formatEta, formatPercent, formatProgress, isTerminal, runStateName } from "./control-format.js";
import type { BoardOfRun } from "./control-format.js";

const ESC = "\x1b[";
const FULL = "█";
const EMPTY = "░";
const EIGHTHS = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];

/** `[█████▍░░░░]`: `width` cells between the brackets, eighth-cell precision. */
export function renderProgressBar(fraction: number, width: number): string {
  const w = Math.max(1, Math.floor(width));
  const f = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const eighths = Math.floor(f * w * 8);
  const full = Math.floor(eighths / 8);
  const part = full < w ? EIGHTHS[eighths % 8] : "";
  return `[${FULL.repeat(full)}${part}${EMPTY.repeat(w - full - (part ? 1 : 0))}]`;
}

export interface WatchViewOptions {
  runId: string;
  /** The run's name, shown after its id when it differs. */
  name?: string;
  /** Terminal columns. @default 80 */
  width?: number;
  /** A score run (no ETA). */
  score?: boolean;
}

/** Cuts a line to `width - 1` visible characters (the last column is left free so a line never wraps). */
export function fitWidth(line: string, width: number): string {
  const max = Math.max(1, width - 1);
  const chars = Array.from(line);
  return chars.length <= max ? line : chars.slice(0, Math.max(1, max - 1)).join("") + "…";
}

function compactCounts(status: RunStatus): string {
  const c = status.cubes ?? emptyCounts();
  const parts = [`${c.queued} queued`, `${c.running} running`, `${c.unsat} unsat`];
  if (c.sat) parts.push(`${c.sat} sat`);
  if (c.unknown) parts.push(`${c.unknown} unknown`);
  if (c.failed) parts.push(`${c.failed} failed`);
  if (c.resplit) parts.push(`${c.resplit} re-split`);
  if (c.refutedBySplit) parts.push(`${c.refutedBySplit} split-refuted`);
  return parts.join(" · ");
}

/** The terminal block: two lines, each within `width - 1` columns (a long run name is cut first). */
export function renderWatchView(status: RunStatus, options: WatchViewOptions): string[] {
  const width = options.width && options.width > 0 ? options.width : 80;
  const state = `  ${runStateName(status.state)}  `;
  const tail = `  ${formatProgress(status).padStart(6)}  ETA ${formatEta(status, options.score)}`;
  const minBar = 10;
  const room = width - 1 - state.length - tail.length - (minBar + 2);
  let title = terminalSafe(options.name && options.name !== options.runId ? `${options.runId} (${options.name})` : options.runId);
  if (Array.from(title).length > room) title = fitWidth(title, Math.max(2, room + 1));
  const barWidth = Math.max(minBar, Math.min(40, width - 1 - Array.from(title).length - state.length - tail.length - 2));
  const line1 = `${title}${state}${renderProgressBar(status.progress, barWidth)}${tail}`;
  const solutions = formatCount(status) || `${status.solutions} solution${status.solutions === 1 ? "" : "s"}`;
  const best = status.best ? `   best ${status.best.score}/${status.best.maxScore}` : "";
  const line2 = `cubes: ${compactCounts(status)}   ${status.cubesPerSecond.toFixed(1)} cubes/s   ${solutions}${best}`;
  return [fitWidth(line1, width), fitWidth(line2, width)];
}

/**
 * ANSI text that replaces the block drawn before (`previousLines` lines, the cursor at the start of the line
 * below it) by `permanent` lines (printed once, they scroll up) followed by the new block.
 */
export function redrawFrame(previousLines: number, block: readonly string[], permanent: readonly string[] = []): string {
  const up = previousLines > 0 ? `${ESC}${previousLines}A` : "";
  return `${up}\r${ESC}J${[...permanent, ...block].map((l) => `${l}\n`).join("")}`;
}

/** ANSI text that erases the block (before the final summary is printed). */
export function clearFrame(previousLines: number): string {
  return previousLines > 0 ? `${ESC}${previousLines}A\r${ESC}J` : "";
}

/** `HH:MM:SS` (UTC). */
function clock(now: number): string {
  return new Date(now).toISOString().slice(11, 19);
}

/** The plain line for logs and pipes. */
export function renderStatusLine(status: RunStatus, options: { runId: string; now: number; score?: boolean }): string {
  return [
    `${clock(options.now)} ${options.runId} ${runStateName(status.state)} ${formatProgress(status)}${status.state === RunState.RUN_STATE_SAT && status.solutionCount === undefined ? "" : " closed"}`,
    `cubes: ${formatCounts(status.cubes)}`,
    `${status.cubesPerSecond.toFixed(1)} cubes/s`,
    `ETA ${formatEta(status, options.score)}`,
    formatCount(status) || `${status.solutions} solution(s)`,
    ...(status.best ? [`best ${status.best.score}/${status.best.maxScore} (${status.best.placed} placed)`] : []),
    ...(status.workEtaSeconds > 0 && !isTerminal(status.state) ? [`work left ${formatDuration(status.workEtaSeconds)} by tree estimates`] : []),
  ].join(" | ");
}

/** Decides which status events become plain lines. */
export class StatusThrottle {
  private lastAt = -Infinity;
  private lastState: number | undefined;
  private lastSolutions = -1;

  constructor(private readonly intervalMs: number) {}

  /** True (and remembered as printed) for the first status, a change of state or solutions, an end, or after the interval. */
  shouldPrint(status: RunStatus, now: number): boolean {
    // A counting run's count grows all the time: it shows at the interval, not at every board.
    const changed = status.state !== this.lastState || (status.solutionCount === undefined && status.solutions !== this.lastSolutions);
    if (!changed && !isTerminal(status.state) && now - this.lastAt < this.intervalMs) return false;
    this.lastAt = now;
    this.lastState = status.state;
    this.lastSolutions = status.solutions;
    return true;
  }
}

/** The verdict's label (proto/vocabulary.ts); "unspecified" for a kind that is none of them. */
export function verdictKindName(kind: VerdictKind): string {
  return kind !== VerdictKind.VERDICT_KIND_UNSPECIFIED && kind in VerdictKind ? verdictLabel(kind) : "unspecified";
}

/** `verdict cube 17.3: unsat by w1 in 1.2s (3456 conflicts)`. */
export function renderVerdictLine(v: VerdictSummary): string {
  const reason = v.reason ? `: ${terminalSafe(v.reason)}` : "";
  const how = v.earlier ? "closed before this watch" : `${v.conflicts} conflicts`;
  return `verdict cube ${terminalSafe(v.cubeId)}: ${verdictKindName(v.kind)}${reason} by ${terminalSafe(v.workerId) || "?"} in ${formatDuration(v.wallMs / 1000)} (${how})`;
}

export function renderSolutionLine(runId: string, s: Solution): string {
  return `solution ${s.index} found in cube ${terminalSafe(s.cubeId)} by ${terminalSafe(s.workerId) || "?"} (cubist solution show ${runId} --index ${s.index})`;
}

export function renderDroppedLine(count: number): string {
  return `(${count} verdict event(s) dropped: this client read too slowly)`;
}

/** The last line of a watch: how the run ended. */
export function renderEndLine(runId: string, status: RunStatus): string {
  const elapsed = status.finishedUnixMs && status.startedUnixMs ? ` after ${formatDuration((status.finishedUnixMs - status.startedUnixMs) / 1000)}` : "";
  const msg = status.message ? `: ${terminalSafe(status.message)}` : "";
  const closed = status.state === RunState.RUN_STATE_SAT && status.solutionCount === undefined ? "solved" : `${formatPercent(status.progress)} closed`;
  return `run ${terminalSafe(runId)} ${runStateName(status.state)}${msg}${elapsed} (${closed}, ${formatCount(status) || `${status.solutions} solution(s)`})`;
}

/**
 * Placements for people: `r2c3=p17/1` (0-based row and column, the piece as given, rotation); on a triangle
 * `r2pos3=p17/1` (row from the apex, position in the row); a formula run's as its literals (`57 -3`,
 * core/cnf/run-formula.ts); the bare cell number when the board is not known.
 */
export function formatPlacements(placements: readonly Placement[], board: BoardOfRun | null): string {
  if (board?.shape === "formula") return placements.map((p) => String(placementLiteral(p))).join(" ");
  return placements
    .map((p) => {
      if (board === null || board.cols === 0) return `${p.cell}=p${p.piece}/${p.rot}`;
      const at = cellPlace(board, p.cell);
      return `r${at.row}${"col" in at ? `c${at.col}` : `pos${at.pos}`}=p${p.piece}/${p.rot}`;
    })
    .join(" ");
}
