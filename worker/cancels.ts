/**
 * Cancels: `Cancel` messages on `<p>.cancel.<run>` (every cube of the run) and `<p>.cancel.<run>.<cube>` (one cube),
 * core NATS, so only workers listening at that moment hear them. A worker stops matching running cubes at once
 * and also remembers the cancel for a while: a task of a cancelled cube (or run) pulled afterwards is acked
 * without being solved. Pauses ("pause-now") are not remembered: the run comes back.
 *
 * Messages are never trusted: one whose payload does not decode, or names another run or cube than its subject,
 * is logged and ignored.
 */

import { CUBE_ID_RE, RUN_ID_RE, type Names } from "../proto/contract.js";
import { Cancel } from "../proto/gen/cubist/v1/cube.js";

/** The reason that stops cubes but hands their tasks back (nak) instead of acking them. */
export const PAUSE_NOW = "pause-now";

export interface CancelEvent {
  run: string;
  /** Empty: the whole run. */
  cube: string;
  reason: string;
}

/** A cancel from its subject and payload, or why it is ignored. */
export function parseCancel(names: Names, subject: string, data: Uint8Array): { ok: true; cancel: CancelEvent } | { ok: false; reason: string } {
  const head = `${names.prefix}.cancel.`;
  if (!subject.startsWith(head)) return { ok: false, reason: "not a cancel subject" };
  const rest = subject.slice(head.length);
  const dot = rest.indexOf(".");
  const run = dot < 0 ? rest : rest.slice(0, dot);
  const cube = dot < 0 ? "" : rest.slice(dot + 1);
  if (!RUN_ID_RE.test(run)) return { ok: false, reason: "bad run id in the subject" };
  if (cube !== "" && !CUBE_ID_RE.test(cube)) return { ok: false, reason: "bad cube id in the subject" };
  let msg: Cancel;
  try {
    msg = Cancel.decode(data);
  } catch (err) {
    return { ok: false, reason: `does not decode as Cancel: ${(err as Error).message}` };
  }
  if (msg.runId !== run) return { ok: false, reason: `run_id "${msg.runId.slice(0, 80)}" differs from the subject's ${run}` };
  if (msg.cubeId !== cube) return { ok: false, reason: `cube_id "${msg.cubeId.slice(0, 80)}" differs from the subject's "${cube}"` };
  return { ok: true, cancel: { run, cube, reason: msg.reason.slice(0, 200) || "cancelled" } };
}

/** Recently cancelled runs and cubes, forgotten after `ttlMs`. */
export class CancelMemory {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  remember(e: CancelEvent): void {
    if (e.reason === PAUSE_NOW) return;
    if (this.seen.size >= this.maxEntries) this.sweep();
    if (this.seen.size >= this.maxEntries) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(key(e.run, e.cube), this.now() + this.ttlMs);
  }

  /** Forgets a whole-run cancel (the run was resumed after it ended). */
  forgetRun(run: string): void {
    this.seen.delete(key(run, ""));
  }

  /** True when this cube or its whole run was cancelled within the TTL. */
  cancelled(run: string, cube: string): boolean {
    return this.live(key(run, "")) || this.live(key(run, cube));
  }

  private live(k: string): boolean {
    const until = this.seen.get(k);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.seen.delete(k);
    return false;
  }

  private sweep(): void {
    const t = this.now();
    for (const [k, until] of this.seen) if (until <= t) this.seen.delete(k);
  }
}

function key(run: string, cube: string): string {
  return `${run}\u0000${cube}`;
}
