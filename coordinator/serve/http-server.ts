/**
 * The coordinator's HTTP endpoint (`--http`, default 127.0.0.1:9464): Prometheus `/metrics`, `/healthz`, the
 * dashboard pages and their JSON API with server-sent events (the routes: serve/http-routes.ts). It keeps what the
 * pages show over time: the cube counts of each run (sampled), the workers' speeds (from the verdicts), and short
 * caches of the costliest views.
 *
 * Mutating calls are the gRPC API's own calls (serve/http-actions.ts), so they behave exactly like the gRPC API, and
 * are authenticated the same way: with a token configured, `Authorization: Bearer <token>` is required on every POST
 * (and on every /api GET with --auth-reads), else 401. POSTs must be `application/json`, which a cross-site form
 * cannot send without a CORS preflight that is never granted, and pass the Host and Origin checks of
 * serve/http-guard.ts (DNS rebinding), else 403. Bound to a non-loopback address without a token, the server
 * requires one made up and logged once (serve/auth.ts `apiTokensFor`).
 */

import { parseListen, sendJson, startHttpServer, type HttpServer } from "../../cluster/http.js";
import type { Logger } from "../../cluster/log.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { HttpError } from "./api-errors.js";
import type { CoordinatorControl, CoordinatorView, RunView } from "./coordinator-view.js";
import { DashboardFiles, locateDashboard } from "./dashboard-files.js";
import { EventStreams } from "./http-events.js";
import { createHostGuard } from "./http-guard.js";
import { createHttpHandler, type HttpContext } from "./http-routes.js";
import type { CoordinatorMetrics } from "./metrics.js";
import { buildSpaceMap, type SpaceMap } from "./space-map.js";
import { runSummaries, type RunSummary } from "./views.js";
import { WorkerSpeeds } from "./worker-views.js";

export interface CoordinatorHttpOptions {
  /** HOST:PORT; port 0 picks a free one. */
  listen: string;
  coordinator: CoordinatorControl;
  /** Served on /metrics; null: 404. */
  metrics: CoordinatorMetrics | null;
  /** Bearer token for POSTs (and API reads with `authReads`). */
  token?: string;
  /** Host names (besides loopback names, IP literals and the bind host) that state-changing calls may be sent to. @default [] */
  allowHosts?: readonly string[];
  authReads?: boolean;
  log: Logger;
  /** Where the dashboard files are. @default coordinator/dashboard (serve/dashboard-files.ts locateDashboard) */
  dashboardDir?: string;
  /** Interval of server-sent events. @default 1000 */
  eventIntervalMs?: number;
}

/** Maps are the costliest view (every cube, sorted): one per run, rebuilt when the counts or running set change (at most once a second). */
function spaceMaps(): (run: RunView) => SpaceMap {
  const maps = new Map<string, { key: string; at: number; map: SpaceMap }>();
  return (run) => {
    const ended = isTerminal(run.state);
    const key = `${run.state}|${JSON.stringify(run.table.snapshotCounts())}|${run.table.size}|${ended ? "" : [...run.running.keys()].sort().join(",")}`;
    const hit = maps.get(run.id);
    const now = Date.now();
    if (hit && (hit.key === key || (now - hit.at < 1000 && !ended))) return hit.map;
    const map = buildSpaceMap(run.table.entries(), (id) => run.running.has(id), { ended });
    maps.set(run.id, { key, at: now, map });
    return map;
  };
}

/** The runs list, computed at most once a second (and afresh after `forget`). */
function runsList(c: CoordinatorView): { get(): Promise<RunSummary[]>; forget(): void } {
  let cache: { at: number; runs: Promise<RunSummary[]> } | null = null;
  return {
    get() {
      const now = Date.now();
      if (!cache || now - cache.at > 1000) cache = { at: now, runs: runSummaries(c) };
      return cache.runs;
    },
    forget() {
      cache = null;
    },
  };
}

export async function startCoordinatorHttp(opts: CoordinatorHttpOptions): Promise<HttpServer> {
  const c = opts.coordinator;
  const log = opts.log;
  const dashboardDir = opts.dashboardDir ?? locateDashboard();
  if (!dashboardDir) log.warn("dashboard files not found; serving the API and /metrics only");
  const speeds = new WorkerSpeeds();
  const onVerdict = (v: Verdict): void => speeds.record(v);
  c.verdictTap.on("verdict", onVerdict);
  const events = new EventStreams();
  const runs = runsList(c);
  const context: HttpContext = {
    c, log, metrics: opts.metrics, token: opts.token, authReads: opts.authReads === true, guard: createHostGuard(parseListen(opts.listen).host, opts.allowHosts),
    files: new DashboardFiles(dashboardDir), events, speeds, eventMs: opts.eventIntervalMs ?? 1000,
    mapOf: spaceMaps(), runsList: runs.get, forgetRunsList: runs.forget,
  };
  const handle = createHttpHandler(context);
  const stopFollowing = (): void => {
    c.verdictTap.off("verdict", onVerdict);
  };
  let server: HttpServer;
  try {
    server = await startHttpServer(opts.listen, async (req, res) => {
      try {
        await handle(req, res);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        const headers: Record<string, string> = err.status === 401 ? { "www-authenticate": 'Bearer realm="cubist"' } : {};
        sendJson(res, err.status, { error: err.message }, headers);
      }
    }, log, "HTTP (metrics, dashboard)");
  } catch (err) {
    stopFollowing();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    port: server.port,
    url: server.url,
    close() {
      closing ??= (async () => {
        stopFollowing();
        events.endAll();
        await server.close();
      })();
      return closing;
    },
  };
}
