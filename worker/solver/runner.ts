/**
 * runSolver: one kissat or cadical process on one DIMACS formula, returning a typed outcome.
 *
 * Lifecycle: spawn detached (the solver leads its own process group), stream the input to stdin if it is not a
 * file, parse stdout as it arrives. To stop it (abort, watchdog past the time limit, an input that throws) we send
 * SIGTERM to the group, then SIGKILL after `killGraceMs`. When the solver exits we SIGKILL the group once more
 * to take any stragglers with it, and the promise settles only after the exit and the end of all output, so no
 * process outlives a call. Called once per cube, so it keeps per-call work small: a cached binary lookup, one
 * spawn, no shell, byte-level parsing.
 */

import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { buildSolverArgs, DEFAULT_KILL_GRACE_MS, DEFAULT_WATCHDOG_SLACK_MS, validateOptions } from "./args.js";
import { classifyRun } from "./classify.js";
import { SolverCrashedError, SolverNotFoundError } from "./errors.js";
import { feedInput } from "./feed-input.js";
import { forgetSolverLocations, locateSolverCached, speedArgs } from "./locate.js";
import { SolverOutputParser } from "./output-parser.js";
import { ProcSampler } from "./proc-sample.js";
import { signalGroup, TailBuffer } from "../process-group.js";
import type { SolverInput, SolverOptions, SolverOutcome, SolverStats } from "./types.js";

/** How much of the end of stderr is kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

/** Why we stopped the solver; "caller-error" when the input (or onSpawn) threw. */
type StopReason = "time-limit" | "aborted" | "caller-error";

/** Copies the defined values only, so stats objects carry no `undefined` keys. */
function buildStats(
  parser: SolverOutputParser,
  sampler: ProcSampler | null,
  wallMs: number,
  exitCode: number | null,
  signal: string | null,
): SolverStats {
  const parsed = parser.stats;
  const stats: SolverStats = { wallMs, exitCode, signal };
  if (parsed.conflicts !== undefined) stats.conflicts = parsed.conflicts;
  if (parsed.decisions !== undefined) stats.decisions = parsed.decisions;
  if (parsed.propagations !== undefined) stats.propagations = parsed.propagations;
  if (parsed.solverSeconds !== undefined) stats.solverSeconds = parsed.solverSeconds;
  const cpuMs = parsed.solverSeconds !== undefined ? Math.round(parsed.solverSeconds * 1000) : sampler?.last.cpuMs;
  if (cpuMs !== undefined) stats.cpuMs = cpuMs;
  // Our own VmHWM samples first: the solver's ru_maxrss report is inflated by the parent's memory (proc-sample.ts).
  const rss = sampler?.last.maxRssBytes ?? parsed.maxRssBytes;
  if (rss !== undefined) stats.maxRssBytes = rss;
  return stats;
}

/**
 * Runs the solver on `input` (a .cnf path, or chunks streamed to stdin) with `numVars` variables.
 * Resolves with sat (and the model), unsat, or unknown (time-limit, conflict-limit, aborted, interrupted).
 * @throws InvalidOptionError for bad options, SolverNotFoundError, SolverCrashedError, SolverOutputError, or the
 *   error thrown by the input iterable; in every case only after the solver process is gone.
 */
export async function runSolver(
  input: SolverInput,
  numVars: number,
  options: SolverOptions = {},
): Promise<SolverOutcome> {
  const solver = validateOptions(numVars, options);
  const binary = locateSolverCached(options.binary ?? solver);
  const abortSignal = options.signal;
  if (abortSignal?.aborted) return { kind: "unknown", reason: "aborted", stats: { wallMs: 0, exitCode: null, signal: null } };
  const file = typeof input === "string" ? input : undefined;
  const args = buildSolverArgs(solver, { ...options, extraArgs: [...speedArgs(binary, solver), ...(options.extraArgs ?? [])] }, file);
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;

  return new Promise<SolverOutcome>((resolve, reject) => {
    const started = performance.now();
    const child = spawn(binary, args, {
      detached: true,
      stdio: [file === undefined ? "pipe" : "ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    const sampler = pid !== undefined ? new ProcSampler(pid) : null;
    const parser = new SolverOutputParser(numVars);
    const stderr = new TailBuffer(STDERR_TAIL_BYTES);
    let spawnError: NodeJS.ErrnoException | null = null;
    let callerError: { error: unknown } | null = null;
    let stoppedBy: StopReason | null = null;
    let exited = false;
    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let watchdog: NodeJS.Timeout | null = null;
    let killTimer: NodeJS.Timeout | null = null;

    const stop = (reason: StopReason): void => {
      if (pid === undefined || exited || stoppedBy !== null) return;
      stoppedBy = reason;
      signalGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => {
        sampler?.sampleNow();
        signalGroup(pid, "SIGKILL");
      }, killGraceMs);
    };
    const failByCaller = (error: unknown): void => {
      callerError ??= { error };
      stop("caller-error");
    };
    const onAbort = (): void => stop("aborted");

    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError ??= error;
    });
    // A solver that exits before reading all its input breaks the pipe; its exit status says what happened.
    child.stdin?.on("error", () => {});
    child.stdout!.on("data", (chunk: Buffer) => {
      sampler?.sampleSoon();
      parser.push(chunk);
    });
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));

    child.on("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      if (watchdog !== null) clearTimeout(watchdog);
      if (killTimer !== null) clearTimeout(killTimer);
      sampler?.stop();
      abortSignal?.removeEventListener("abort", onAbort);
      // Anything the solver left running in its group (the group id stays reserved while it has members).
      if (pid !== undefined) signalGroup(pid, "SIGKILL");
    });

    child.on("close", () => {
      const wallMs = Math.round((performance.now() - started) * 1000) / 1000;
      child.stdin?.destroy();
      parser.end();
      if (spawnError !== null) {
        const code = spawnError.code;
        if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR") {
          forgetSolverLocations();
          reject(new SolverNotFoundError(binary, `cannot execute it (${code})`, { cause: spawnError }));
        } else {
          reject(new SolverCrashedError(binary, null, null, spawnError.message, "", { cause: spawnError }));
        }
        return;
      }
      if (callerError !== null) {
        reject(callerError.error);
        return;
      }
      const stats = buildStats(parser, sampler, wallMs, exitCode, exitSignal);
      try {
        resolve(
          classifyRun({
            binary,
            options,
            exitCode,
            signal: exitSignal,
            stoppedBy: stoppedBy === "caller-error" ? null : stoppedBy,
            parser,
            stats,
            stderrTail: stderr.text(),
          }),
        );
      } catch (error) {
        reject(error);
      }
    });

    if (pid === undefined) return; // spawn failed: 'error' and 'close' follow.
    abortSignal?.addEventListener("abort", onAbort, { once: true });
    if (options.timeLimitSec !== undefined) {
      const slack = options.watchdogSlackMs ?? DEFAULT_WATCHDOG_SLACK_MS;
      watchdog = setTimeout(() => stop("time-limit"), options.timeLimitSec * 1000 + slack);
    }
    if (options.onSpawn) {
      try {
        options.onSpawn(pid);
      } catch (error) {
        failByCaller(error);
      }
    }
    if (file === undefined && typeof input !== "string") {
      feedInput(child.stdin!, input, () => exited || stoppedBy !== null).catch(failByCaller);
    }
  });
}
