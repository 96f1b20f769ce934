/**
 * The embedded local cluster behind `cubist solve --workers N`: a private nats-server (free port, temporary
 * JetStream store), one coordinator and N workers in this process, each worker with its own NATS connection
 * (real NATS and JetStream, as on a cluster; the solving happens in the workers' solver and engine processes).
 * It solves one puzzle and tears everything down — also on Ctrl-C — leaving no process and no temp directory
 * behind.
 *
 * Start-up is what a quick board pays for (BENCHMARKS.md "Fixed costs"), so: nats-server starts while the
 * coordinator's and workers' modules load, the workers start in this process once the coordinator has created the
 * JetStream layout (no worker process start-up, no layout polling), the end of the run is noticed when it is carried
 * out (an event, not a poll), and the teardown stops running cubes at once (the run is over: no grace period).
 *
 * The private nats-server is locked down as a deployed one (docs/operations.md "Security"): the coordinator has its
 * own user, each worker its own with a worker's permissions (cluster/nats-users.ts), all with fresh random
 * passwords that exist only in this process and the server's configuration file in the temporary directory; a
 * client without credentials is refused.
 *
 * With `natsUrl` an existing NATS is used instead, with no credentials (the user's own server); the run then lives
 * under a private prefix whose streams and buckets are deleted at the end.
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, type NatsServer } from "./nats-launcher.js";
import { accountsConfig, cubistUsers } from "../cluster/nats-users.js";
import { createNames } from "../proto/contract.js";
import { DEFAULT_SIZE_LIMITS } from "../core/limits.js";
import type { CoordinatorProcess, RunController } from "../coordinator/main.js";
import type { WorkerProcess } from "../worker/main.js";
import type { RunRequest } from "../coordinator/run-spec.js";
import type { Logger } from "../cluster/log.js";
import type { RunState, RunStatus, Solution } from "../proto/gen/cubist/v1/run.js";
import type { Names } from "../proto/contract.js";

export interface LocalClusterOptions {
  workers: number;
  /** Slots per worker. @default 1 */
  concurrency?: number;
  natsUrl?: string;
  solverPath?: string;
  /** Verbose: component logs to stderr. */
  verbose?: boolean;
  signal?: AbortSignal;
  /** Called every 250 ms with the run's status. */
  onStatus?: (status: RunStatus) => void;
  ackWaitSec?: number;
  maxDeliver?: number;
  /** A certified UNSAT run: write its certificate bundle here (certify/bundle.ts) before the cluster goes. */
  certificateDir?: string;
  /** The workers' placement-prover proofs of certified cubes (worker/config.ts). @default "drat" */
  proofFormat?: string;
  /** The embedded coordinator's size limits (`solve --max-cells`, `--max-formula-mb`). @default core/limits.ts */
  maxCells?: number;
  maxFormulaMb?: number;
  /** The embedded coordinator's limit on a run's puzzle text, a formula run's DIMACS (`solve --max-puzzle-mb`). @default 1 */
  maxPuzzleMb?: number;
}

/**
 * When each phase of the embedded cluster ended, in milliseconds since solveOnLocalCluster was called (so each
 * phase's cost is the difference to the one before; -1: not reached). `firstVerdict` is when the coordinator
 * received the first verdict of the run.
 */
export interface LocalClusterPhases {
  /** nats-server reported its port, or the given NATS was chosen (and the cluster's modules are loaded). */
  natsReady: number;
  /** The coordinator is connected and has created the JetStream layout. */
  coordinatorReady: number;
  /** The run is submitted: formula encoded and uploaded (a score run has none), recorded; its split goes on in the background. */
  submitted: number;
  /** Every worker is connected and consuming. */
  workersReady: number;
  firstVerdict: number;
  /** The run reached its final state (a SAT board verified by the coordinator, UNSAT, failed or cancelled). */
  ended: number;
  /** Workers, coordinator and nats-server stopped, the temp directory removed. */
  stopped: number;
}

export type LocalClusterResult = {
  state: "sat" | "unsat" | "failed" | "cancelled";
  status: RunStatus;
  message: string;
  workers: number;
  runId: string;
  /** Where the certificate bundle was written (certified UNSAT with `certificateDir`), else null. */
  certificate: string | null;
  /** When each phase ended (filled in until `stopped`, which is set just before the result is returned). */
  phases: LocalClusterPhases;
  /** The run's recorded solutions, each verified (a first-solution run: its board; a counting run: the first 100, or with every_board every board). */
  solutions: readonly Solution[];
};

export async function solveOnLocalCluster(request: RunRequest, options: LocalClusterOptions): Promise<LocalClusterResult> {
  const t0 = performance.now();
  const phases: LocalClusterPhases = { natsReady: -1, coordinatorReady: -1, submitted: -1, workersReady: -1, firstVerdict: -1, ended: -1, stopped: -1 };
  const mark = (phase: keyof LocalClusterPhases): void => {
    phases[phase] = Math.round(performance.now() - t0);
  };
  const temp = await mkdtemp(join(tmpdir(), "cubist-local-"));
  // The coordinator and the workers share this process and machine: proofs are handed over as files here, not
  // carried through NATS (cluster/proof-stream.ts; the coordinator still hashes and checks each one).
  const proofs = join(temp, "proofs");
  await mkdir(proofs);
  let nats: NatsServer | undefined;
  let proc: CoordinatorProcess | undefined;
  const workers: WorkerProcess[] = [];
  const prefix = options.natsUrl ? `cubistlocal${randomBytes(4).toString("hex")}` : "cubist";
  const workerIds = Array.from({ length: options.workers }, (_, i) => `local-${i + 1}`);
  // nats-server starts first, and its start overlaps loading the modules below.
  const natsStarting = options.natsUrl ? null : startLocalNats(join(temp, "jetstream"), workerIds).then((s) => {
    nats = s.server;
    return s;
  });
  natsStarting?.catch(() => undefined);
  const stopping = new AbortController();
  let workersStarting: Promise<void> | undefined;
  try {
    const [{ startCoordinatorProcess }, { loadCoordinatorConfig }, { startWorkerProcess }, { loadWorkerConfig }, { createLogger, silentLogger }, { RunState }] = await Promise.all([
      import("../coordinator/main.js"), import("../coordinator/config.js"), import("../worker/main.js"), import("../worker/config.js"), import("../cluster/log.js"),
      import("../proto/gen/cubist/v1/run.js"),
    ]);
    const logger = (component: string, fields?: Record<string, string>): Logger =>
      options.verbose ? createLogger({ component, level: "info", fields }) : silentLogger;
    const log = logger("cluster");
    const local = await natsStarting;
    const url = options.natsUrl ?? local!.server.url;
    mark("natsReady");
    const config = loadCoordinatorConfig({
      nats: { servers: url, name: "cubist-local-coordinator", ...local?.coordinator },
      prefix,
      ackWaitSec: options.ackWaitSec,
      maxDeliver: options.maxDeliver,
      maxCells: options.maxCells,
      maxFormulaMb: options.maxFormulaMb,
      maxPuzzleMb: options.maxPuzzleMb,
      limitFlags: DEFAULT_SIZE_LIMITS.raise,
      logLevel: options.verbose ? "info" : "error",
      grpc: null,
      proofHandoffDir: proofs,
    });
    // Checked before anything starts: a missing solver is an error now, not a worker that never comes up.
    const workerConfigs = workerIds.map((workerId, i) => loadWorkerConfig({
      nats: { servers: url, ...local?.workers.get(workerId) },
      prefix,
      concurrency: options.concurrency ?? 1,
      workerId,
      cacheDir: join(temp, `cache-${i + 1}`),
      solverPath: options.solverPath,
      proofFormat: options.proofFormat,
      proofHandoffDir: proofs,
      // Every local worker runs the same solver binary: a broken one should end the run FAILED, not stall it
      // while all of them sit out a quarantine (worker/quarantine.ts is for one bad machine among many).
      quarantineAfter: 0,
      // The run is over (or cancelled) when workers are stopped: nothing to wait for.
      shutdownGraceMs: 0,
      logLevel: options.verbose ? "info" : "warn",
    }));
    proc = await startCoordinatorProcess(config, logger("coordinator"));
    mark("coordinatorReady");
    // The layout exists now, so the workers find it at once; they connect while the run is encoded and split.
    // Settled all together, so that a worker that fails to start never leaves another one starting unseen.
    workersStarting = Promise.allSettled(workerConfigs.map(async (c) => {
      const w = await startWorkerProcess(c, { log: logger("worker", { worker: c.workerId }), signal: stopping.signal });
      workers.push(w);
    })).then((started) => {
      const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
      if (failed) throw failed.reason;
      mark("workersReady");
    });
    workersStarting.catch(() => undefined);
    const run = await proc.coordinator.submitRun(request);
    mark("submitted");
    log.info("run submitted", { run: run.id });
    run.once("verdict", () => mark("firstVerdict"));
    await workersStarting;
    const final = await waitForEnd(run, options);
    mark("ended");
    const status = run.status();
    const state = final === RunState.RUN_STATE_SAT ? "sat" : final === RunState.RUN_STATE_UNSAT ? "unsat" : final === RunState.RUN_STATE_CANCELLED ? "cancelled" : "failed";
    let certificate: string | null = null;
    if (options.certificateDir && state === "unsat" && run.spec.certify) {
      const [{ certificateFiles }, { writeBundle }] = await Promise.all([import("../coordinator/shell/certificate.js"), import("../certify/bundle.js")]);
      await writeBundle(options.certificateDir, await certificateFiles(run));
      certificate = options.certificateDir;
    }
    log.info("run ended", { run: run.id, state, phasesMs: JSON.stringify(phases) });
    return { state, status, message: run.message, workers: options.workers, runId: run.id, certificate, phases, solutions: run.solutions };
  } finally {
    stopping.abort();
    // A worker still starting (the run failed early) is closed with the others, not left running.
    await workersStarting?.catch(() => undefined);
    // Running cubes are stopped at once (grace 0) and their solver processes waited for.
    await Promise.all(workers.map((w) => w.close(0).catch(() => undefined)));
    if (proc) {
      if (options.natsUrl) await deletePrefix(proc.nc, proc.coordinator.names).catch(() => undefined);
      await proc.close().catch(() => undefined);
    }
    await natsStarting?.catch(() => undefined);
    // Its store is a temporary directory removed next: nothing to shut down in order.
    await nats?.stop({ now: true }).catch(() => undefined);
    await rm(temp, { recursive: true, force: true });
    mark("stopped");
  }
}

/** A user and password of the embedded cluster's nats-server, as the NATS options take them. */
export interface LocalNatsCredentials {
  readonly user: string;
  readonly pass: string;
}

/** The embedded cluster's private nats-server and the credentials of its coordinator and of each worker (by id). */
export interface LocalNats {
  readonly server: NatsServer;
  readonly coordinator: LocalNatsCredentials;
  readonly workers: ReadonlyMap<string, LocalNatsCredentials>;
}

/**
 * Starts the embedded cluster's nats-server (store in `storeDir`) with the users of a Cubist installation under the
 * default prefix: the coordinator's (`cubist`) and one per worker id, each with a fresh random password.
 */
export async function startLocalNats(storeDir: string, workerIds: readonly string[]): Promise<LocalNats> {
  const secret = (): string => randomBytes(24).toString("hex");
  const coordinator = { user: "cubist", pass: secret() };
  const workers = new Map(workerIds.map((id) => [id, { user: id, pass: secret() }]));
  const users = cubistUsers(createNames(), { user: coordinator.user, password: coordinator.pass }, [...workers].map(([id, w]) => ({ id, password: w.pass })));
  const server = await startNatsServer({ storeDir, config: accountsConfig(users) });
  return { server, coordinator, workers };
}

/**
 * Resolves with the run's final state as soon as its end is carried out (the run's "ended" event: its files are
 * gone by then, so a certificate bundle can be written); `onStatus` gets the status every PROGRESS_MS. Ctrl-C
 * cancels the run.
 */
function waitForEnd(run: RunController, options: LocalClusterOptions): Promise<RunState> {
  return new Promise<RunState>((resolve) => {
    const done = (): boolean => {
      if (!run.endCarriedOut) return false;
      clearInterval(timer);
      run.off("ended", onEnded);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(run.state);
      return true;
    };
    const onEnded = (): void => void done();
    const onAbort = (): void => {
      void run.cancel("interrupted").finally(() => done());
    };
    const timer = setInterval(() => {
      if (!done()) options.onStatus?.(run.status());
    }, PROGRESS_MS);
    run.on("ended", onEnded);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    done();
  });
}

/** How often `onStatus` is called. */
const PROGRESS_MS = 250;

/** Removes a private prefix's streams and buckets from a shared NATS. */
async function deletePrefix(nc: NatsConnection, names: Names): Promise<void> {
  const { requireJetStream } = await import("../cluster/nats.js");
  const jsm = await requireJetStream(nc);
  for (const s of [names.cubesStream, names.verdictsStream, names.ledgerStream, `KV_${names.runsBucket}`, `OBJ_${names.formulasBucket}`, names.proofsStream]) {
    await jsm.streams.delete(s).catch(() => undefined);
  }
}
