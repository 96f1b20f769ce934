/**
 * The coordinator process: the one place that wires NATS, the coordinator (shell/) and its servers (serve/) together.
 * The gRPC and HTTP servers' modules (gRPC, prom-client, the dashboard) are loaded only when configured: the
 * embedded cluster of `cubist solve --workers` has neither, and loading them cost it ~45 ms of start.
 */
import { hostname } from "node:os";
import type { NatsConnection } from "@nats-io/transport-node";
import type { JetStreamManager } from "@nats-io/jetstream";
import { connectNats, requireJetStream } from "../cluster/nats.js";
import { createLogger, type Logger } from "../cluster/log.js";
import { Coordinator } from "./shell/coordinator.js";
import type { GrpcServer } from "./serve/grpc-server.js";
import type { CoordinatorConfig } from "./config.js";
import type { HttpServer } from "../cluster/http.js";
import { apiTokensFor } from "./serve/auth.js";

/** What a process that embeds the coordinator (cli/local-cluster.ts) needs of a run. */
export type { RunController } from "./shell/run.js";

export interface CoordinatorProcess {
  readonly coordinator: Coordinator;
  readonly nc: NatsConnection;
  readonly log: Logger;
  readonly grpc: GrpcServer | null;
  /** The HTTP endpoint (metrics, dashboard), or null with `http: null`. */
  readonly http: HttpServer | null;
  /** Stops everything (idempotent). */
  close(): Promise<void>;
}

/**
 * A listen address as others can reach it: a wildcard host (0.0.0.0, ::) becomes this machine's name, and `port`
 * (the one bound) replaces a port 0.
 */
function reachable(listen: string | null, port?: number): string {
  if (!listen) return "";
  const i = listen.lastIndexOf(":");
  const host = listen.slice(0, i).replace(/^\[|\]$/g, "");
  const p = port ?? listen.slice(i + 1);
  if (host === "0.0.0.0" || host === "::" || host === "") return `${hostname()}:${p}`;
  return host.includes(":") ? `[${host}]:${p}` : `${host}:${p}`;
}

type ServerModules = Promise<[typeof import("./serve/grpc-server.js"), typeof import("./serve/api.js")]> | null;

/** The gRPC API and the HTTP endpoint as configured; on an error, what was started is closed, and the coordinator too. */
async function startServers(config: CoordinatorConfig, coordinator: Coordinator, jsm: JetStreamManager, logger: Logger, servers: ServerModules): Promise<{ grpc: GrpcServer | null; http: HttpServer | null }> {
  const tokens = apiTokensFor({ grpc: config.grpc, http: config.http }, config.authToken, logger);
  let grpc: GrpcServer | null = null;
  if (config.grpc && servers) {
    try {
      const [{ startGrpcServer, DEFAULT_GRPC_RECEIVE_BYTES }, { createService }] = await servers;
      grpc = await startGrpcServer(createService(coordinator), {
        listen: config.grpc,
        token: tokens.grpc,
        authReads: config.authReads,
        tlsCert: config.grpcTlsCert,
        tlsKey: config.grpcTlsKey,
        tlsClientCa: config.grpcTlsClientCa,
        // Room for the largest puzzle text a run may have (the submit path checks it exactly: run-spec.ts).
        maxReceiveBytes: Math.max(DEFAULT_GRPC_RECEIVE_BYTES, config.limits.maxPuzzleBytes + (1 << 20)),
        log: logger,
      });
    } catch (err) {
      await coordinator.close();
      throw err;
    }
  }
  try {
    const http = config.http !== null ? await (await import("./serve/observability.js")).startObservability({ ...config, authToken: tokens.http }, coordinator, jsm, logger) : null;
    return { grpc, http };
  } catch (err) {
    await grpc?.close();
    await coordinator.close();
    throw err;
  }
}

export async function startCoordinatorProcess(config: CoordinatorConfig, log?: Logger): Promise<CoordinatorProcess> {
  const logger = log ?? createLogger({ component: "coordinator", level: config.logLevel, format: config.logFormat });
  // Loading starts now, so that it overlaps connecting to NATS.
  const servers = config.grpc ? Promise.all([import("./serve/grpc-server.js"), import("./serve/api.js")]) : null;
  servers?.catch(() => undefined);
  const nc = await connectNats({ ...config.nats, name: config.nats.name ?? "cubist-coordinator" });
  let closing: Promise<void> | null = null;
  try {
    const jsm = await requireJetStream(nc);
    const coordinator = new Coordinator({
      nc,
      jsm,
      names: config.names,
      log: logger,
      replicas: config.replicas,
      proofHandoffDir: config.proofHandoffDir,
      settings: { ackWaitMs: config.ackWaitMs, maxDeliver: config.maxDeliver, limits: config.limits, ownProofChecks: config.ownProofChecks },
      lease: config.lease,
      addresses: { grpc: reachable(config.grpc), http: reachable(config.http) },
    });
    // Open first, then the servers, then the campaign: the API and dashboard answer while a large run is taken over.
    await coordinator.open();
    const { grpc, http } = await startServers(config, coordinator, jsm, logger, servers);
    coordinator.advertise({ grpc: reachable(config.grpc, grpc?.port), http: http ? reachable(config.http, http.port) : "" });
    try {
      await coordinator.campaign();
    } catch (err) {
      await http?.close();
      await grpc?.close();
      await coordinator.close();
      throw err;
    }
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === "disconnect") logger.warn("NATS disconnected; reconnecting", { server: s.server });
        else if (s.type === "reconnect") logger.info("NATS reconnected", { server: s.server });
      }
    })();
    return {
      coordinator,
      nc,
      log: logger,
      grpc,
      http,
      close() {
        if (!closing) {
          closing = (async () => {
            await http?.close();
            await grpc?.close();
            await coordinator.close();
            await nc.drain().catch(() => nc.close());
          })();
        }
        return closing;
      },
    };
  } catch (err) {
    await nc.close().catch(() => undefined);
    throw err;
  }
}
