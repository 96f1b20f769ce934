/**
 * The embedded local cluster behind `cubist solve --workers N`: a private nats-server (free port, temporary
 * JetStream store), one coordinator in this process, and N worker processes. It solves one puzzle and tears
 * everything down — also on Ctrl-C — leaving no process and no temp directory behind.
 *
 * With `natsUrl` an existing NATS is used instead; the run then lives under a private prefix whose streams and
 * buckets are deleted at the end.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { startNatsServer, type NatsServer } from "./nats-launcher.js";
import { loadCoordinatorConfig } from "../coordinator/config.js";
import { DEFAULT_SIZE_LIMITS } from "../core/limits.js";
import { startCoordinatorProcess, type CoordinatorProcess, type RunController } from "../coordinator/main.js";
import type { RunRequest } from "../coordinator/run-spec.js";
import { isTerminal } from "../proto/vocabulary.js";
import { createLogger, silentLogger, type Logger } from "../cluster/log.js";
import { requireJetStream } from "../cluster/nats.js";
import { RunState, type RunStatus, type Solution } from "../proto/gen/cubist/v1/run.js";
import { boardFromPlacements, type Board } from "../core/puzzle.js";
import type { Names } from "../proto/contract.js";

export interface LocalClusterOptions {
  workers: number;
  /** Slots per worker process. @default 1 */
  concurrency?: number;
  natsUrl?: string;
  solverPath?: string;
  /** Verbose: component logs to stderr. */
  verbose?: boolean;
  signal?: AbortSignal;
  /** Called about once a second with the run's status. */
  onStatus?: (status: RunStatus) => void;
  ackWaitSec?: number;
  maxDeliver?: number;
  /** A certified UNSAT run: write its certificate bundle here (certify/bundle.ts) before the cluster goes. */
  certificateDir?: string;
  /** The embedded coordinator's size limits (`solve --max-cells`, `--max-formula-mb`). @default core/limits.ts */
  maxCells?: number;
  maxFormulaMb?: number;
}

export type LocalClusterResult = {
  state: "sat" | "unsat" | "failed" | "cancelled";
  board: Board | null;
  status: RunStatus;
  message: string;
  workers: number;
  runId: string;
  /** Where the certificate bundle was written (certified UNSAT with `certificateDir`), else null. */
  certificate: string | null;
  /** The run's recorded solutions (a counting run with every_board: every board, each verified). */
  solutions: readonly Solution[];
};

const here = dirname(fileURLToPath(import.meta.url));

/** The compiled CLI entry (dist/cli/main.js), or the TypeScript one under tsx. */
function cliEntry(): { execArgv: string[]; script: string } {
  if (here.includes(`${join("dist", "cli")}`)) return { execArgv: [], script: join(here, "main.js") };
  return { execArgv: ["--import", "tsx"], script: join(here, "main.ts") };
}

export async function solveOnLocalCluster(request: RunRequest, options: LocalClusterOptions): Promise<LocalClusterResult> {
  const log: Logger = options.verbose ? createLogger({ component: "cluster", level: "info" }) : silentLogger;
  const temp = await mkdtemp(join(tmpdir(), "cubist-local-"));
  let nats: NatsServer | undefined;
  let proc: CoordinatorProcess | undefined;
  const workers: ChildProcess[] = [];
  const prefix = options.natsUrl ? `cubistlocal${randomBytes(4).toString("hex")}` : "cubist";
  try {
    let url = options.natsUrl;
    if (!url) {
      nats = await startNatsServer({ storeDir: join(temp, "jetstream") });
      url = nats.url;
    }
    const config = loadCoordinatorConfig({
      nats: { servers: url, name: "cubist-local-coordinator" },
      prefix,
      ackWaitSec: options.ackWaitSec,
      maxDeliver: options.maxDeliver,
      maxCells: options.maxCells,
      maxFormulaMb: options.maxFormulaMb,
      limitFlags: DEFAULT_SIZE_LIMITS.raise,
      logLevel: options.verbose ? "info" : "error",
      grpc: null,
    });
    // Workers start while the coordinator does (they wait for its streams), to save a process start-up.
    const coordinatorStarting = startCoordinatorProcess(config, options.verbose ? createLogger({ component: "coordinator", level: "info" }) : silentLogger);
    coordinatorStarting.catch(() => undefined);
    const entry = cliEntry();
    for (let i = 0; i < options.workers; i++) {
      const args = [
        ...entry.execArgv, entry.script, "worker",
        "--nats", url, "--prefix", prefix,
        "--concurrency", String(options.concurrency ?? 1),
        "--id", `local-${i + 1}`,
        "--cache-dir", join(temp, `cache-${i + 1}`),
        // Every local worker runs the same solver binary: a broken one should end the run FAILED, not stall it
        // while all of them sit out a quarantine (worker/quarantine.ts is for one bad machine among many).
        "--quarantine-after", "0",
        "--log-level", options.verbose ? "info" : "warn",
        // The run is over (or cancelled) when workers are stopped: nothing to wait for.
        "--grace", "1",
      ];
      if (options.solverPath) args.push("--solver-path", options.solverPath);
      const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", options.verbose ? "inherit" : "pipe"] });
      let tail = "";
      child.stderr?.on("data", (d: Buffer) => {
        tail = (tail + d.toString()).slice(-4000);
      });
      child.once("exit", (code, sig) => {
        if (code !== 0 && code !== null) log.warn("worker exited", { worker: i + 1, code, sig, stderr: tail.trim() });
      });
      workers.push(child);
    }
    proc = await coordinatorStarting;
    const run = await proc.coordinator.submitRun(request);
    log.info("run submitted", { run: run.id });
    const final = await waitForEnd(run, options);
    const status = run.status();
    const sol = run.solutions[0];
    const board = sol ? boardFromPlacements({ rows: sol.rows, cols: sol.cols }, sol.cells) : null;
    const state = final === RunState.RUN_STATE_SAT ? "sat" : final === RunState.RUN_STATE_UNSAT ? "unsat" : final === RunState.RUN_STATE_CANCELLED ? "cancelled" : "failed";
    let certificate: string | null = null;
    if (options.certificateDir && state === "unsat" && run.spec.certify) {
      const [{ certificateFiles }, { writeBundle }] = await Promise.all([import("../coordinator/certificate.js"), import("../certify/bundle.js")]);
      await writeBundle(options.certificateDir, await certificateFiles(run));
      certificate = options.certificateDir;
    }
    return { state, board, status, message: run.message, workers: options.workers, runId: run.id, certificate, solutions: run.solutions };
  } finally {
    await stopWorkers(workers);
    if (proc) {
      if (options.natsUrl) await deletePrefix(proc.nc, proc.coordinator.names).catch(() => undefined);
      await proc.close().catch(() => undefined);
    }
    await nats?.stop().catch(() => undefined);
    await rm(temp, { recursive: true, force: true });
  }
}

function waitForEnd(run: RunController, options: LocalClusterOptions): Promise<RunState> {
  return new Promise<RunState>((resolve) => {
    const done = (): boolean => {
      if (!isTerminal(run.state)) return false;
      clearInterval(timer);
      options.signal?.removeEventListener("abort", onAbort);
      resolve(run.state);
      return true;
    };
    const onAbort = (): void => {
      void run.cancel("interrupted").finally(() => done());
    };
    const timer = setInterval(() => {
      if (!done()) options.onStatus?.(run.status());
    }, 250);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    done();
  });
}

async function stopWorkers(workers: ChildProcess[]): Promise<void> {
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.exitCode !== null || w.signalCode !== null) return resolve();
          const kill = setTimeout(() => w.kill("SIGKILL"), 5000);
          w.once("exit", () => {
            clearTimeout(kill);
            resolve();
          });
          w.kill("SIGTERM");
        }),
    ),
  );
}

/** Removes a private prefix's streams and buckets from a shared NATS. */
async function deletePrefix(nc: NatsConnection, names: Names): Promise<void> {
  const jsm = await requireJetStream(nc);
  for (const s of [names.cubesStream, names.verdictsStream, names.ledgerStream, `KV_${names.runsBucket}`, `OBJ_${names.formulasBucket}`, `OBJ_${names.proofsBucket}`]) {
    await jsm.streams.delete(s).catch(() => undefined);
  }
}
