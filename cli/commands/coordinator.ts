import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { LOG_OPTIONS } from "../log-options.js";
import { NATS_OPTIONS, natsOptionsFrom } from "../nats-options.js";
import { ENCODING_OPTIONS } from "../encode-options.js";
import { RUN_OPTIONS, runRequestFrom } from "../run-options.js";
import { PUZZLE_OPTIONS } from "../io.js";
import { runPuzzleText } from "../triangle-commands.js";
import { DEFAULT_ACK_WAIT_MS, DEFAULT_GRPC, DEFAULT_MAX_DELIVER, DEFAULT_METRICS_RETENTION_MS, DEFAULT_OWN_PROOF_CHECKS, DEFAULT_REPLICAS, loadCoordinatorConfig } from "../../coordinator/config.js";
import { DEFAULT_LEASE_TIMINGS } from "../../coordinator/model/leader-lease.js";
import { watchParent } from "../parent-watch.js";
import { startCoordinatorProcess } from "../../coordinator/main.js";
import { SOLVER_NAMES } from "../../host/solver/index.js";
import { DEFAULT_COORDINATOR_HTTP } from "../../cluster/http.js";
import { DEFAULT_MAX_CELLS, DEFAULT_MAX_FORMULA_MB, DEFAULT_MAX_PUZZLE_MB, MAX_PUZZLE_MB } from "../../core/limits.js";

export const spec: CommandSpec = {
  name: "coordinator",
  summary: "Run the coordinator: it keeps the runs, splits puzzles into cubes, dispatches them over NATS JetStream and verifies every answer. Long-running; stop with SIGTERM.",
  usage: "cubist coordinator --nats URL [--puzzle FILE ...run options]",
  positionals: { min: 0, max: 0 },
  options: {
    ...NATS_OPTIONS,
    replicas: { type: "integer", arg: "R", description: "JetStream replicas of streams and buckets (1, 3 or 5)", env: "CUBIST_REPLICAS", default: DEFAULT_REPLICAS },
    "ack-wait": { type: "number", arg: "S", description: "seconds a worker may hold a cube without a heartbeat", env: "CUBIST_ACK_WAIT", default: DEFAULT_ACK_WAIT_MS / 1000 },
    "max-deliver": { type: "integer", arg: "N", description: "deliveries of a cube before it is marked failed", env: "CUBIST_MAX_DELIVER", default: DEFAULT_MAX_DELIVER },
    "own-proof-checks": { type: "integer", arg: "N", description: "certified runs: proofs the coordinator checks itself at a time per run before it sends checks to other workers (0: workers check every proof but its samples and disputes; docs/operations.md \"Certificates\")", env: "CUBIST_OWN_PROOF_CHECKS", default: DEFAULT_OWN_PROOF_CHECKS, min: 0, max: 64 },
    "leader-lease": { type: "number", arg: "S", description: "seconds a standby coordinator waits for a silent leader before it takes over (docs/operations.md \"Leadership\")", env: "CUBIST_LEADER_LEASE", default: DEFAULT_LEASE_TIMINGS.leaseMs / 1000 },
    ...LOG_OPTIONS,
    grpc: { type: "string", arg: "HOST:PORT", description: "gRPC API address (\"off\" for none)", env: "CUBIST_GRPC", default: DEFAULT_GRPC },
    "auth-token": { type: "string", arg: "TOKEN", description: "bearer token required for mutating API calls", env: "CUBIST_AUTH_TOKEN" },
    "auth-token-file": { type: "string", arg: "FILE", description: "read the bearer token from a file", env: "CUBIST_AUTH_TOKEN_FILE" },
    "auth-reads": { type: "boolean", description: "require the token for read calls too", env: "CUBIST_AUTH_READS" },
    "grpc-tls-cert": { type: "string", arg: "FILE", description: "gRPC TLS certificate (PEM)", env: "CUBIST_GRPC_TLS_CERT" },
    "grpc-tls-key": { type: "string", arg: "FILE", description: "gRPC TLS private key (PEM)", env: "CUBIST_GRPC_TLS_KEY" },
    "grpc-tls-client-ca": { type: "string", arg: "FILE", description: "CA of client certificates (mutual TLS)", env: "CUBIST_GRPC_TLS_CLIENT_CA" },
    http: { type: "string", arg: "HOST:PORT", description: `HTTP address of /metrics and the web dashboard ("off" for none; default ${DEFAULT_COORDINATOR_HTTP}, skipped with a warning when taken)`, env: "CUBIST_HTTP" },
    "http-allow-host": { type: "string", arg: "NAMES", description: "host names (comma-separated) the dashboard may be reached under for pause/cancel/re-split; loopback names and IP addresses always work (a DNS-rebinding guard)", env: "CUBIST_HTTP_ALLOW_HOST" },
    "max-cells": { type: "integer", arg: "N", description: `largest board a run may have, in cells (default ${DEFAULT_MAX_CELLS}: Eternity II; docs/operations.md "Limits")`, env: "CUBIST_MAX_CELLS", min: 1, max: 4096 },
    "max-formula-mb": { type: "number", arg: "MB", description: `largest base formula (DIMACS) a run may have (default ${DEFAULT_MAX_FORMULA_MB})`, env: "CUBIST_MAX_FORMULA_MB" },
    "metrics-retention": { type: "number", arg: "S", description: "seconds an ended run keeps its run-labelled metric series", env: "CUBIST_METRICS_RETENTION", default: DEFAULT_METRICS_RETENTION_MS / 1000, min: 0 },
    puzzle: { type: "string", arg: "FILE", description: "submit a run for this puzzle at start" },
    ...PUZZLE_OPTIONS,
    "max-puzzle-mb": { ...PUZZLE_OPTIONS["max-puzzle-mb"], description: `largest puzzle text a run may be submitted with, and largest --puzzle or --hints file read, in MB (default ${DEFAULT_MAX_PUZZLE_MB}, at most ${MAX_PUZZLE_MB})` },
    ...ENCODING_OPTIONS,
    solver: { type: "string", arg: "NAME", description: "SAT solver the workers run beside the placement engine (none: the engine alone, the default above 200 cells and on near-unique boards)", choices: [...SOLVER_NAMES, "none"] },
    seed: { type: "integer", arg: "N", description: "solver seed", min: 0, max: 2147483647 },
    ...RUN_OPTIONS,
  },
};

export async function run(values: ParsedValues): Promise<number> {
  const config = loadCoordinatorConfig({
    nats: natsOptionsFrom(values, "cubist-coordinator"),
    prefix: values.prefix as string,
    replicas: values.replicas as number,
    ackWaitSec: values["ack-wait"] as number,
    maxDeliver: values["max-deliver"] as number,
    ownProofChecks: values["own-proof-checks"] as number,
    logLevel: values["log-level"] as string,
    logFormat: values["log-format"] as string,
    grpc: values.grpc === "off" ? null : (values.grpc as string),
    authToken: values["auth-token"] as string | undefined,
    authTokenFile: values["auth-token-file"] as string | undefined,
    authReads: values["auth-reads"] === true,
    grpcTlsCert: values["grpc-tls-cert"] as string | undefined,
    grpcTlsKey: values["grpc-tls-key"] as string | undefined,
    grpcTlsClientCa: values["grpc-tls-client-ca"] as string | undefined,
    http: (values.http as string | undefined) ?? DEFAULT_COORDINATOR_HTTP,
    httpOptional: values.http === undefined,
    httpAllowHosts: values["http-allow-host"] as string | undefined,
    maxCells: values["max-cells"] as number | undefined,
    maxFormulaMb: values["max-formula-mb"] as number | undefined,
    maxPuzzleMb: values["max-puzzle-mb"] as number | undefined,
    metricsRetentionSec: values["metrics-retention"] as number,
    leaderLeaseSec: values["leader-lease"] as number,
  });
  const proc = await startCoordinatorProcess(config);
  if (typeof values.puzzle === "string" && proc.coordinator.role === "standby") {
    proc.log.warn("a standby submits nothing: --puzzle is ignored; submit it to the leader", { puzzle: values.puzzle, leader: proc.coordinator.leader?.grpc ?? "unknown" });
  } else if (typeof values.puzzle === "string") {
    const { text, format } = await runPuzzleText(values.puzzle, values, true);
    const run = await proc.coordinator.submitRun({ ...runRequestFrom(values, text, values.puzzle), format });
    proc.log.info("run submitted", { run: run.id, puzzle: values.puzzle });
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", () => resolve());
    process.once("SIGTERM", () => resolve());
    watchParent(() => {
      proc.log.warn("the parent process is gone (a launcher killed without passing the signal on)");
      resolve();
    });
  });
  proc.log.info("stopping");
  await proc.close();
  return EXIT.OK;
}
