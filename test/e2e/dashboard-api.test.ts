/**
 * The dashboard's HTTP side without a browser: pages and static files, the JSON endpoints, server-sent events,
 * and the mutating calls, which are authenticated like the gRPC API (bearer token; 401 without it) and answer
 * with the gRPC semantics mapped to HTTP statuses. A real coordinator on a private nats-server; no workers, so
 * the run's cubes stay queued while the test looks at them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "../../cluster/log.js";
import { loadCoordinatorConfig } from "../../coordinator/config.js";
import { startCoordinatorProcess, type CoordinatorProcess } from "../../coordinator/main.js";
import { requestFor } from "../helpers/coordinator.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { eventually } from "../helpers/runs.js";

const UNSAT = "test/fixtures/cluster/unsat-6x6.txt";
const TOKEN = "api-test-token-123";

async function start(t: TestNats, extra: { authReads?: boolean } = {}): Promise<CoordinatorProcess> {
  const logs: string[] = [];
  const config = loadCoordinatorConfig({ nats: { servers: t.url }, prefix: t.names.prefix, grpc: null, http: "127.0.0.1:0", authToken: TOKEN, ...extra });
  return startCoordinatorProcess(config, createLogger({ component: "coordinator", level: "debug", write: (l) => logs.push(l) }));
}

function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

const auth = { authorization: `Bearer ${TOKEN}` };

test("dashboard api - pages, JSON views, events, and token-checked actions with the gRPC API's semantics", async () => {
  const t = await startTestNats();
  let proc: CoordinatorProcess | null = null;
  try {
    proc = await start(t);
    const base = proc.http!.url;
    const run = await proc.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 8 }));
    await run.splitDone();
    const queued = run.table.snapshotCounts().queued;

    // Pages and static files: served from coordinator/dashboard with a strict CSP; nothing outside it.
    const index = await fetch(base);
    assert.equal(index.status, 200);
    assert.match(index.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(index.headers.get("content-security-policy") ?? "", /default-src 'self'/);
    assert.match(await index.text(), /\/static\/runs\.js/);
    assert.match(await (await fetch(`${base}/runs/${run.id}`)).text(), /\/static\/run\.js/);
    assert.match((await fetch(`${base}/static/run.js`)).headers.get("content-type") ?? "", /^text\/javascript/);
    assert.equal((await fetch(`${base}/static/..%2Fhttp-server.ts`)).status, 404);
    assert.equal((await fetch(`${base}/static/nope.js`)).status, 404);
    assert.equal((await fetch(`${base}/healthz`)).status, 200);

    // Reads need no token (no --auth-reads).
    const list = (await (await fetch(`${base}/api/runs`)).json()) as { runs: Array<{ runId: string; state: string; cubes: { queued: number } }> };
    assert.deepEqual(list.runs.map((r) => [r.runId, r.state, r.cubes.queued]), [[run.id, "running", queued]]);
    const detail = (await (await fetch(`${base}/api/runs/${run.id}`)).json()) as {
      run: { runId: string; rows: number; progress: number }; running: unknown[]; history: unknown[];
      board: { kind: string; cubeId: string; placed: number; cells: number; svg: string }; map: { side: number; cells: string; weights: Record<string, number> };
    };
    assert.equal(detail.run.rows, 6);
    assert.deepEqual(detail.running, []);
    assert.ok(Array.isArray(detail.history));
    // The best partial board: the deepest open cube's placements (this puzzle has no hints), drawn by renderSVG.
    const deepest = Math.max(...[...run.table.entries()].map((e) => e.placementCount));
    assert.equal(detail.board.kind, "partial");
    assert.equal(detail.board.placed, deepest);
    assert.equal(detail.board.cells, 36);
    assert.equal((detail.board.svg.match(/<g data-cell=/g) ?? []).length, deepest);
    assert.equal(detail.map.side, 64);
    assert.equal(detail.map.cells.length, 64 * 64);
    assert.match(detail.map.cells, /^[qr]+$/, "all queued, or refuted by the split");
    assert.ok(Math.abs(Object.values(detail.map.weights).reduce((a, b) => a + b, 0) - 1) < 1e-9);

    const cubes = (await (await fetch(`${base}/api/runs/${run.id}/cubes?state=queued&limit=3`)).json()) as { total: number; cubes: Array<{ cubeId: string; state: string }> };
    assert.equal(cubes.total, queued);
    assert.deepEqual(cubes.cubes.map((c) => c.cubeId), ["0", "1", "2"]);
    const recent = (await (await fetch(`${base}/api/runs/${run.id}/cubes?limit=2&recent=1`)).json()) as { cubes: Array<{ cubeId: string }> };
    assert.deepEqual(recent.cubes.map((c) => c.cubeId), [String(run.table.size - 1), String(run.table.size - 2)]);
    assert.equal((await fetch(`${base}/api/runs/not%20a%20run`)).status, 400);
    assert.equal((await fetch(`${base}/api/runs/no-such-run`)).status, 404);
    assert.equal((await fetch(`${base}/api/runs/${run.id}/board?solution=0`)).status, 404);

    // Server-sent events: detail, board and map arrive at once.
    const ctrl = new AbortController();
    const events = await fetch(`${base}/api/runs/${run.id}/events`, { signal: ctrl.signal });
    assert.match(events.headers.get("content-type") ?? "", /^text\/event-stream/);
    const reader = events.body!.getReader();
    let text = "";
    const deadline = Date.now() + 5000;
    while (!(/event: detail/.test(text) && /event: board/.test(text) && /event: map/.test(text)) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    ctrl.abort();
    assert.match(text, /event: detail\ndata: \{/);
    assert.match(text, /event: board\ndata: \{/);
    assert.match(text, /event: map\ndata: \{/);

    // Actions: 401 without or with a wrong token (nothing changes), 415 for a body that is not JSON.
    const noToken = await post(base, `/api/runs/${run.id}/pause`, {});
    assert.equal(noToken.status, 401);
    assert.match(noToken.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal((await post(base, `/api/runs/${run.id}/pause`, {}, { authorization: "Bearer wrong-token-xyz" })).status, 401);
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/0/resplit`, {})).status, 401);
    assert.equal(run.state, 2 /* RUNNING */);
    const form = await fetch(`${base}/api/runs/${run.id}/pause`, { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "{}" });
    assert.equal(form.status, 415);

    // With the token: the gRPC API's semantics (FailedPrecondition -> 409, NotFound -> 404, InvalidArgument -> 400).
    const paused = await post(base, `/api/runs/${run.id}/pause`, {}, auth);
    assert.equal(paused.status, 200);
    assert.equal(((await paused.json()) as { run: { state: string } }).run.state, "paused");
    assert.equal((await post(base, `/api/runs/${run.id}/pause`, {}, auth)).status, 409);
    // Paused: no ETA, and its running time stands still.
    type Clock = { run: { etaSeconds: number; runningSeconds: number } };
    const clock = async (): Promise<Clock> => (await (await fetch(`${base}/api/runs/${run.id}`)).json()) as Clock;
    const before = await clock();
    await new Promise((r) => setTimeout(r, 1200));
    const later = await clock();
    assert.deepEqual([before.run.etaSeconds, later.run.etaSeconds], [-1, -1]);
    assert.equal(later.run.runningSeconds, before.run.runningSeconds, "the running time stands still while paused");
    assert.equal((await post(base, `/api/runs/${run.id}/resume`, {}, auth)).status, 200);
    assert.equal((await post(base, `/api/runs/${run.id}/resume`, {}, auth)).status, 409);
    // Priority: changed with the token (and shown in the runs list), refused without it or out of range.
    assert.equal((await post(base, `/api/runs/${run.id}/priority`, { priority: 4 })).status, 401);
    const prio = await post(base, `/api/runs/${run.id}/priority`, { priority: 4 }, auth);
    assert.equal(prio.status, 200);
    assert.equal(((await prio.json()) as { run: { priority: number } }).run.priority, 4);
    assert.equal(run.priority, 4);
    assert.equal((await post(base, `/api/runs/${run.id}/priority`, { priority: "high" }, auth)).status, 400);
    assert.equal((await post(base, `/api/runs/${run.id}/priority`, { priority: 5000 }, auth)).status, 400);
    type Listed = { runs: Array<{ runId: string; priority: number; waiting: string; initialCubes: number }> };
    const mine = async () => ((await (await fetch(`${base}/api/runs`)).json()) as Listed).runs.find((x) => x.runId === run.id)!;
    assert.equal((await mine()).priority, 4);
    assert.equal((await mine()).initialCubes, run.table.initialCubes);
    // No worker runs here: that is why its cubes wait (refreshed with the run's status, once a second).
    assert.ok(await eventually(async () => (await mine()).waiting === "no live workers", 10_000), "the runs list says why the run waits");

    const split = await post(base, `/api/runs/${run.id}/cubes/0/resplit`, { depth: 1 }, auth);
    assert.equal(split.status, 200);
    const r = (await split.json()) as { children: string[]; refuted: number };
    assert.deepEqual(r.children, Array.from({ length: r.children.length }, (_, k) => `0.${k}`));
    assert.equal(run.table.get("0")!.state, "resplit");
    const sub = (await (await fetch(`${base}/api/runs/${run.id}/cubes?prefix=0`)).json()) as { cubes: Array<{ cubeId: string; state: string; subtree: string; subtreeResplits: number; depth: number }> };
    assert.deepEqual(sub.cubes.map((c) => c.cubeId), ["0", ...r.children]);
    assert.ok(sub.cubes.every((c) => c.subtree === "0" && c.subtreeResplits === 1), "one subtree, re-split once");
    assert.deepEqual(sub.cubes.map((c) => c.depth), [0, ...r.children.map(() => 1)]);
    // Nothing has run, so no subtree is stuck; a bad threshold is refused.
    assert.equal(((await (await fetch(`${base}/api/runs/${run.id}/cubes?stuck=60`)).json()) as { total: number }).total, 0);
    assert.equal((await fetch(`${base}/api/runs/${run.id}/cubes?stuck=-1`)).status, 400);
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/0/resplit`, {}, auth)).status, 409, "already re-split");
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/999/resplit`, {}, auth)).status, 404);
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/1/resplit`, { depth: 17 }, auth)).status, 400);
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/1/resplit`, { depth: "deep" }, auth)).status, 400);
    assert.equal((await post(base, `/api/runs/${run.id}/cubes/bad..id/resplit`, {}, auth)).status, 400);

    const cancelled = await post(base, `/api/runs/${run.id}/cancel`, { reason: "test over" }, auth);
    assert.equal(cancelled.status, 200);
    assert.equal(((await cancelled.json()) as { run: { state: string } }).run.state, "cancelled");
    assert.equal((await post(base, `/api/runs/${run.id}/cancel`, {}, auth)).status, 409);
    // Ended: its open cubes were purged; the map says so.
    const map = (await (await fetch(`${base}/api/runs/${run.id}/map`)).json()) as { cells: string };
    assert.match(map.cells, /^[pr]+$/);
    assert.equal((await fetch(`${base}/api/runs/${run.id}/cubes?state=purged`).then((x) => x.json()) as { total: number }).total, run.table.snapshotCounts().queued);
  } finally {
    await proc?.close();
    await t.close();
  }
});

test("dashboard api - with --auth-reads the API needs the token for reads too; pages and /metrics stay open", async () => {
  const t = await startTestNats();
  let proc: CoordinatorProcess | null = null;
  try {
    proc = await start(t, { authReads: true });
    const base = proc.http!.url;
    assert.equal((await fetch(`${base}/api/runs`)).status, 401);
    assert.equal((await fetch(`${base}/api/events`)).status, 401);
    const ok = await fetch(`${base}/api/runs`, { headers: auth });
    assert.equal(ok.status, 200);
    const body = await ok.json() as { runs: unknown[]; coordinator: { role: string } };
    assert.deepEqual(body.runs, []);
    assert.equal(body.coordinator.role, "leader");
    assert.equal((await fetch(base)).status, 200);
    assert.equal((await fetch(`${base}/static/common.js`)).status, 200);
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
  } finally {
    await proc?.close();
    await t.close();
  }
});

test("dashboard api - a default address that is taken only turns the endpoint off; an explicit one is an error", async () => {
  const t = await startTestNats();
  let first: CoordinatorProcess | null = null;
  let second: CoordinatorProcess | null = null;
  try {
    first = await start(t);
    const taken = `127.0.0.1:${first.http!.port}`;
    const logs: string[] = [];
    const log = createLogger({ component: "coordinator", level: "debug", write: (l) => logs.push(l) });
    await assert.rejects(
      startCoordinatorProcess(loadCoordinatorConfig({ nats: { servers: t.url }, prefix: "other", grpc: null, http: taken }), log),
      /--http.*cannot listen on 127\.0\.0\.1:\d+.*EADDRINUSE/,
    );
    second = await startCoordinatorProcess(loadCoordinatorConfig({ nats: { servers: t.url }, prefix: "other", grpc: null, http: taken, httpOptional: true }), log);
    assert.equal(second.http, null);
    assert.ok(logs.some((l) => /default HTTP address is taken/.test(l)));
    assert.throws(() => loadCoordinatorConfig({ nats: { servers: t.url }, http: "localhost" }), /--http/);
    assert.equal(loadCoordinatorConfig({ nats: { servers: t.url }, http: "off" }).http, null);
  } finally {
    await second?.close();
    await first?.close();
    await t.close();
  }
});
