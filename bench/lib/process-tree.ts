/**
 * A timed command for the benchmarks that leaves nothing behind. The command leads its own process group; its
 * descendants are tracked from /proc while it runs, because some of them lead groups of their own (the solver
 * runner spawns Kissat detached) and would outlive a kill of the command's group alone. On the hard time-out, or
 * on `stopActive()` (the harness's Ctrl-C), the group gets SIGTERM (Cubist then stops its solvers and cluster
 * itself), and after a grace period every tracked process and its group get SIGKILL. When the command exits, any
 * tracked process still alive is killed and counted in `leftover`.
 *
 * A process is identified by pid and start time (field 22 of /proc/PID/stat), so a reused pid is never signalled.
 */

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

/** What a timed command did. */
export interface CommandResult {
  /** Exit code, null when it died by a signal. */
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time from spawn to exit, seconds. */
  readonly seconds: number;
  /** True when the harness stopped it (time-out or stopActive). */
  readonly killed: boolean;
  /** Descendants still alive after the command exited (killed then). */
  readonly leftover: number;
}

export interface CommandOptions {
  readonly cwd?: string;
  /** Hard time-out, seconds: SIGTERM to the group, then SIGKILL to everything after `graceSec`. */
  readonly killAfterSec: number;
  /** @default 5 */
  readonly graceSec?: number;
  /** How often the descendants are read from /proc, ms. @default 1000 */
  readonly pollMs?: number;
}

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgrp: number;
  readonly start: string;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(f[1]), pgrp: Number(f[2]), start: f[19] };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root`. */
function descendants(root: number): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(s);
    children.set(s.ppid, list);
  }
  const out: ProcStat[] = [];
  const queue = [root];
  while (queue.length) {
    for (const c of children.get(queue.pop()!) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

const alive = (p: ProcStat): boolean => readStat(p.pid)?.start === p.start;

/** Our own process group, never to be signalled. */
const ownGroup = readStat(process.pid)?.pgrp ?? process.pid;

function signal(target: number, sig: NodeJS.Signals): void {
  if (target === -ownGroup || target === 0 || target === -1) return;
  try {
    process.kill(target, sig);
  } catch {
    // already gone
  }
}

interface Active {
  readonly stop: () => Promise<void>;
}
const active = new Set<Active>();

/** Stops every command still running (SIGTERM, then SIGKILL after its grace) and waits until they are gone. */
export async function stopActive(): Promise<void> {
  await Promise.all([...active].map((a) => a.stop()));
}

/** Runs `command args` in its own process group with a hard time-out; never rejects for a non-zero exit. */
export function runCommand(command: string, args: readonly string[], opts: CommandOptions): Promise<CommandResult> {
  const graceMs = (opts.graceSec ?? 5) * 1000;
  const t0 = performance.now();
  const child = spawn(command, args, { cwd: opts.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const pid = child.pid!;
  const leader: ProcStat = readStat(pid) ?? { pid, ppid: process.pid, pgrp: pid, start: "" };
  const tracked = new Map<number, ProcStat>();
  const track = (): void => {
    for (const d of descendants(pid)) if (!tracked.has(d.pid)) tracked.set(d.pid, d);
  };
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout!.on("data", (d: Buffer) => out.push(d));
  child.stderr!.on("data", (d: Buffer) => err.push(d));

  let exitedAt = 0;
  let killed = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, sig) => {
      exitedAt = performance.now();
      resolve({ code, signal: sig });
    });
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const poll = setInterval(track, opts.pollMs ?? 1000);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      killed = true;
      track();
      signal(-pid, "SIGTERM");
      const timer = new Promise<void>((r) => setTimeout(r, graceMs));
      await Promise.race([exited, timer]);
      track();
      signal(-pid, "SIGKILL");
      for (const p of tracked.values()) if (alive(p)) { signal(-p.pgrp, "SIGKILL"); signal(p.pid, "SIGKILL"); }
      await exited;
    })();
    return stopping;
  };
  const handle: Active = { stop };
  active.add(handle);
  const deadline = setTimeout(() => void stop(), opts.killAfterSec * 1000);

  return (async () => {
    const { code, signal: sig } = await exited;
    clearTimeout(deadline);
    clearInterval(poll);
    // The exit may come before the pipes drain; a grandchild holding them open must not hold the harness.
    await Promise.race([closed, new Promise<void>((r) => setTimeout(r, 2000))]);
    if (stopping) await stopping;
    // Whatever outlived the command: its own group first, then every tracked process that is still the same one.
    signal(-leader.pgrp, "SIGKILL");
    let leftover = 0;
    for (const p of tracked.values()) {
      if (!alive(p)) continue;
      leftover++;
      if (p.pgrp !== leader.pgrp) signal(-p.pgrp, "SIGKILL");
      signal(p.pid, "SIGKILL");
    }
    active.delete(handle);
    child.stdout!.destroy();
    child.stderr!.destroy();
    return {
      code,
      signal: sig,
      stdout: Buffer.concat(out).toString("utf8"),
      stderr: Buffer.concat(err).toString("utf8"),
      seconds: (exitedAt - t0) / 1000,
      killed,
      leftover,
    };
  })();
}
