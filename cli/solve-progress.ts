/**
 * What `cubist solve` shows on stderr while it works, so a long solve is never silent: on a terminal one line
 * redrawn every second (elapsed time, and on the local cluster the closed fraction and cube counts); in a pipe
 * or a log (local cluster only) a plain line at once and then every PLAIN_INTERVAL_MS. Pure: the caller passes
 * the time and writes what `tick` returns.
 */

import type { RunStatus } from "../proto/gen/cubist/v1/run.js";
import { formatDuration, formatPercent } from "./control-format.js";

/** How often a pipe gets a progress line. */
export const PLAIN_INTERVAL_MS = 10_000;

/** `1m05s elapsed: 3.4% closed, 10 refuted, 2 running, 6 queued` (or what is being waited for). */
export function progressLine(elapsedSec: number, status: RunStatus | undefined, waiting: string): string {
  const head = `${formatDuration(Math.max(0, elapsedSec))} elapsed`;
  if (!status?.cubes) return `${head}: ${waiting}`;
  const c = status.cubes;
  return `${head}: ${formatPercent(status.progress)} closed, ${c.unsat} refuted, ${c.running} running, ${c.queued} queued`;
}

export class SolveProgress {
  private lastPlainAt = -Infinity;
  private drawn = false;
  private status: RunStatus | undefined;

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

  /** Text to write now (possibly ""). */
  tick(now: number): string {
    const line = progressLine((now - this.startedAt) / 1000, this.status, this.waiting);
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
