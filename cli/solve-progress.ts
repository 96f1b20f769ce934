/**
 * What `cubist solve` shows on stderr while it works, so a long solve is never silent: on a terminal one line
 * redrawn every second (elapsed time; on one machine the engines' estimated searched fraction and deepest board,
 * on the local cluster the closed fraction and cube counts); in a pipe
 * or a log (local cluster only) a plain line at once and then every PLAIN_INTERVAL_MS. Pure: the caller passes
 * the time and writes what `tick` returns.
 */

import type { RunStatus } from "../proto/gen/cubist/v1/run.js";
import { formatDuration, formatPercent } from "./number-format.js";

/** How often a pipe gets a progress line. */
export const PLAIN_INTERVAL_MS = 10_000;

/** `1m05s elapsed: 3.4% closed, 10 refuted, 2 running, 6 queued` (or what is being waited for). */
export function progressLine(elapsedSec: number, status: RunStatus | undefined, waiting: string): string {
  const head = `${formatDuration(Math.max(0, elapsedSec))} elapsed`;
  if (!status?.cubes) return `${head}: ${waiting}`;
  const c = status.cubes;
  return `${head}: ${formatPercent(status.progress)} closed, ${c.unsat} refuted, ${c.running} running, ${c.queued} queued`;
}

/** The single-machine engines' latest progress, by member. */
export interface SearchProgress {
  /** The largest estimated fraction searched by any complete member (0..1). */
  covered: number;
  /** Cells of the deepest partial board any member reached, and of the board. */
  deepest: number;
  cells: number;
}

/** `12s elapsed: searching (2 thread(s)), about 3.1% of the space searched, deepest board 204 of 256 cells`. */
export function searchLine(elapsedSec: number, waiting: string, p: SearchProgress | undefined): string {
  const head = `${formatDuration(Math.max(0, elapsedSec))} elapsed: ${waiting}`;
  if (!p) return head;
  return `${head}, about ${formatPercent(p.covered)} of the space searched, deepest board ${p.deepest} of ${p.cells} cells`;
}

export class SolveProgress {
  private lastPlainAt = -Infinity;
  private drawn = false;
  private status: RunStatus | undefined;
  private search: SearchProgress | undefined;

  constructor(
    private readonly tty: boolean,
    private readonly startedAt: number,
    /** What the line says before the first status (`starting a local cluster of 2 workers`). */
    private readonly waiting: string,
  ) {}

  /** The latest run status (local cluster). */
  update(status: RunStatus): void {
    this.status = status;
  }

  /** The engines' progress (single machine). */
  updateSearch(p: SearchProgress): void {
    this.search = p;
  }

  /** Text to write now (possibly ""). */
  tick(now: number): string {
    const elapsed = (now - this.startedAt) / 1000;
    const line = this.search ? searchLine(elapsed, this.waiting, this.search) : progressLine(elapsed, this.status, this.waiting);
    if (this.tty) {
      this.drawn = true;
      return `\r${line}\x1b[K`;
    }
    if (now - this.lastPlainAt < PLAIN_INTERVAL_MS) return "";
    this.lastPlainAt = now;
    return `cubist solve: ${line}\n`;
  }

  /** Text that clears the terminal line before the result is printed ("" in a pipe). */
  finish(): string {
    return this.tty && this.drawn ? "\r\x1b[K" : "";
  }
}
