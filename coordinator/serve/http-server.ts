/**
 * The coordinator's HTTP endpoint (`--http`, default 127.0.0.1:9464): Prometheus `/metrics`, `/healthz`, the
 * dashboard pages (static files from coordinator/dashboard/, no build step, no CDN) and their JSON API with
 * server-sent events.
 *
 *   GET  /metrics                         Prometheus exposition (open; bind to a private address)
 *   GET  /healthz                         {"ok":true,...}
 *   GET  /  and  /runs/<run>              the runs list, one run's live view
 *   GET  /api/runs                        runs (in memory and finished ones in the runs bucket), newest first
 *   GET  /api/runs/<run>                  detail, history, board and map of one run
 *   GET  /api/runs/<run>/cubes            ?state=S&prefix=CUBE&limit=N&recent=1 (newest first; default limit 1000)&stuck=SEC
 *   GET  /api/runs/<run>/board            ?solution=N: the solution N, else the best partial board (SVG in JSON)
 *   GET  /api/runs/<run>/map              the search-space map
 *   GET  /api/workers                     live workers
 *   GET  /api/events, /api/runs/<run>/events   server-sent events: `runs`; `detail`, `board`, `map`
 *   POST /api/runs/<run>/pause|resume|cancel|priority, /api/runs/<run>/cubes/<cube>/resplit   JSON bodies
 *
 * Mutating calls go through the gRPC service implementation (api.ts), so they behave exactly like the gRPC API,
 * and are authenticated the same way: with a token configured, `Authorization: Bearer <token>` is required on
 * every POST (and on every /api GET with --auth-reads), else 401. POSTs must be `application/json`, which a
 * cross-site form cannot send without a CORS preflight that is never granted, and pass the Host and Origin checks
 * of coordinator/serve/http-guard.ts (DNS rebinding), else 403. Bound to a non-loopback address without a token, the
 * server requires one made up and logged once (coordinator/serve/auth.ts `apiTokensFor`).
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BodyTooLargeError, parseListen, readBody, sendJson, sendText, startHttpServer, type HttpServer } from "../../cluster/http.js";
import type { Logger } from "../../cluster/log.js";
import { RUN_ID_RE } from "../../proto/contract.js";
import { createService } from "./api.js";
import type { Coordinator } from "../shell/coordinator.js";
import { createCoordinatorMetrics, type CoordinatorMetrics } from "./metrics.js";
import type { JetStreamManager } from "@nats-io/jetstream";
import type { Names } from "../../proto/contract.js";
import { CUBE_STATE_NAMES, cubeStateOf, isTerminal, type CubeStateName } from "../../proto/vocabulary.js";
import type { RunController } from "../shell/run.js";
import { buildSpaceMap, type SpaceMap } from "./space-map.js";
import { boardView } from "./board-view.js";
import { cubesView, listRuns, runDetail, RunHistory, type RunSummary } from "./views.js";
import { WorkerSpeeds, workersView } from "./worker-views.js";
import { runAction } from "./http-actions.js";
import { HttpError } from "./api-errors.js";
import { NotLeaderError } from "../errors.js";
import { bearerOk } from "./auth.js";
import { createHostGuard } from "./http-guard.js";

export interface CoordinatorHttpOptions {
  /** HOST:PORT; port 0 picks a free one. */
  listen: string;
  coordinator: Coordinator;
  /** Served on /metrics; null: 404. */
  metrics: CoordinatorMetrics | null;
  /** Bearer token for POSTs (and API reads with `authReads`). */
  token?: string;
  /** Host names (besides loopback names, IP literals and the bind host) that state-changing calls may be sent to. @default [] */
  allowHosts?: readonly string[];
  authReads?: boolean;
  log: Logger;
  /** Where the dashboard files are. @default coordinator/dashboard next to this module (or in the source tree) */
  dashboardDir?: string;
  /** Interval of server-sent events. @default 1000 */
  eventIntervalMs?: number;
  /** Interval of the cube-count history samples. @default 2000 */
  historyIntervalMs?: number;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

/** coordinator/dashboard, found from the compiled module (dist/coordinator/serve) or the source one. */
export function locateDashboard(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const d of [join(here, "../dashboard"), join(here, "../../../coordinator/dashboard")]) {
    if (existsSync(join(d, "index.html"))) return d;
  }
  return null;
}

function loadStatic(dir: string | null): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  if (!dir) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type || !/^[a-z0-9][a-z0-9.-]*$/.test(name)) continue;
    files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return files;
}

/** Who leads, as /healthz, /readyz and the dashboard show it. */
function leadershipView(c: Coordinator): { role: string; id: string; leader: { id: string; host: string; term: number; grpc: string; http: string } | null } {
  const l = c.leader;
  return { role: c.role, id: c.id, leader: l ? { id: l.id, host: l.host, term: l.term, grpc: l.grpc, http: l.http } : null };
}

export async function startCoordinatorHttp(opts: CoordinatorHttpOptions): Promise<HttpServer> {
  const c = opts.coordinator;
  const log = opts.log;
  const dashboardDir = opts.dashboardDir ?? locateDashboard();
  if (!dashboardDir) log.warn("dashboard files not found; serving the API and /metrics only");
  const files = loadStatic(dashboardDir);
  const service = createService(c);
  const speeds = new WorkerSpeeds();
  const history = new RunHistory();
  const onVerdict = (v: Parameters<WorkerSpeeds["record"]>[0]): void => speeds.record(v);
  c.verdictTap.on("verdict", onVerdict);
  const sampleAll = (): void => {
    for (const run of c.runs.values()) history.sample(run);
  };
  sampleAll();
  const timers: NodeJS.Timeout[] = [setInterval(sampleAll, opts.historyIntervalMs ?? 2000)];
  const streams = new Set<ServerResponse>();
  const eventMs = opts.eventIntervalMs ?? 1000;

  // Maps are the costliest view (every cube, sorted): one per run, rebuilt when the counts or running set change (at most once a second).
  const maps = new Map<string, { key: string; at: number; map: SpaceMap }>();
  const mapOf = (run: RunController): SpaceMap => {
    const ended = isTerminal(run.state);
    const key = `${run.state}|${JSON.stringify(run.table.snapshotCounts())}|${run.table.size}|${ended ? "" : [...run.running.keys()].sort().join(",")}`;
    const hit = maps.get(run.id);
    const now = Date.now();
    if (hit && (hit.key === key || (now - hit.at < 1000 && !ended))) return hit.map;
    const map = buildSpaceMap(run.table.entries(), (id) => run.running.has(id), { ended });
    maps.set(run.id, { key, at: now, map });
    return map;
  };
  let runsCache: { at: number; runs: Promise<RunSummary[]> } | null = null;
  const cachedRuns = (): Promise<RunSummary[]> => {
    const now = Date.now();
    if (!runsCache || now - runsCache.at > 1000) runsCache = { at: now, runs: listRuns(c) };
    return runsCache.runs;
  };

  const guard = createHostGuard(parseListen(opts.listen).host, opts.allowHosts);
  const requireHost = (req: IncomingMessage): void => {
    const why = guard.refuse(req);
    if (why === null) return;
    log.warn("HTTP call refused: Host or Origin is not this coordinator's", { method: req.method, url: req.url?.slice(0, 200), host: String(req.headers.host).slice(0, 200), origin: String(req.headers.origin ?? "").slice(0, 200) });
    throw new HttpError(403, why);
  };

  const requireToken = (req: IncomingMessage, write: boolean): void => {
    if (!opts.token) return;
    if (!write && !opts.authReads) return;
    if (!bearerOk(req.headers.authorization, opts.token)) {
      log.warn("HTTP call refused: missing or wrong bearer token", { method: req.method, url: req.url?.slice(0, 200) });
      throw new HttpError(401, `${write ? "this call" : "reading"} needs a valid bearer token (Authorization: Bearer <token>)`);
    }
  };

  const runById = async (id: string): Promise<RunController> => {
    if (!RUN_ID_RE.test(id)) throw new HttpError(400, `"${id.slice(0, 80)}" is not a run id`);
    if (c.role !== "leader") throw new HttpError(503, new NotLeaderError(c.leader).message);
    const run = await c.loadRun(id);
    if (!run) throw new HttpError(404, `no run "${id}"`);
    return run;
  };

  const jsonBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const type = String(req.headers["content-type"] ?? "");
    if (!/^application\/json\b/i.test(type)) throw new HttpError(415, "POST bodies must be application/json");
    const text = await readBody(req).catch((err) => {
      throw err instanceof BodyTooLargeError ? new HttpError(413, err.message) : err;
    });
    if (text.trim() === "") return {};
    try {
      const v = JSON.parse(text) as unknown;
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
      return v as Record<string, unknown>;
    } catch {
      throw new HttpError(400, "the body is not a JSON object");
    }
  };

  const openEvents = (req: IncomingMessage, res: ServerResponse, tick: (send: (event: string, data: unknown) => void) => Promise<void> | void, everyMs: number): void => {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
    res.write(": cubist\n\n");
    streams.add(res);
    let busy = false;
    const send = (event: string, data: unknown): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const run = async (): Promise<void> => {
      // A slow client (or a slow view) skips ticks instead of piling them up.
      if (busy || res.writableNeedDrain) return;
      busy = true;
      try {
        await tick(send);
      } catch (err) {
        send("error", { error: (err as Error).message });
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void run(), everyMs);
    void run();
    const stop = (): void => {
      clearInterval(timer);
      streams.delete(res);
    };
    req.on("close", stop);
    res.on("close", stop);
  };

  const runEvents = (req: IncomingMessage, res: ServerResponse, run: RunController): void => {
    let lastBoard = "";
    let lastMap = "";
    let n = 0;
    openEvents(req, res, (send) => {
      const ended = isTerminal(run.state);
      // After the end, one update every 5 ticks is plenty.
      if (ended && n++ % 5 !== 0) return;
      send("detail", runDetail(c, run, speeds));
      const board = boardView(run);
      if (board.svg !== lastBoard) {
        lastBoard = board.svg;
        send("board", board);
      }
      const map = mapOf(run);
      if (map.cells !== lastMap) {
        lastMap = map.cells;
        send("map", map);
      }
    }, eventMs);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const path = url.pathname;
    const method = req.method ?? "GET";
    const parts = path.split("/").filter(Boolean).map((p) => decodeURIComponent(p));

    if (method === "GET" || method === "HEAD") {
      if (path === "/metrics") {
        if (!opts.metrics) return sendText(res, 404, "metrics are off\n");
        return sendText(res, 200, await opts.metrics.metrics(), opts.metrics.contentType);
      }
      if (path === "/healthz") return sendJson(res, 200, { ok: true, ...leadershipView(c), runs: c.runs.size, workers: c.liveWorkers().length });
      // Ready means "serves the API fully": the leader. A standby answers 503, so a load balancer sends calls to the leader.
      if (path === "/readyz") return sendJson(res, c.role === "leader" ? 200 : 503, leadershipView(c));
      if (path === "/" || (parts[0] === "runs" && parts.length === 2)) return sendFile(res, path === "/" ? "index.html" : "run.html");
      if (parts[0] === "static" && parts.length === 2) return sendFile(res, parts[1]);
      if (path === "/favicon.ico") return sendFile(res, "favicon.svg");
      if (parts[0] !== "api") throw new HttpError(404, `no page ${path}`);
      requireToken(req, false);
      if (path === "/api/runs") return sendJson(res, 200, { runs: await cachedRuns(), coordinator: leadershipView(c) });
      if (path === "/api/workers") return sendJson(res, 200, { workers: workersView(c, speeds) });
      if (path === "/api/events") {
        return openEvents(req, res, async (send) => send("runs", { runs: await cachedRuns(), workers: c.liveWorkers().length, coordinator: leadershipView(c) }), Math.max(eventMs, 1000));
      }
      if (parts[1] === "runs" && parts.length >= 3) {
        const run = await runById(parts[2]);
        const rest = parts.slice(3).join("/");
        if (rest === "") {
          return sendJson(res, 200, { ...runDetail(c, run, speeds), history: history.get(run.id), board: boardView(run), map: mapOf(run), cubeStates: CUBE_STATE_NAMES });
        }
        if (rest === "cubes") {
          const state = url.searchParams.get("state") || undefined;
          if (state !== undefined && cubeStateOf(state) === undefined) throw new HttpError(400, `"${state.slice(0, 40)}" is not a cube state (${CUBE_STATE_NAMES.join(", ")})`);
          const limit = Number(url.searchParams.get("limit") ?? 0);
          const stuck = Number(url.searchParams.get("stuck") ?? 0);
          if (!Number.isFinite(stuck) || stuck < 0) throw new HttpError(400, "stuck must be a number of seconds >= 0");
          return sendJson(res, 200, cubesView(run, {
            state: state as CubeStateName | undefined, prefix: url.searchParams.get("prefix") || undefined, limit: Number.isFinite(limit) ? limit : 0,
            recent: url.searchParams.get("recent") === "1", stuckSec: stuck,
          }));
        }
        if (rest === "board") {
          const s = url.searchParams.get("solution");
          const index = s === null ? 0 : Number(s);
          if (s !== null && (!Number.isInteger(index) || !run.solutions[index])) throw new HttpError(404, `run ${run.id} has ${run.solutions.length} solution(s); no index ${s}`);
          return sendJson(res, 200, boardView(run, index));
        }
        if (rest === "map") return sendJson(res, 200, mapOf(run));
        if (rest === "history") return sendJson(res, 200, { history: history.get(run.id) });
        if (rest === "events") return runEvents(req, res, run);
      }
      throw new HttpError(404, `no endpoint ${path}`);
    }

    // Everything else may change state: Host and Origin first (403), then the token (401).
    requireHost(req);
    if (method === "POST") {
      if (parts[0] !== "api" || parts[1] !== "runs" || parts.length < 4) throw new HttpError(404, `no endpoint ${path}`);
      requireToken(req, true);
      const out = await runAction(c, service, parts.slice(2), await jsonBody(req));
      runsCache = null; // the next runs list shows the change
      if (!out) throw new HttpError(404, `no endpoint ${path}`);
      if ("children" in out) log.info("cube re-split from the dashboard", { run: parts[2], cube: parts[4], children: out.children.length });
      return sendJson(res, 200, out);
    }
    res.setHeader("allow", "GET, HEAD, POST");
    throw new HttpError(405, `method ${method} not allowed`);
  };

  const sendFile = (res: ServerResponse, name: string): void => {
    const f = files.get(name);
    if (!f) throw new HttpError(404, dashboardDir ? `no file ${name}` : "the dashboard files are not installed");
    res.writeHead(200, { "content-type": f.type, "cache-control": "no-cache", "content-security-policy": CSP, "x-content-type-options": "nosniff" });
    res.end(f.body);
  };

  const stopFollowing = (): void => {
    for (const t of timers) clearInterval(t);
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
        for (const s of streams) s.end();
        await server.close();
      })();
      return closing;
    },
  };
}

/**
 * What `startCoordinatorProcess` starts for `config.http`: the metrics registry and the HTTP endpoint (null when
 * `http` is null). Closing the server also stops the metrics. `config.authToken` is the token this server requires
 * (coordinator/serve/auth.ts `apiTokensFor`: generated for a non-loopback bind without `--auth-token`).
 */
export async function startObservability(
  config: { http: string | null; httpOptional?: boolean; names: Names; authToken?: string; authReads: boolean; httpAllowHosts?: readonly string[]; metricsRetentionMs?: number },
  coordinator: Coordinator,
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
