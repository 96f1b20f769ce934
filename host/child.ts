/**
 * The one child-process runner: everything Cubist spawns (Kissat and CaDiCaL, the placement engine and its prover,
 * drat-trim, nats-server) runs through it, with one lifecycle:
 * - spawned detached: the child leads its own process group, so a stop reaches whatever it started;
 * - stopped with SIGTERM to the group, then SIGKILL after a grace period (an abort signal, a time limit, a caller
 *   callback that threw, or `stop()`); `kill()` sends SIGKILL at once;
 * - reaped: when the child exits its group gets one more SIGKILL (stragglers), and `exited` settles only after the
 *   exit and the end of all output, so no process outlives the promise; it never rejects.
 *
 * States: running -> stopping -> exited, or running -> exited (it ended by itself, or could not be spawned).
 */

import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import type { Writable } from "node:stream";
import { feedInput } from "./feed-input.js";

/** Sends a signal to a whole process group; a group that is gone already is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/** Keeps the last `limit` bytes of a stream. */
export class TailBuffer {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    const joined = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    this.buf = joined.length > this.limit ? Buffer.from(joined.subarray(joined.length - this.limit)) : joined;
  }
  text(): string {
    return this.buf.toString("utf8");
  }
}

/** Why a child was stopped: the abort signal, its time limit, a caller callback that threw, or `stop()`/`kill()`. */
export type StopReason = "aborted" | "time-limit" | "caller-error" | "stopped";

export type ChildState = "running" | "stopping" | "exited";

export interface ChildOptions {
  /** "pipe": the caller writes `stdin` (runChild writes its `input`). @default "ignore" */
  stdin?: "pipe" | "ignore";
  /** Each stdout chunk (without it stdout is ignored). A throw stops the child and becomes `thrown`. */
  onStdout?: (chunk: Buffer) => void;
  /** Each stderr chunk; its tail is kept in `stderr` either way. */
  onStderr?: (chunk: Buffer) => void;
  /** Called once the child has exited, before its output is drained: stop anything that watches its pid. */
  onExit?: () => void;
  /** Called just before the SIGKILL of a stop: a last look at the child (its peak memory). */
  beforeKill?: () => void;
  /** Aborting stops the child ("aborted"). */
  signal?: AbortSignal;
  /** A watchdog: the child is stopped ("time-limit") when it runs longer. */
  timeLimitMs?: number;
  /** From the SIGTERM of a stop to the SIGKILL. @default 1000 */
  killGraceMs?: number;
  /** Bytes of stderr kept. @default 4096 */
  stderrBytes?: number;
}

/** How a child ended; every pipe is closed and its group is gone. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Why we stopped it before it exited; null when it ended by itself. */
  stoppedBy: StopReason | null;
  /** The spawn's error (ENOENT: no such binary); the child never ran. */
  spawnError: NodeJS.ErrnoException | null;
  /** What a caller callback, the input, or `fail()` threw (the first of them). */
  thrown: { error: unknown } | null;
  /** The tail of stderr, as it came. */
  stderr: string;
  /** From the spawn to the end of all output, in ms (3 decimals). */
  wallMs: number;
}

/** A child process in its own group (spawnChild). */
export class Child {
  readonly pid: number | undefined;
  /** The child's stdin when options.stdin is "pipe" (a broken pipe is ignored: the exit status tells). */
  readonly stdin: Writable | null;
  /** Settles after the exit and the end of all output; never rejects. */
  readonly exited: Promise<ChildExit>;
  private current: ChildState = "running";
  private stoppedBy: StopReason | null = null;
  private thrown: { error: unknown } | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private readonly onAbort = (): void => this.stop("aborted");

  constructor(binary: string, args: readonly string[], private readonly o: ChildOptions = {}) {
    const started = performance.now();
    const child = spawn(binary, args, { detached: true, stdio: [o.stdin ?? "ignore", o.onStdout ? "pipe" : "ignore", "pipe"] });
    this.pid = child.pid;
    this.stdin = child.stdin;
    const stderr = new TailBuffer(o.stderrBytes ?? 4096);
    let spawnError: NodeJS.ErrnoException | null = null;
    let code: number | null = null;
    let sig: NodeJS.Signals | null = null;
    child.on("error", (err) => void (spawnError ??= err));
    child.stdin?.on("error", () => {});
    child.stdout?.on("data", (chunk: Buffer) => this.call(o.onStdout!, chunk));
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr.push(chunk);
      if (o.onStderr) this.call(o.onStderr, chunk);
    });
    child.on("exit", (c, s) => {
      code = c;
      sig = s;
      this.settle();
      // Anything the child left running in its group (the group id stays reserved while it has members).
      if (this.pid !== undefined) signalGroup(this.pid, "SIGKILL");
      o.onExit?.();
    });
    this.exited = new Promise<ChildExit>((resolve) => {
      child.on("close", () => {
        this.settle();
        child.stdin?.destroy();
        const wallMs = Math.round((performance.now() - started) * 1000) / 1000;
        resolve({ code, signal: sig, stoppedBy: this.stoppedBy, spawnError, thrown: this.thrown, stderr: stderr.text(), wallMs });
      });
    });
    if (this.pid === undefined) return; // spawn failed: 'error' and 'close' follow
    if (o.signal?.aborted) this.stop("aborted");
    o.signal?.addEventListener("abort", this.onAbort, { once: true });
    if (o.timeLimitMs !== undefined) this.watchdog = setTimeout(() => this.stop("time-limit"), o.timeLimitMs);
  }

  get state(): ChildState {
    return this.current;
  }

  /** SIGTERM to the group, SIGKILL after the grace period. Only the first stop counts; nothing once it exited. */
  stop(reason: StopReason = "stopped"): void {
    if (this.pid === undefined || this.current !== "running") return;
    this.current = "stopping";
    this.stoppedBy = reason;
    const pid = this.pid;
    signalGroup(pid, "SIGTERM");
    this.killTimer = setTimeout(() => {
      this.o.beforeKill?.();
      signalGroup(pid, "SIGKILL");
    }, this.o.killGraceMs ?? 1000);
  }

  /** SIGKILL to the group at once (a crash, or a child whose leftovers are thrown away anyway). */
  kill(reason: StopReason = "stopped"): void {
    if (this.pid === undefined || this.current === "exited") return;
    if (this.current === "running") this.stoppedBy = reason;
    this.current = "stopping";
    signalGroup(this.pid, "SIGKILL");
  }

  /** Stops the child because its caller failed; `error` becomes `thrown` (the first one counts). */
  fail(error: unknown): void {
    this.thrown ??= { error };
    this.stop("caller-error");
  }

  private call(fn: (chunk: Buffer) => void, chunk: Buffer): void {
    try {
      fn(chunk);
    } catch (error) {
      this.fail(error);
    }
  }

  private settle(): void {
    if (this.current === "exited") return;
    this.current = "exited";
    if (this.watchdog !== null) clearTimeout(this.watchdog);
    if (this.killTimer !== null) clearTimeout(this.killTimer);
    this.o.signal?.removeEventListener("abort", this.onAbort);
  }
}

/** Spawns `binary` in its own process group (no shell). */
export function spawnChild(binary: string, args: readonly string[], options: ChildOptions = {}): Child {
  return new Child(binary, args, options);
}

export interface RunChildOptions extends Omit<ChildOptions, "stdin"> {
  /** Written to stdin, which is then closed (chunks with backpressure; a throw of the source stops the child). */
  input?: string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
  /** Called with the pid right after the spawn, before any output; a throw stops the child. */
  onSpawn?: (pid: number) => void;
}

/** Runs `binary` to its end: spawnChild, feed `input`, wait for `exited`. Never rejects. */
export function runChild(binary: string, args: readonly string[], options: RunChildOptions = {}): Promise<ChildExit> {
  const { input, onSpawn, ...rest } = options;
  const child = spawnChild(binary, args, { ...rest, stdin: input === undefined ? "ignore" : "pipe" });
  if (child.pid === undefined) return child.exited;
  try {
    onSpawn?.(child.pid);
  } catch (error) {
    child.fail(error);
  }
  if (child.stdin !== null && input !== undefined) {
    if (typeof input === "string") child.stdin.end(input);
    else feedInput(child.stdin, input, () => child.state !== "running").catch((error: unknown) => child.fail(error));
  }
  return child.exited;
}
