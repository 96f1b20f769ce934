/**
 * runSolver: one kissat or cadical process on one DIMACS formula, returning a typed outcome.
 *
 * The process lifecycle is host/child.ts's (its own process group; a stop is SIGTERM, then SIGKILL after
 * `killGraceMs`; the promise settles only after the exit and the end of all output, so no process outlives a call).
 * What this file adds: the input streamed to stdin when it is not a file, stdout parsed as it arrives, a watchdog
 * past the time limit, /proc samples of the solver's memory, and the classification of how it ended. Called once
 * per cube, so it keeps per-call work small: a cached binary lookup, one spawn, no shell, byte-level parsing.
 */

import { runChild } from "../child.js";
import { buildSolverArgs, DEFAULT_KILL_GRACE_MS, DEFAULT_WATCHDOG_SLACK_MS, validateOptions } from "./args.js";
import { classifyRun } from "./classify.js";
import { SolverCrashedError, SolverNotFoundError } from "./errors.js";
import { forgetSolverLocations, locateSolverCached, speedArgs } from "./locate.js";
import { SolverOutputParser } from "./output-parser.js";
import { ProcSampler } from "./proc-sample.js";
import type { SolverInput, SolverOptions, SolverOutcome, SolverStats } from "./types.js";

/** How much of the end of stderr is kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

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
  const args = buildSolverArgs(solver, { ...options, extraArgs: [...(await speedArgs(binary, solver)), ...(options.extraArgs ?? [])] }, file);

  const parser = new SolverOutputParser(numVars);
  const watch: { sampler: ProcSampler | null } = { sampler: null };
  const slack = options.watchdogSlackMs ?? DEFAULT_WATCHDOG_SLACK_MS;
  const run = await runChild(binary, args, {
    input: file === undefined ? input : undefined,
    onSpawn: (pid) => {
      watch.sampler = new ProcSampler(pid);
      options.onSpawn?.(pid);
    },
    onStdout: (chunk) => {
      watch.sampler?.sampleSoon();
      parser.push(chunk);
    },
    onExit: () => watch.sampler?.stop(),
    beforeKill: () => watch.sampler?.sampleNow(),
    signal: abortSignal,
    timeLimitMs: options.timeLimitSec !== undefined ? options.timeLimitSec * 1000 + slack : undefined,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    stderrBytes: STDERR_TAIL_BYTES,
  });
  watch.sampler?.stop();
  parser.end();
  if (run.spawnError !== null) {
    const code = run.spawnError.code;
    if (code === "ENOENT" || code === "EACCES" || code === "ENOTDIR") {
      forgetSolverLocations();
      throw new SolverNotFoundError(binary, `cannot execute it (${code})`, { cause: run.spawnError });
    }
    throw new SolverCrashedError(binary, null, null, run.spawnError.message, "", { cause: run.spawnError });
  }
  if (run.thrown !== null) throw run.thrown.error;
  const stats = buildStats(parser, watch.sampler, run.wallMs, run.code, run.signal);
  const stoppedBy = run.stoppedBy === "time-limit" || run.stoppedBy === "aborted" ? run.stoppedBy : null;
  return classifyRun({ binary, options, exitCode: run.code, signal: run.signal, stoppedBy, parser, stats, stderrTail: run.stderr });
}
