/**
 * Configuration of the coordinator process: validated once at start, then frozen and passed down.
 */
import { fileProblem, readSmallFile } from "../cluster/read-bounded.js";
import { InvalidOptionError } from "../core/errors.js";
import type { NatsOptions } from "../cluster/nats.js";
import { logOptions, type LogFormat, type LogLevel } from "../cluster/log.js";
import { createNames, type Names } from "../proto/contract.js";
import { httpListenOption, parseListen } from "../cluster/http.js";
import { parseAllowedHosts } from "./serve/http-guard.js";
import { sizeLimits, type SizeLimits } from "../core/limits.js";
import { MAX_SIDE } from "../core/validate.js";
import { DEFAULT_LEASE_TIMINGS, leaseTimings, type LeaseTimings } from "./model/leader-lease.js";

export interface CoordinatorConfig {
  readonly nats: NatsOptions;
  readonly names: Names;
  /** Stream and bucket replicas. @default 1 */
  readonly replicas: number;
  /** JetStream ack wait of cube tasks: a worker must heartbeat within it. @default 30000 */
  readonly ackWaitMs: number;
  /** Deliveries of a cube before it is given up. @default 8 */
  readonly maxDeliver: number;
  /** Proof checks the coordinator takes itself at a time per certified run (DEFAULT_OWN_PROOF_CHECKS). */
  readonly ownProofChecks: number;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** gRPC API address (HOST:PORT), or null for none. @default "127.0.0.1:50051" */
  readonly grpc: string | null;
  /** Bearer token for mutating API calls (and reads with authReads). @default none: generated for a non-loopback gRPC or HTTP bind (coordinator/serve/auth.ts), none on loopback */
  readonly authToken?: string;
  readonly authReads: boolean;
  readonly grpcTlsCert?: string;
  readonly grpcTlsKey?: string;
  readonly grpcTlsClientCa?: string;
  /** HTTP address of /metrics and the dashboard (HOST:PORT), or null for none (`cubist coordinator` defaults it to 127.0.0.1:9464). @default null */
  readonly http: string | null;
  /** The `http` address is the default, not asked for: when it is taken, warn and go on without it. @default false */
  readonly httpOptional: boolean;
  /** Size limits of a run's board, base formula and puzzle text (`--max-cells`, `--max-formula-mb`, `--max-puzzle-mb`; core/limits.ts). */
  readonly limits: SizeLimits;
  /** Host names the dashboard's state-changing calls may use besides loopback names, IP literals and the bind host (coordinator/serve/http-guard.ts). @default [] */
  readonly httpAllowHosts: readonly string[];
  /** How long an ended run keeps its `run`-labelled metric series. @default 3600000 */
  readonly metricsRetentionMs: number;
  /** The leader lease (coordinator/model/leader-lease.ts): how long a standby waits for a silent leader. @default 6 s */
  readonly lease: LeaseTimings;
  /** Proofs handed over as files in this directory by workers in this process (worker/config.ts proofHandoffDir). @default null */
  readonly proofHandoffDir: string | null;
}

export const DEFAULT_GRPC = "127.0.0.1:50051";

export const DEFAULT_ACK_WAIT_MS = 30_000;
/** How long an ended run keeps its `run`-labelled metric series (coordinator/serve/metrics.ts). */
export const DEFAULT_METRICS_RETENTION_MS = 3_600_000;
/** Pauses with --now and worker shutdowns also use up deliveries, so this is generous. */
export const DEFAULT_MAX_DELIVER = 8;
export const DEFAULT_REPLICAS = 1;
export const DEFAULT_BATCH_SIZE = 1000;
/**
 * Proofs of a certified run the coordinator checks itself at once, at a time per run, before it sends checks to other
 * workers (coordinator/model/proof-checks.ts): on a small cluster a check task waits for a worker's slot to come free
 * and a run of two workers took 1.22x as long (BENCHMARKS.md "Checker slots"); past these the checks spread over the
 * workers.
 */
export const DEFAULT_OWN_PROOF_CHECKS = 2;
/** How often run records are written to the runs bucket. */
export const DEFAULT_STATUS_INTERVAL_MS = 1000;
/** How often the stall check looks for queued cubes that no consumer holds (coordinator/model/stall.ts). */
export const DEFAULT_STALL_CHECK_MS = 1000;

/** What the runs need of the configuration (coordinator/shell/run.ts, coordinator/model/run-model.ts). */
export interface CoordinatorSettings {
  /** JetStream redelivers a cube held this long without a heartbeat. @default 30000 */
  ackWaitMs: number;
  /** Deliveries (and error verdicts) of one cube before it is marked failed. @default 8 */
  maxDeliver: number;
  /** Cubes per ledger batch while publishing a split. @default 1000 */
  batchSize: number;
  /** The largest board and base formula a run may have (core/limits.ts). @default 256 cells, 128 MB */
  limits: SizeLimits;
  /** Proof checks the coordinator takes itself at a time per certified run before sending them to workers. @default 2 */
  ownProofChecks: number;
}

/** How the coordinator's size limits are raised, for its error messages. */
export const COORDINATOR_LIMIT_FLAGS = {
  cells: "cubist coordinator --max-cells N (CUBIST_MAX_CELLS)",
  formula: "cubist coordinator --max-formula-mb MB (CUBIST_MAX_FORMULA_MB)",
  puzzle: "cubist coordinator --max-puzzle-mb MB (CUBIST_MAX_PUZZLE_MB)",
};

export const DEFAULT_SETTINGS: Readonly<CoordinatorSettings> = Object.freeze({
  ackWaitMs: DEFAULT_ACK_WAIT_MS, maxDeliver: DEFAULT_MAX_DELIVER, batchSize: DEFAULT_BATCH_SIZE,
  limits: sizeLimits({}, COORDINATOR_LIMIT_FLAGS), ownProofChecks: DEFAULT_OWN_PROOF_CHECKS,
});

export function loadCoordinatorConfig(input: {
  nats: NatsOptions;
  prefix?: string;
  replicas?: number;
  proofHandoffDir?: string | null;
  ackWaitSec?: number;
  maxDeliver?: number;
  /** `--own-proof-checks`: DEFAULT_OWN_PROOF_CHECKS. */
  ownProofChecks?: number;
  logLevel?: string;
  logFormat?: string;
  grpc?: string | null;
  authToken?: string;
  authTokenFile?: string;
  authReads?: boolean;
  grpcTlsCert?: string;
  grpcTlsKey?: string;
  grpcTlsClientCa?: string;
  http?: string | null;
  httpOptional?: boolean;
  /** `--http-allow-host`: comma-separated host names. */
  httpAllowHosts?: string;
  maxCells?: number;
  maxFormulaMb?: number;
  /** `--max-puzzle-mb`: the largest puzzle text a run may be submitted with. @default 1 */
  maxPuzzleMb?: number;
  /** How the limits are raised, for error messages. @default COORDINATOR_LIMIT_FLAGS */
  limitFlags?: SizeLimits["raise"];
  metricsRetentionSec?: number;
  /** `--leader-lease`: seconds. */
  leaderLeaseSec?: number;
}): CoordinatorConfig {
  const replicas = input.replicas ?? DEFAULT_REPLICAS;
  if (![1, 3, 5].includes(replicas)) throw new InvalidOptionError("--replicas", `must be 1, 3 or 5, got ${replicas}`);
  const ackWaitMs = input.ackWaitSec !== undefined ? Math.round(input.ackWaitSec * 1000) : DEFAULT_ACK_WAIT_MS;
  if (ackWaitMs < 1000) throw new InvalidOptionError("--ack-wait", "must be at least 1 second");
  const maxDeliver = input.maxDeliver ?? DEFAULT_MAX_DELIVER;
  if (!Number.isInteger(maxDeliver) || maxDeliver < 1 || maxDeliver > 100) throw new InvalidOptionError("--max-deliver", `must be 1..100, got ${maxDeliver}`);
  const ownProofChecks = input.ownProofChecks ?? DEFAULT_OWN_PROOF_CHECKS;
  if (!Number.isInteger(ownProofChecks) || ownProofChecks < 0 || ownProofChecks > 64) throw new InvalidOptionError("--own-proof-checks", `must be 0..64, got ${ownProofChecks}`);
  const { logLevel, logFormat } = logOptions(input);
  let names: Names;
  try {
    names = createNames(input.prefix);
  } catch (err) {
    throw new InvalidOptionError("--prefix", (err as Error).message);
  }
  const grpc = input.grpc === undefined ? DEFAULT_GRPC : input.grpc;
  if (grpc !== null) parseListen(grpc, "--grpc");
  let authToken = input.authToken;
  if (input.authTokenFile) {
    try {
      authToken = readSmallFile(input.authTokenFile).toString("utf8").trim();
    } catch (err) {
      throw new InvalidOptionError("--auth-token-file", `${input.authTokenFile}: ${fileProblem(err)}`);
    }
  }
  if (authToken !== undefined && authToken.length < 8) throw new InvalidOptionError("--auth-token", "must be at least 8 characters");
  if (input.authReads && !authToken) throw new InvalidOptionError("--auth-reads", "needs --auth-token");
  const http = httpListenOption(input.http);
  if (input.maxCells !== undefined && (!Number.isInteger(input.maxCells) || input.maxCells < 1 || input.maxCells > MAX_SIDE * MAX_SIDE)) {
    throw new InvalidOptionError("--max-cells", `must be an integer in 1..${MAX_SIDE * MAX_SIDE}, got ${input.maxCells}`);
  }
  if (input.maxFormulaMb !== undefined && !(Number.isFinite(input.maxFormulaMb) && input.maxFormulaMb > 0 && input.maxFormulaMb <= 65536)) {
    throw new InvalidOptionError("--max-formula-mb", `must be a number in (0, 65536], got ${input.maxFormulaMb}`);
  }
  const limits = sizeLimits({ maxCells: input.maxCells, maxFormulaMb: input.maxFormulaMb, maxPuzzleMb: input.maxPuzzleMb }, input.limitFlags ?? COORDINATOR_LIMIT_FLAGS);
  const retentionSec = input.metricsRetentionSec ?? DEFAULT_METRICS_RETENTION_MS / 1000;
  if (!Number.isFinite(retentionSec) || retentionSec < 0) throw new InvalidOptionError("--metrics-retention", `must be a number of seconds >= 0, got ${retentionSec}`);
  let lease = DEFAULT_LEASE_TIMINGS;
  if (input.leaderLeaseSec !== undefined) {
    if (!(Number.isFinite(input.leaderLeaseSec) && input.leaderLeaseSec >= 1 && input.leaderLeaseSec <= 600)) {
      throw new InvalidOptionError("--leader-lease", `must be a number of seconds in 1..600, got ${input.leaderLeaseSec}`);
    }
    lease = leaseTimings(input.leaderLeaseSec * 1000);
  }
  return Object.freeze({
    nats: input.nats, names, replicas, ackWaitMs, maxDeliver, ownProofChecks, logLevel, logFormat, grpc, authToken,
    authReads: input.authReads ?? false, grpcTlsCert: input.grpcTlsCert, grpcTlsKey: input.grpcTlsKey, grpcTlsClientCa: input.grpcTlsClientCa,
    http, httpOptional: input.httpOptional ?? false, httpAllowHosts: Object.freeze(parseAllowedHosts(input.httpAllowHosts)), limits,
    metricsRetentionMs: Math.round(retentionSec * 1000), lease, proofHandoffDir: input.proofHandoffDir ?? null,
  });
}
