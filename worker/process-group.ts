/**
 * Child-process helpers shared by the solver runner, the engine runner and the prover: each spawns its child
 * detached (it leads its own process group) and stops it by signalling the whole group. The engine and the prover
 * run through runInGroup; the solver runner, which also samples the child and keeps a watchdog, uses the parts.
 */
import { spawn } from "node:child_process";

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

export interface GroupRunOptions {
  /** Written to the child's stdin, which is then closed. */
  input: string;
  /** Each stdout chunk. A throw stops the child (SIGTERM to its group) and becomes the run's `failure`. */
  onStdout: (chunk: Buffer) => void;
  /** Aborting stops the child: SIGTERM to its group, SIGKILL after killGraceMs (default 1000). */
  signal?: AbortSignal;
  killGraceMs?: number;
  /** The bytes of stderr kept (its tail; default 4096). */
  stderrBytes?: number;
}

/** How a child run in its own group ended; every pipe is closed and the group is gone. */
export interface GroupRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Stopped by the abort signal or by a throw of onStdout. */
  stopped: boolean;
  /** The spawn's error (ENOENT: no such binary), or what onStdout threw. */
  failure: NodeJS.ErrnoException | null;
  /** The tail of stderr, trimmed. */
  stderr: string;
}

/**
 * Runs `binary` detached (leading its own process group), feeds it `input`, and resolves once it has exited and
 * its pipes are closed. Whatever it left running in its group is killed when it exits. Never rejects.
 */
export function runInGroup(binary: string, args: readonly string[], o: GroupRunOptions): Promise<GroupRun> {
  return new Promise<GroupRun>((resolve) => {
    const child = spawn(binary, args, { detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const pid = child.pid;
    const stderr = new TailBuffer(o.stderrBytes ?? 4096);
    let failure: NodeJS.ErrnoException | null = null;
    let stopped = false;
    let exited = false;
    let killTimer: NodeJS.Timeout | null = null;
    let code: number | null = null;
    let sig: NodeJS.Signals | null = null;
    const stop = (): void => {
      if (pid === undefined || exited || stopped) return;
      stopped = true;
      signalGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), o.killGraceMs ?? 1000);
    };
    child.on("error", (err) => void (failure ??= err));
    // A child that exits before reading all its input breaks the pipe; its exit status says what happened.
    child.stdin.on("error", () => {});
    child.stdout.on("data", (chunk: Buffer) => {
      try {
        o.onStdout(chunk);
      } catch (err) {
        failure ??= err as Error;
        stop();
      }
    });
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("exit", (c, s) => {
      exited = true;
      code = c;
      sig = s;
      if (killTimer) clearTimeout(killTimer);
      o.signal?.removeEventListener("abort", stop);
      if (pid !== undefined) signalGroup(pid, "SIGKILL");
    });
    child.on("close", () => resolve({ code, signal: sig, stopped, failure, stderr: stderr.text().trim() }));
    if (pid === undefined) return; // spawn failed: 'error' and 'close' follow
    o.signal?.addEventListener("abort", stop, { once: true });
    child.stdin.end(o.input);
  });
}
