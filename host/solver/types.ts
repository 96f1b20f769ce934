/**
 * Types of the solver process runner: which solver, how to run it, what it is fed, and the
 * typed outcome. Expected results (sat / unsat / unknown) are values; a crash or garbage output
 * is an error (see errors.ts), never an outcome.
 */

/** The supported solvers. They differ in their option syntax and statistics lines. */
export type SolverName = "kissat" | "cadical";

/** The solvers runSolver knows, for validating names that come from config or the CLI. */
export const SOLVER_NAMES: readonly SolverName[] = ["kissat", "cadical"];

/** How to run the solver. All fields are optional. */
export interface SolverOptions {
  /** Which solver's command-line syntax and output to expect. @default "kissat" */
  solver?: SolverName;
  /** Path (or bare name looked up on PATH) of the executable. @default the solver name, looked up on PATH */
  binary?: string;
  /**
   * Wall-clock limit in seconds. Passed to the solver natively (kissat `--time=S`, cadical `-t S`, rounded up to
   * whole seconds, at least 1) and also enforced by a watchdog at `timeLimitSec * 1000 + watchdogSlackMs`
   * in case the solver ignores it. Either way the outcome is `unknown` / `time-limit`.
   */
  timeLimitSec?: number;
  /** Conflict limit (kissat `--conflicts=N`, cadical `-c N`). Reaching it gives `unknown` / `conflict-limit`. */
  conflictLimit?: number;
  /** Random seed (`--seed=N` for both solvers), 0 .. 2^31-1. */
  seed?: number;
  /** More arguments, placed after ours and before the input path (e.g. `["--check=0"]` for a debug kissat build). */
  extraArgs?: readonly string[];
  /**
   * Abort: SIGTERM to the solver's process group, SIGKILL after `killGraceMs`, and the promise settles only once
   * the process has exited. The outcome is `unknown` / `aborted` (unless the solver had already finished cleanly).
   */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL when we stop the solver (abort, watchdog, input error). @default 1000 */
  killGraceMs?: number;
  /** How long past `timeLimitSec` the watchdog waits before stopping the solver itself. @default 2000 */
  watchdogSlackMs?: number;
  /**
   * Write a DRAT proof to this path (binary DRAT; kissat and cadical both take it after the input file). Needs a
   * file input: the solvers cannot write a proof when reading stdin.
   */
  proofPath?: string;
  /** Called once with the solver's pid (which is also its process group id) right after the spawn. */
  onSpawn?: (pid: number) => void;
}

/** A path to a DIMACS file (passed to the solver as an argument), or chunks streamed to its stdin. */
export type SolverInput = string | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** Why a run ended without an answer. */
export type UnknownReason =
  /** The solver's own time limit, or our watchdog. */
  | "time-limit"
  /** The solver stopped at `conflictLimit`. */
  | "conflict-limit"
  /** Our AbortSignal fired and we stopped the solver. */
  | "aborted"
  /**
   * Someone else stopped it: it reported no result (exit 0, `s UNKNOWN`) without reaching a limit we set, or it
   * was terminated by SIGINT, SIGTERM or SIGHUP that we did not send (both solvers catch these, print their
   * statistics and re-raise the signal). Other signals (SIGSEGV, SIGKILL, ...) are crashes.
   */
  | "interrupted";

/** The typed result of one solver run. */
export type SolverOutcome =
  | {
      kind: "sat";
      /** model[v] = 1 if variable v is true, else 0; index 0 unused; length numVars + 1. */
      model: Uint8Array;
      stats: SolverStats;
    }
  | { kind: "unsat"; stats: SolverStats }
  | { kind: "unknown"; reason: UnknownReason; stats: SolverStats };

/** Measurements of one run. Counters are the solver's own statistics lines, absent when it printed none. */
export interface SolverStats {
  conflicts?: number;
  decisions?: number;
  propagations?: number;
  /** The solver's self-reported process (CPU) time in seconds (kissat `process-time`, cadical `total process time`). */
  solverSeconds?: number;
  /** Spawn to exit (all output read), measured by us. */
  wallMs: number;
  /** CPU time of the solver: its own report (exact) when printed, else the last of our /proc samples (see maxRssBytes). */
  cpuMs?: number;
  /**
   * Peak RSS of the solver: the highest /proc VmHWM we sampled while it ran (whenever it wrote output, at most every
   * 20 ms, and every second) when we got one, else the solver's own report. The latter is an upper bound only:
   * Linux carries the forked parent's (Node's) memory high-water mark across exec into the child's ru_maxrss.
   */
  maxRssBytes?: number;
  /** Exit status, null when the process was terminated by a signal (or never started). */
  exitCode: number | null;
  /** Terminating signal name (e.g. "SIGKILL"), null when it exited normally. */
  signal: string | null;
}
