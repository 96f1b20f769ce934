/**
 * Configuration of the worker process: validated once at start (including that the solver binary exists and is
 * executable), then frozen and passed down. Every field has a default except the NATS server URL, which
 * `natsOptionsFrom` defaults for the CLI.
 */

import { availableParallelism, homedir, hostname } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { InvalidOptionError } from "../core/errors.js";
import type { NatsOptions } from "../cluster/nats.js";
import { logOptions, type LogFormat, type LogLevel } from "../cluster/log.js";
import { createNames, MAX_STATUS_INTERVAL_MS, WORKER_ID_RE, WORKER_ID_RULE, type Names } from "../proto/contract.js";
import { locateEngine } from "./engine/index.js";
import { locateSolver, SOLVER_NAMES, type SolverName } from "../host/solver/index.js";
import { httpListenOption } from "../cluster/http.js";

export interface WorkerConfig {
  readonly nats: NatsOptions;
  readonly names: Names;
  /** Solver slots: cubes solved at once. @default the number of CPUs (os.availableParallelism()) */
  readonly concurrency: number;
  /** The solver run when a task names none; also the one `solverPath` points at. @default "kissat" */
  readonly solver: SolverName;
  /** Absolute path of the `solver` executable, checked at load time. @default `solver` looked up on PATH */
  readonly solverPath: string;
  /** Extra solver arguments, after ours (e.g. tuning flags). @default [] */
  readonly solverArgs: readonly string[];
  /** The native placement engine, checked at load time. @default CUBIST_ENGINE, else the build's dist/engine/cubist-engine */
  readonly enginePath: string;
  /** Where base formulas are cached. @default `$XDG_CACHE_HOME/cubist/formulas`, else `~/.cache/cubist/formulas` */
  readonly cacheDir: string;
  /** This worker's name in verdicts, heartbeats and subjects (WORKER_ID_RE: [A-Za-z0-9_-], 1..64, not starting with _ or -). @default `<hostname>-<pid>`, sanitised */
  readonly workerId: string;
  /** Host name reported in verdicts and heartbeats. @default os.hostname() */
  readonly host: string;
  /** Time between two WorkerStatus heartbeats, at most MAX_STATUS_INTERVAL_MS (proto/contract.ts). @default 2000 */
  readonly statusIntervalMs: number;
  /** On SIGTERM/SIGINT: how long running cubes may go on before they are stopped and handed back. @default 20000 */
  readonly shutdownGraceMs: number;
  /** nak delay after a solver error or a missing formula (grows with the delivery count, up to 30 s). @default 2000 */
  readonly retryDelayMs: number;
  /** Errors of its own in a row that quarantine the worker (worker/quarantine.ts); 0 = never. @default 3 */
  readonly quarantineAfter: number;
  /** How long the first quarantine lasts (doubles while errors go on). @default 600000 */
  readonly quarantineMs: number;
  /** Long-poll length of a pull when one run is running (JetStream minimum: 1000). @default 5000 */
  readonly longPollMs: number;
  /** How long to wait at start for the coordinator to create the streams and buckets; 0 = forever. @default 0 */
  readonly layoutWaitMs: number;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** HTTP address of /metrics and /healthz (HOST:PORT), or null for none. @default null */
  readonly http: string | null;
  /**
   * The placement prover's proof of a certified cube: binary DRAT for drat-trim, or LRAT about the cube's formula
   * for lrat-check (about 27 times larger, docs/operations.md "Certificates"). @default "drat"
   */
  readonly proofFormat: ProofFormat;
  /**
   * A directory this process's coordinator also reads proofs from: proofs are handed over there as files instead of
   * through the proofs stream (cluster/proof-stream.ts). Only the embedded cluster of `cubist solve` sets it
   * (cli/local-cluster.ts). @default null
   */
  readonly proofHandoffDir: string | null;
  /** drat-trim, which this worker runs on check tasks of DRAT proofs (CubeTask.check). @default "drat-trim" on PATH */
  readonly dratTrimPath: string;
  /** lrat-check, which this worker runs on check tasks of LRAT proofs. @default "lrat-check" on PATH */
  readonly lratCheckPath: string;
}

export const PROOF_FORMATS = ["drat", "lrat"] as const;
export type ProofFormat = (typeof PROOF_FORMATS)[number];

export const DEFAULT_SOLVER: SolverName = "kissat";
export const DEFAULT_STATUS_INTERVAL_MS = 2000;
export const DEFAULT_SHUTDOWN_GRACE_MS = 20_000;
export const DEFAULT_RETRY_DELAY_MS = 2000;
export const DEFAULT_LONG_POLL_MS = 5000;
export const DEFAULT_QUARANTINE_AFTER = 3;
export const DEFAULT_QUARANTINE_MS = 600_000;
export const DEFAULT_LAYOUT_WAIT_MS = 0;
export const MAX_CONCURRENCY = 1024;
/** Worker ids are NATS subject tokens and appear in every verdict (the pattern is the wire contract's). */
export { WORKER_ID_RE };

/** Input of loadWorkerConfig: CLI values (already typed by cli/args.ts) or values from a test. */
export interface WorkerConfigInput {
  nats: NatsOptions;
  prefix?: string;
  concurrency?: number;
  solver?: string;
  solverPath?: string;
  solverArgs?: readonly string[];
  enginePath?: string;
  cacheDir?: string;
  workerId?: string;
  host?: string;
  statusIntervalMs?: number;
  shutdownGraceMs?: number;
  retryDelayMs?: number;
  quarantineAfter?: number;
  quarantineMs?: number;
  longPollMs?: number;
  layoutWaitMs?: number;
  logLevel?: string;
  logFormat?: string;
  /** HOST:PORT, "off" or null. */
  http?: string | null;
  proofFormat?: string;
  proofHandoffDir?: string | null;
  dratTrimPath?: string;
  lratCheckPath?: string;
}

/** `<hostname>-<pid>` made into a worker id: anything outside [A-Za-z0-9_-] becomes "-", no leading _ or -, at most 64 chars. */
export function defaultWorkerId(host: string = hostname(), pid: number = process.pid): string {
  const suffix = `-${pid}`;
  const base = host.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^[_-]+|-+$/g, "").slice(0, 64 - suffix.length) || "worker";
  return `${base}${suffix}`;
}

/** `$XDG_CACHE_HOME/cubist/formulas` when XDG_CACHE_HOME is an absolute path, else `~/.cache/cubist/formulas`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(homedir(), ".cache");
  return join(base, "cubist", "formulas");
}

function integerIn(option: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw new InvalidOptionError(option, `must be an integer in ${min}..${max}, got ${v}`);
  return v;
}

/** A proof checker's path (made absolute when it names a file) or its name on PATH. */
function checkerPath(value: string | undefined, name: string): string {
  if (value === undefined || value === "") return name;
  return value.includes("/") ? resolve(value) : value;
}

/**
 * Validates the input and returns a frozen config.
 * @throws InvalidOptionError naming the flag; SolverNotFoundError when the solver is missing or not executable.
 */
export function loadWorkerConfig(input: WorkerConfigInput, env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  let names: Names;
  try {
    names = createNames(input.prefix);
  } catch (err) {
    throw new InvalidOptionError("--prefix", (err as Error).message);
  }
  const concurrency = integerIn("--concurrency", input.concurrency, availableParallelism(), 1, MAX_CONCURRENCY);
  const solver = (input.solver ?? DEFAULT_SOLVER) as SolverName;
  if (!SOLVER_NAMES.includes(solver)) throw new InvalidOptionError("--solver", `must be one of ${SOLVER_NAMES.join(", ")}, got "${solver}"`);
  // A missing solver is a start-up error, not a stream of ERROR verdicts.
  const solverPath = locateSolver(input.solverPath ?? solver, env);
  const solverArgs = [...(input.solverArgs ?? [])];
  for (const a of solverArgs) if (typeof a !== "string" || a === "") throw new InvalidOptionError("--solver-arg", "must be a non-empty string");
  // Like the solver, a missing engine is a start-up error.
  const enginePath = input.enginePath !== undefined ? locateEngine({ CUBIST_ENGINE: resolve(input.enginePath) }) : locateEngine(env);
  const cacheDir = resolve(input.cacheDir ?? defaultCacheDir(env));
  const workerId = input.workerId ?? defaultWorkerId();
  if (!WORKER_ID_RE.test(workerId)) {
    throw new InvalidOptionError("--id", `must be ${WORKER_ID_RULE}; got "${JSON.stringify(workerId).slice(1, -1).slice(0, 80)}"`);
  }
  const host = (input.host ?? hostname()).slice(0, 128);
  const statusIntervalMs = integerIn("--status-interval", input.statusIntervalMs, DEFAULT_STATUS_INTERVAL_MS, 100, MAX_STATUS_INTERVAL_MS);
  const shutdownGraceMs = integerIn("--grace", input.shutdownGraceMs, DEFAULT_SHUTDOWN_GRACE_MS, 0, 86_400_000);
  const retryDelayMs = integerIn("retryDelayMs", input.retryDelayMs, DEFAULT_RETRY_DELAY_MS, 0, 3_600_000);
  const quarantineAfter = integerIn("--quarantine-after", input.quarantineAfter, DEFAULT_QUARANTINE_AFTER, 0, 1_000_000);
  const quarantineMs = integerIn("--quarantine-time", input.quarantineMs, DEFAULT_QUARANTINE_MS, 0, 86_400_000);
  const longPollMs = integerIn("longPollMs", input.longPollMs, DEFAULT_LONG_POLL_MS, 1000, 300_000);
  const layoutWaitMs = integerIn("--layout-wait", input.layoutWaitMs, DEFAULT_LAYOUT_WAIT_MS, 0, Number.MAX_SAFE_INTEGER);
  const { logLevel, logFormat } = logOptions(input);
  const proofFormat = (input.proofFormat ?? "drat") as ProofFormat;
  if (!PROOF_FORMATS.includes(proofFormat)) throw new InvalidOptionError("--proof-format", `must be one of ${PROOF_FORMATS.join(", ")}, got "${proofFormat}"`);
  return Object.freeze({
    nats: Object.freeze({ ...input.nats }),
    names,
    concurrency,
    solver,
    solverPath,
    solverArgs: Object.freeze(solverArgs),
    enginePath,
    cacheDir,
    workerId,
    host,
    statusIntervalMs,
    shutdownGraceMs,
    retryDelayMs,
    quarantineAfter,
    quarantineMs,
    longPollMs,
    layoutWaitMs,
    logLevel,
    logFormat,
    http: httpListenOption(input.http),
    proofFormat,
    proofHandoffDir: input.proofHandoffDir ?? null,
    dratTrimPath: checkerPath(input.dratTrimPath, "drat-trim"),
    lratCheckPath: checkerPath(input.lratCheckPath, "lrat-check"),
  });
}
