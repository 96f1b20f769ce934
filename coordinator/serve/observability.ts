/**
 * What `startCoordinatorProcess` (coordinator/main.ts) starts for `config.http`: the metrics registry
 * (serve/metrics.ts) and the HTTP endpoint (serve/http-server.ts), or nothing when `http` is null. Closing the server
 * also stops the metrics.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { HttpServer } from "../../cluster/http.js";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import type { CoordinatorControl } from "./coordinator-view.js";
import { startCoordinatorHttp } from "./http-server.js";
import { createCoordinatorMetrics } from "./metrics.js";

/**
 * The metrics and the HTTP endpoint, or null with `http` null (or the default address taken, with `httpOptional`).
 * `config.authToken` is the token this server requires (serve/auth.ts `apiTokensFor`: generated for a non-loopback
 * bind without `--auth-token`).
 */
export async function startObservability(
  config: { http: string | null; httpOptional?: boolean; names: Names; authToken?: string; authReads: boolean; httpAllowHosts?: readonly string[]; metricsRetentionMs?: number },
  coordinator: CoordinatorControl,
  jsm: JetStreamManager,
  log: Logger,
): Promise<HttpServer | null> {
  if (config.http === null) return null;
  const metrics = createCoordinatorMetrics({ coordinator, jsm, names: config.names, log, finishedRetentionMs: config.metricsRetentionMs });
  let server: HttpServer;
  try {
    server = await startCoordinatorHttp({ listen: config.http, coordinator, metrics, token: config.authToken, authReads: config.authReads, allowHosts: config.httpAllowHosts, log });
  } catch (err) {
    metrics.close();
    if (config.httpOptional && /EADDRINUSE/.test((err as Error).message)) {
      log.warn("the default HTTP address is taken: no /metrics and no dashboard (set --http HOST:PORT, or --http off)", { address: config.http });
      return null;
    }
    throw err;
  }
  return {
    port: server.port,
    url: server.url,
    async close() {
      await server.close();
      metrics.close();
    },
  };
}
