/**
 * What `cubist solve` shows on stderr while it works, so a long solve is never silent: on a terminal one line
 * redrawn every second (elapsed time; on one machine the engines' estimated searched fraction and deepest board, in
 * score mode the best score so far, on the local cluster the closed fraction and cube counts); in a pipe or a log a
 * plain line every PLAIN_INTERVAL_MS (the local cluster's first one at once, saying it is starting; on one machine
 * the first after an interval, so a quick solve prints none). Pure: the caller passes the time and writes what
 * `tick` returns.
 */

import type { RunStatus } from "../proto/gen/cubist/v1/run.js";
import { formatDuration, formatPercent } from "./number-format.js";

/** How often a pipe gets a progress line. */
export const PLAIN_INTERVAL_MS = 10_000;

/** `1m05s elapsed: ` (nothing in the first second: "0ms elapsed" tells nobody anything). */
function elapsedHead(elapsedSec: number): string {
  return elapsedSec < 1 ? "" : `${formatDuration(elapsedSec)} elapsed: `;
}

/** `1m05s elapsed: 3.4% closed, 10 refuted, 2 running, 6 queued` (or what is being waited for). */
export function progressLine(elapsedSec: number, status: RunStatus | undefined, waiting: string): string {
  if (!status?.cubes) return `${elapsedHead(elapsedSec)}${waiting}`;
  const c = status.cubes;
  return `${formatDuration(Math.max(0, elapsedSec))} elapsed: ${formatPercent(status.progress)} closed, ${c.unsat} refuted, ${c.running} running, ${c.queued} queued`;
}

/** The single-machine engines' latest progress, by member. */
export interface SearchProgress {
  /** The largest estimated fraction searched by any complete member (0..1). */
  covered: number;
  /** Cells of the deepest partial board any member reached, and of the board. */
  deepest: number;
  cells: number;
}

/** `12s elapsed: searching (2 threads), about 3.1% of the space searched, deepest board 204 of 256 cells`. */
export function searchLine(elapsedSec: number, waiting: string, p: SearchProgress | undefined): string {
  const head = `${elapsedHead(elapsedSec)}${waiting}`;
  if (!p) return head;
  return `${head}, about ${formatPercent(p.covered)} of the space searched, deepest board ${p.deepest} of ${p.cells} cells`;
}

/** The best board of a score search so far (`solve --objective score`). */
export interface ScoreProgress {
  score: number;
  maxScore: number;
  mismatches: number;
}

/** `2m30s elapsed: score search (2 threads), best score 451 of 480 (29 mismatched edges)`. */
export function scoreLine(elapsedSec: number, waiting: string, p: ScoreProgress | undefined): string {
  const head = `${elapsedHead(elapsedSec)}${waiting}`;
  if (!p) return `${head}, no complete board yet`;
  return `${head}, best score ${p.score} of ${p.maxScore} (${p.mismatches} mismatched edge${p.mismatches === 1 ? "" : "s"})`;
}

/** `1 worker`, `2 threads`: a count and its noun. */
export function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

export class SolveProgress {
  private lastPlainAt: number;
  private drawn = false;
  private status: RunStatus | undefined;
  private search: SearchProgress | undefined;
  private score: ScoreProgress | undefined;
  private scoring = false;

  constructor(
    private readonly tty: boolean,
    private readonly startedAt: number,
    /** What the line says before the first status (`starting a local cluster of 2 workers`). */
    private readonly waiting: string,
    /** In a pipe, the first plain line comes this long after the start (0: at once). */
    firstPlainAfterMs = 0,
  ) {
    this.lastPlainAt = startedAt + firstPlainAfterMs - PLAIN_INTERVAL_MS;
  }

  /** The latest run status (local cluster). */
  update(status: RunStatus): void {
    this.status = status;
  }

  /** The engines' progress (single machine). */
  updateSearch(p: SearchProgress): void {
    this.search = p;
  }

  /** A score search: its best board so far, or none yet (undefined). */
  updateScore(p: ScoreProgress | undefined): void {
    this.scoring = true;
    this.score = p;
  }

  /** Text to write now (possibly ""). */
  tick(now: number): string {
    const elapsed = (now - this.startedAt) / 1000;
    const line = this.scoring ? scoreLine(elapsed, this.waiting, this.score)
      : this.search ? searchLine(elapsed, this.waiting, this.search) : progressLine(elapsed, this.status, this.waiting);
    if (this.tty) {
      this.drawn = true;
      return `\r${line}\x1b[K`;
    }
    if (now - this.lastPlainAt < PLAIN_INTERVAL_MS) return "";
    this.lastPlainAt = now;
    return `cubist solve: ${line}\n`;
  }

  /** Text that clears the terminal line before the result (or another line) is printed ("" in a pipe). */
  finish(): string {
    return this.tty && this.drawn ? "\r\x1b[K" : "";
  }
}
