/**
 * The routes of the coordinator's HTTP endpoint (serve/http-server.ts starts it), as a table:
 *
 *   GET  /metrics                         Prometheus exposition (open; bind to a private address)
 *   GET  /healthz, /readyz                {"ok":true,...}; ready (200) only while this coordinator leads
 *   GET  /  and  /runs/<run>              the runs list, one run's live view (static files: serve/dashboard-files.ts)
 *   GET  /api/runs                        runs (in memory and finished ones in the runs bucket), newest first
 *   GET  /api/runs/<run>                  detail, history, board and map of one run
 *   GET  /api/runs/<run>/cubes            ?state=S&prefix=CUBE&limit=N&recent=1 (newest first; default limit 1000)&stuck=SEC
 *   GET  /api/runs/<run>/board            ?solution=N: the solution N, else the best partial board (SVG in JSON)
 *   GET  /api/runs/<run>/map, /history    the search-space map; the cube counts over time (from the ledger)
 *   GET  /api/runs/<run>/timeline         what happened to the run (ListRunEvents: serve/run-events.ts)
 *   GET  /api/runs/<run>/best.json|.svg   the best board as a file (JSON as `solve --json` prints; SVG) (serve/board-downloads.ts)
 *   GET  /api/runs/<run>/solutions/<N>.json|.svg   solution N (from 0) as a file
 *   GET  /api/workers                     live workers
 *   GET  /api/events, /api/runs/<run>/events   server-sent events: `runs`; `detail`, `board`, `map`
 *   POST /api/runs/<run>/pause|resume|cancel|priority, /api/runs/<run>/cubes/<cube>/resplit   JSON bodies (serve/http-actions.ts)
 *
 * Pages are open; every /api GET needs the token with --auth-reads; anything else is a state-changing call, which must
 * pass the Host and Origin checks (403) and carry the token (401) (serve/http-request.ts). HEAD is served as GET.
 */

import type { IncomingMessage, ServerResponse } from "node:http";
import { sendJson, sendText } from "../../cluster/http.js";
import { RUN_ID_RE } from "../../proto/contract.js";
import { cubeStateOf } from "../../proto/api-vocabulary.js";
import { CUBE_STATE_NAMES, isTerminal, type CubeStateName } from "../../proto/vocabulary.js";
import { NotLeaderError } from "../errors.js";
import type { RunController } from "../shell/run.js";
import { HttpError } from "./api-errors.js";
import { bestDownload, solutionDownload, type Download } from "./board-downloads.js";
import { boardView } from "./board-view.js";
import type { CoordinatorControl, CoordinatorView, RunView } from "./coordinator-view.js";
import type { DashboardFiles } from "./dashboard-files.js";
import { runAction } from "./http-actions.js";
import type { EventStreams } from "./http-events.js";
import { jsonBody, requireHost, requireToken, type HttpAccess } from "./http-request.js";
import type { CoordinatorMetrics } from "./metrics.js";
import type { SpaceMap } from "./space-map.js";
import { cubesView, runDetail, type RunSummary } from "./views.js";
import { httpActor } from "./actor.js";
import { timelineView } from "./run-events.js";
import { workersView, type WorkerSpeeds } from "./worker-views.js";

/** What the routes read and share: the coordinator, who may call, and what the server keeps between calls. */
export interface HttpContext extends HttpAccess {
  readonly c: CoordinatorControl;
  /** Served on /metrics; null: 404. */
  readonly metrics: CoordinatorMetrics | null;
  readonly files: DashboardFiles;
  readonly events: EventStreams;
  readonly speeds: WorkerSpeeds;
  /** Interval of server-sent events. */
  readonly eventMs: number;
  /** The run's search-space map, rebuilt at most once a second. */
  mapOf(run: RunView): SpaceMap;
  /** The runs list, computed at most once a second. */
  runsList(): Promise<RunSummary[]>;
  /** The next runs list is computed afresh (a call changed a run). */
  forgetRunsList(): void;
}

/** A request as a route sees it. */
interface Call {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** The path's segments, decoded, empty ones dropped. */
  readonly parts: readonly string[];
}

interface Route {
  /** An exact path ("/healthz"), or segments where ":name" matches any one ("api/runs/:run/cubes"). */
  readonly path: string;
  /** "page": open to all; "api": needs the token with --auth-reads. */
  readonly access: "page" | "api";
  handle(x: HttpContext, call: Call, params: Readonly<Record<string, string>>): Promise<void> | void;
}

/** Who leads, as /healthz, /readyz and the dashboard show it. */
function leadershipView(c: CoordinatorView): { role: string; id: string; leader: { id: string; host: string; term: number; grpc: string; http: string } | null } {
  const l = c.leader;
  return { role: c.role, id: c.id, leader: l ? { id: l.id, host: l.host, term: l.term, grpc: l.grpc, http: l.http } : null };
}

/** A run of the API's paths: 400 for a bad id, 503 on a standby, 404 when there is none. */
async function runById(x: HttpContext, id: string): Promise<RunController> {
  if (!RUN_ID_RE.test(id)) throw new HttpError(400, `"${id.slice(0, 80)}" is not a run id`);
  if (x.c.role !== "leader") throw new HttpError(503, new NotLeaderError(x.c.leader).message);
  const run = await x.c.loadRun(id);
  if (!run) throw new HttpError(404, `no run "${id}"`);
  return run;
}

/** A run's live view: its detail every tick, its board and map when they change; after its end, every 5th tick. */
function runEvents(x: HttpContext, call: Call, run: RunView): void {
  let lastBoard = "";
  let lastMap = "";
  let n = 0;
  x.events.open(call.req, call.res, (send) => {
    if (isTerminal(run.state) && n++ % 5 !== 0) return;
    send("detail", runDetail(x.c, run, x.speeds));
    const board = boardView(run);
    if (board.svg !== lastBoard) {
      lastBoard = board.svg;
      send("board", board);
    }
    const map = x.mapOf(run);
    if (map.cells !== lastMap) {
      lastMap = map.cells;
      send("map", map);
    }
  }, x.eventMs);
}

/** The cube list's query: `state`, `prefix`, `limit`, `recent=1`, `stuck` (seconds). */
function cubesQuery(url: URL): Parameters<typeof cubesView>[1] {
  const state = url.searchParams.get("state") || undefined;
  if (state !== undefined && cubeStateOf(state) === undefined) throw new HttpError(400, `"${state.slice(0, 40)}" is not a cube state (${CUBE_STATE_NAMES.join(", ")})`);
  const limit = Number(url.searchParams.get("limit") ?? 0);
  const stuck = Number(url.searchParams.get("stuck") ?? 0);
  if (!Number.isFinite(stuck) || stuck < 0) throw new HttpError(400, "stuck must be a number of seconds >= 0");
  return {
    state: state as CubeStateName | undefined, prefix: url.searchParams.get("prefix") || undefined, limit: Number.isFinite(limit) ? limit : 0,
    recent: url.searchParams.get("recent") === "1", stuckSec: stuck,
  };
}

/** The board of `?solution=N` (404 when the run has no such solution), else the best partial board. */
function boardOf(run: RunView, url: URL): ReturnType<typeof boardView> {
  const s = url.searchParams.get("solution");
  const index = s === null ? 0 : Number(s);
  if (s !== null && (!Number.isInteger(index) || !run.solutions[index])) throw new HttpError(404, `run ${run.id} has ${run.solutions.length} solution(s); no index ${s}`);
  return boardView(run, index);
}

const GET_ROUTES: readonly Route[] = [
  {
    path: "/metrics", access: "page",
    handle: async (x, { res }) => (x.metrics ? sendText(res, 200, await x.metrics.metrics(), x.metrics.contentType) : sendText(res, 404, "metrics are off\n")),
  },
  { path: "/healthz", access: "page", handle: (x, { res }) => sendJson(res, 200, { ok: true, ...leadershipView(x.c), runs: [...x.c.runs()].length, workers: x.c.liveWorkers().length }) },
  // Ready means "serves the API fully": the leader. A standby answers 503, so a load balancer sends calls to the leader.
  { path: "/readyz", access: "page", handle: (x, { res }) => sendJson(res, x.c.role === "leader" ? 200 : 503, leadershipView(x.c)) },
  { path: "/", access: "page", handle: (x, { res }) => x.files.send(res, "index.html") },
  { path: "runs/:run", access: "page", handle: (x, { res }) => x.files.send(res, "run.html") },
  { path: "static/:file", access: "page", handle: (x, { res }, p) => x.files.send(res, p.file) },
  { path: "/favicon.ico", access: "page", handle: (x, { res }) => x.files.send(res, "favicon.svg") },
  { path: "/api/runs", access: "api", handle: async (x, { res }) => sendJson(res, 200, { runs: await x.runsList(), coordinator: leadershipView(x.c) }) },
  { path: "/api/workers", access: "api", handle: (x, { res }) => sendJson(res, 200, { workers: workersView(x.c, x.speeds) }) },
  {
    path: "/api/events", access: "api",
    handle: (x, { req, res }) => x.events.open(req, res, async (send) => send("runs", { runs: await x.runsList(), workers: x.c.liveWorkers().length, coordinator: leadershipView(x.c) }), Math.max(x.eventMs, 1000)),
  },
  {
    path: "api/runs/:run", access: "api",
    handle: async (x, { res }, p) => {
      const run = await runById(x, p.run);
      sendJson(res, 200, { ...runDetail(x.c, run, x.speeds), history: run.cubeHistory, board: boardView(run), map: x.mapOf(run), cubeStates: CUBE_STATE_NAMES });
    },
  },
  { path: "api/runs/:run/cubes", access: "api", handle: async (x, { res, url }, p) => sendJson(res, 200, cubesView(await runById(x, p.run), cubesQuery(url))) },
  { path: "api/runs/:run/board", access: "api", handle: async (x, { res, url }, p) => sendJson(res, 200, boardOf(await runById(x, p.run), url)) },
  { path: "api/runs/:run/map", access: "api", handle: async (x, { res }, p) => sendJson(res, 200, x.mapOf(await runById(x, p.run))) },
  { path: "api/runs/:run/history", access: "api", handle: async (x, { res }, p) => sendJson(res, 200, { history: (await runById(x, p.run)).cubeHistory }) },
  { path: "api/runs/:run/timeline", access: "api", handle: async (x, { res }, p) => sendJson(res, 200, timelineView((await runById(x, p.run)).timeline)) },
  { path: "api/runs/:run/events", access: "api", handle: async (x, call, p) => runEvents(x, call, await runById(x, p.run)) },
  { path: "api/runs/:run/best.json", access: "api", handle: async (x, { res }, p) => sendDownload(res, bestDownload(await runById(x, p.run), "json")) },
  { path: "api/runs/:run/best.svg", access: "api", handle: async (x, { res }, p) => sendDownload(res, bestDownload(await runById(x, p.run), "svg")) },
  { path: "api/runs/:run/solutions/:file", access: "api", handle: async (x, { res }, p) => sendDownload(res, solutionDownload(await runById(x, p.run), p.file)) },
];

/** A board file, offered for saving under its name. */
function sendDownload(res: ServerResponse, d: Download): void {
  res.writeHead(200, { "content-type": d.contentType, "cache-control": "no-store", "content-disposition": `attachment; filename="${d.fileName}"` });
  res.end(d.body);
}

/** The route's parameters when it matches the call, else null. */
function match(route: Route, call: Call): Record<string, string> | null {
  if (route.path.startsWith("/")) return call.url.pathname === route.path ? {} : null;
  const pattern = route.path.split("/");
  if (pattern.length !== call.parts.length) return null;
  const params: Record<string, string> = {};
  for (const [i, seg] of pattern.entries()) {
    if (seg.startsWith(":")) params[seg.slice(1)] = call.parts[i];
    else if (seg !== call.parts[i]) return null;
  }
  return params;
}

async function get(x: HttpContext, call: Call): Promise<void> {
  for (const route of GET_ROUTES) {
    const params = match(route, call);
    if (!params) continue;
    if (route.access === "api") requireToken(x, call.req, false);
    return route.handle(x, call, params);
  }
  const { parts } = call;
  if (parts[0] !== "api") throw new HttpError(404, `no page ${call.url.pathname}`);
  requireToken(x, call.req, false);
  // An unknown endpoint of a run: the run is looked up first, so a bad or unknown run answers as such.
  if (parts[1] === "runs" && parts.length >= 3) await runById(x, parts[2]);
  throw new HttpError(404, `no endpoint ${call.url.pathname}`);
}

/** A run action (serve/http-actions.ts). */
async function post(x: HttpContext, call: Call): Promise<void> {
  const { parts, url } = call;
  if (parts[0] !== "api" || parts[1] !== "runs" || parts.length < 4) throw new HttpError(404, `no endpoint ${url.pathname}`);
  requireToken(x, call.req, true);
  const out = await runAction(x.c, parts.slice(2), await jsonBody(call.req), httpActor(call.req));
  x.forgetRunsList(); // the next runs list shows the change
  if (!out) throw new HttpError(404, `no endpoint ${url.pathname}`);
  if ("children" in out) x.log.info("cube re-split from the dashboard", { run: parts[2], cube: parts[4], children: out.children.length });
  sendJson(call.res, 200, out);
}

/** The endpoint's handler: routes a request, or throws HttpError. */
export function createHttpHandler(x: HttpContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const call: Call = { req, res, url, parts: url.pathname.split("/").filter(Boolean).map((p) => decodeURIComponent(p)) };
    const method = req.method ?? "GET";
    if (method === "GET" || method === "HEAD") return get(x, call);
    // Everything else may change state: Host and Origin first (403), then the token (401).
    requireHost(x, req);
    if (method === "POST") return post(x, call);
    res.setHeader("allow", "GET, HEAD, POST");
    throw new HttpError(405, `method ${method} not allowed`);
  };
}
