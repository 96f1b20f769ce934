/**
 * Test helpers for real processes: the `cubist` CLI as a child process (the built dist/cli/main.js, which
 * `npm test` builds first; CUBIST_TEST_CLI=tsx runs the TypeScript source instead), scripted fake solvers
 * written to a temp dir, and process checks through /proc.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** node arguments that start the CLI. */
export function cubistCommand(): string[] {
  const dist = join(REPO_ROOT, "dist/cli/main.js");
  if (process.env.CUBIST_TEST_CLI === "tsx" || !existsSync(dist)) return ["--import", "tsx", join(REPO_ROOT, "cli/main.ts")];
  return [dist];
}

export interface CubistProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stderr so far. */
  stderr(): string;
  stdout(): string;
  /**
   * Resolves with the first stderr line matching `re`, looking after `from` characters of stderr (default 0);
   * throws after `timeoutMs`, or when the process exits first, with the stderr so far.
   */
  waitForLog(re: RegExp, timeoutMs?: number, from?: number): Promise<string>;
  /** Resolves with the exit code (null when killed by a signal) and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends a signal if it is still running. */
  kill(signal?: NodeJS.Signals): void;
}

/** A finished `cubist` command: its exit code (null when killed by a signal) and everything it printed. */
export interface CubistResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `cubist ...args` to its end. */
export async function runCubist(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CubistResult> {
  const p = spawnCubist(args, options);
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** A test body run with a fresh temp directory (`cubist-<prefix>-...`), removed afterwards. */
export function withTempDir(prefix: string, fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), `cubist-${prefix}-`));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** Spawns `node <cli> ...args`. */
export function spawnCubist(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CubistProcess {
  return trackChild(spawn(process.execPath, [...cubistCommand(), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  }));
}

/** Collects a piped child's stdout and stderr and lets a test wait for a stderr line. */
export function trackChild(child: ChildProcess): CubistProcess {
  let err = "";
  let out = "";
  const listeners = new Set<() => void>();
  child.stderr!.on("data", (d: Buffer) => {
    err += d.toString();
    for (const l of listeners) l();
  });
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    pid: child.pid ?? -1,
    stderr: () => err,
    stdout: () => out,
    exited,
    kill(signal: NodeJS.Signals = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    waitForLog(re: RegExp, timeoutMs = 15_000, from = 0) {
      return new Promise<string>((resolve, reject) => {
        const find = (): string | undefined => err.slice(from).split("\n").find((l) => re.test(l));
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no stderr line matching ${re} within ${timeoutMs} ms; stderr:\n${err.slice(-4000)}`));
        }, timeoutMs);
        const onExit = (): void => {
          cleanup();
          const line = find();
          if (line !== undefined) resolve(line);
          else reject(new Error(`process exited before a stderr line matched ${re}; stderr:\n${err.slice(-4000)}`));
        };
        const listener = (): void => {
          const line = find();
          if (line === undefined) return;
          cleanup();
          resolve(line);
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
          child.off("exit", onExit);
        };
        const line = find();
        if (line !== undefined) {
          cleanup();
          resolve(line);
          return;
        }
        listeners.add(listener);
        child.once("exit", onExit);
      });
    },
  };
}

/** Stops processes: SIGTERM first (workers stop their solvers and exit), SIGKILL for whatever is left after `graceMs`. */
export async function stopProcesses(procs: readonly (CubistProcess | undefined)[], graceMs = 5000): Promise<void> {
  const live = procs.filter((p): p is CubistProcess => p !== undefined);
  for (const p of live) p.kill("SIGTERM");
  const timer = setTimeout(() => { for (const p of live) p.kill("SIGKILL"); }, graceMs);
  await Promise.all(live.map((p) => p.exited));
  clearTimeout(timer);
}

/** Writes an executable /bin/sh script `name` into `dir`; returns its path. */
export function writeFakeSolver(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body.trim()}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A fake solver that appends its pid to `pidFile`, sleeps `seconds` (ignoring stdin), then answers UNSAT (exit 20).
 * With `seconds` large it stands for a cube that is still running.
 */
export function sleepingSolver(dir: string, name: string, seconds: number, pidFile: string): string {
  return writeFakeSolver(dir, name, `echo $$ >> "${pidFile}"\nsleep ${seconds}\necho "s UNSATISFIABLE"\nexit 20`);
}

/** Pids recorded by fake solvers in `pidFile`. */
export function recordedPids(pidFile: string): number[] {
  if (!existsSync(pidFile)) return [];
  return readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number);
}

/** True while a process with this pid exists (and is not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Pids of the processes in process group `pgid` (from /proc). */
export function processGroupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "latin1");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
