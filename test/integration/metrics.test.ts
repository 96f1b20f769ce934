/**
 * Prometheus metrics of real processes: a private nats-server, the coordinator (in-process, its HTTP endpoint on
 * a free port) and a worker process started with `--http`, solving real puzzles with real Kissat. The values are
 * checked against the run's own bookkeeping; the Grafana dashboard and the Prometheus rules may only use names
 * that these scrapes really contain.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { Metadata, status as Status } from "@grpc/grpc-js";
import { createLogger } from "../../cluster/log.js";
import { loadCoordinatorConfig } from "../../coordinator/config.js";
import { startCoordinatorProcess, type CoordinatorProcess } from "../../coordinator/main.js";
import { createService } from "../../coordinator/serve/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { requestFor, waitForRunEnd } from "../helpers/coordinator.js";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, type CubistProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";

/** Kissat refutes each of its cubes in tens of ms. */
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The Prometheus text format, as far as prom-client writes it. */
function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    assert.ok(m, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

/** The samples of `name` whose labels include `labels`. */
function find(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one value of `name{labels}` (fails when there is none or several). */
function one(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = find(samples, name, labels);
  assert.equal(found.length, 1, `${name}${JSON.stringify(labels)}: ${found.length} samples`);
  return found[0].value;
}

async function scrape(url: string): Promise<{ text: string; samples: Sample[]; type: string }> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const text = await res.text();
  return { text, samples: parseExposition(text), type: res.headers.get("content-type") ?? "" };
}

async function startCoordinator(t: TestNats, logs: string[]): Promise<CoordinatorProcess> {
  const config = loadCoordinatorConfig({ nats: { servers: t.url }, prefix: t.names.prefix, grpc: null, http: "127.0.0.1:0", logLevel: "debug" });
  return startCoordinatorProcess(config, createLogger({ component: "coordinator", level: "debug", write: (l) => logs.push(l) }));
}

/** Names seen by the first two tests (a finished run and a running one), for the dashboard test. */
const exported = new Set<string>();
let scrapes = 0;

test("metrics - after an UNSAT run, coordinator and worker export its cube counts, verdicts, solver work and cache use", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const cacheDir = mkdtempSync(join(tmpdir(), "cubist-metrics-cache-"));
  const logs: string[] = [];
  let proc: CoordinatorProcess | null = null;
  let worker: CubistProcess | null = null;
  try {
    proc = await startCoordinator(t, logs);
    assert.ok(proc.http, "the HTTP endpoint is up");
    const wport = await freePort();
    worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "2", "--id", "metrics-w1", "--cache-dir", cacheDir,
      "--http", `127.0.0.1:${wport}`, "--grace", "0", "--status-interval", "0.5"], { env: marker.env });
    await worker.waitForLog(/HTTP \(metrics\) listening/, 20_000);

    const run = await proc.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 12 }));
    assert.equal(await waitForRunEnd(run, 50_000), RunState.RUN_STATE_UNSAT);
    const counts = run.table.snapshotCounts();
    assert.ok(counts.unsat > 0);
    assert.equal(counts.unsat + counts.resplit, run.table.size, "every cube closed unsat or re-split");

    const c = await scrape(`${proc.http!.url}/metrics`);
    assert.match(c.type, /^text\/plain; version=0\.0\.4/);
    const s = c.samples;
    const R = { run: run.id };
    assert.equal(one(s, "cubist_run_state", { ...R, state: "unsat" }), 1);
    assert.equal(one(s, "cubist_run_state", { ...R, state: "running" }), 0);
    assert.equal(one(s, "cubist_runs", { state: "unsat" }), 1);
    assert.equal(one(s, "cubist_run_cubes", { ...R, state: "unsat" }), counts.unsat);
    assert.equal(one(s, "cubist_run_cubes", { ...R, state: "unsat" }), run.table.size - counts.resplit, "unsat = cubes - re-split");
    for (const state of ["queued", "running", "sat", "unknown", "failed"]) assert.equal(one(s, "cubist_run_cubes", { ...R, state }), 0, state);
    assert.equal(one(s, "cubist_cubes", { state: "unsat" }), counts.unsat);
    assert.equal(one(s, "cubist_run_cubes_refuted_by_split", R), counts.refutedBySplit);
    assert.equal(one(s, "cubist_run_cubes_closed_total", R), counts.unsat);
    assert.ok(Math.abs(one(s, "cubist_run_progress_ratio", R) - 1) < 1e-9);
    assert.equal(one(s, "cubist_run_eta_seconds", R), 0);
    assert.equal(one(s, "cubist_solutions_verified_total", R), 0);
    assert.equal(one(s, "cubist_solutions_rejected_total", R), 0);
    assert.equal(one(s, "cubist_verdicts_malformed_total"), 0);
    const unsatVerdicts = one(s, "cubist_verdicts_total", { kind: "unsat" });
    assert.ok(unsatVerdicts >= counts.unsat, `${unsatVerdicts} unsat verdicts for ${counts.unsat} unsat cubes`);
    assert.equal(one(s, "cubist_verdicts_total", { kind: "sat" }), 0);
    assert.equal(one(s, "cubist_cube_solve_seconds_count", { kind: "unsat" }), unsatVerdicts);
    assert.ok(one(s, "cubist_cube_solve_seconds_sum", { kind: "unsat" }) > 0);
    assert.equal(one(s, "cubist_cube_solve_seconds_bucket", { kind: "unsat", le: "+Inf" }), unsatVerdicts);
    assert.ok(one(s, "cubist_solver_propagations_total") > 0);
    assert.ok(one(s, "cubist_solver_conflicts_total") >= 0);
    assert.ok(one(s, "cubist_verdict_messages_total") >= unsatVerdicts);
    assert.equal(one(s, "cubist_cluster_workers"), 1);
    assert.equal(one(s, "cubist_cluster_slots"), 2);
    assert.equal(one(s, "cubist_cluster_quarantined_workers"), 0);
    for (const kind of ["verdict_identity", "verdict_unknown_cube", "verdict_lease"]) assert.equal(one(s, "cubist_coordinator_rejected_messages_total", { kind }), 0, kind);
    // The run ended, its consumer is gone: no lag series for it.
    assert.equal(find(s, "cubist_run_consumer_pending_messages", R).length, 0);
    assert.ok(find(s, "process_cpu_seconds_total").length === 1, "default process metrics");
    assert.ok(find(s, "nodejs_eventloop_lag_seconds").length === 1, "default Node.js metrics");
    // Bounded labels only: never a cube or worker id (`checker` is worker or coordinator).
    for (const x of s.filter((x) => x.name.startsWith("cubist_"))) {
      for (const k of Object.keys(x.labels)) assert.ok(["run", "state", "kind", "le", "checker"].includes(k), `${x.name} has label ${k}`);
      assert.ok(!Object.values(x.labels).includes("metrics-w1"), `${x.name} names the worker`);
    }

    // The worker counts the same verdicts (after its publish is acknowledged, so a moment later).
    const wurl = `http://127.0.0.1:${wport}/metrics`;
    let w = await scrape(wurl);
    assert.ok(await eventually(async () => {
      w = await scrape(wurl);
      return one(w.samples, "cubist_worker_cubes_done_total", { kind: "unsat" }) === unsatVerdicts;
    }, 5000), `worker unsat ${one(w.samples, "cubist_worker_cubes_done_total", { kind: "unsat" })} vs ${unsatVerdicts}`);
    const ws = w.samples;
    assert.equal(one(ws, "cubist_worker_slots"), 2);
    assert.equal(one(ws, "cubist_worker_busy_slots"), 0);
    assert.equal(one(ws, "cubist_worker_cubes_done_total", { kind: "sat" }), 0);
    assert.equal(one(ws, "cubist_worker_cubes_done_total", { kind: "error" }), 0);
    assert.equal(one(ws, "cubist_worker_cube_seconds_count", { kind: "unsat" }), unsatVerdicts);
    assert.equal(one(ws, "cubist_worker_solver_propagations_total"), one(s, "cubist_solver_propagations_total"), "the same solver statistics on both sides");
    assert.equal(one(ws, "cubist_worker_solver_conflicts_total"), one(s, "cubist_solver_conflicts_total"));
    assert.equal(one(ws, "cubist_worker_engine_placements_total"), one(s, "cubist_search_nodes_total"), "the engine's placements on both sides");
    assert.equal(one(ws, "cubist_worker_tasks_terminated_total"), 0);
    assert.equal(one(ws, "cubist_worker_verdict_publish_retries_total"), 0);
    assert.equal(one(ws, "cubist_worker_verdict_publish_failures_total"), 0);
    // A fresh cache: one download, every later lookup a hit; the bytes on disk are the bytes downloaded.
    assert.equal(one(ws, "cubist_worker_formula_downloads_total"), 1);
    assert.ok(one(ws, "cubist_worker_formula_cache_misses_total") >= 1);
    assert.equal(one(ws, "cubist_worker_formula_cache_hits_total") + one(ws, "cubist_worker_formula_cache_misses_total"), unsatVerdicts, "one lookup per cube");
    const cnf = readdirSync(cacheDir).filter((f) => f.endsWith(".cnf"));
    assert.equal(cnf.length, 1);
    const bytes = readFileSync(join(cacheDir, cnf[0])).length;
    assert.equal(one(ws, "cubist_worker_formula_download_bytes_total"), bytes);
    assert.equal(one(ws, "cubist_worker_formula_cache_bytes"), bytes);
    for (const x of ws.filter((x) => x.name.startsWith("cubist_"))) {
      for (const k of Object.keys(x.labels)) assert.ok(["kind", "le"].includes(k), `${x.name} has label ${k}`);
    }
    const health = await fetch(`http://127.0.0.1:${wport}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { state: string }).state, "running");

    for (const x of [...s, ...ws]) exported.add(x.name);
    scrapes++;
  } finally {
    worker?.kill("SIGKILL");
    await worker?.exited;
    await proc?.close();
    await t.close();
    rmSync(cacheDir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});

test("metrics - a run nobody works on: JetStream lag equals its queued cubes; malformed verdicts are counted; a cancelled run loses its lag series", async () => {
  const t = await startTestNats();
  const logs: string[] = [];
  let proc: CoordinatorProcess | null = null;
  try {
    proc = await startCoordinator(t, logs);
    const run = await proc.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 8 }));
    await run.splitDone();
    const queued = run.table.snapshotCounts().queued;
    assert.ok(queued > 0);
    const url = `${proc.http!.url}/metrics`;
    let s = (await scrape(url)).samples;
    const R = { run: run.id };
    assert.equal(one(s, "cubist_run_consumer_pending_messages", R), queued);
    assert.equal(one(s, "cubist_run_consumer_ack_pending_messages", R), 0);
    assert.equal(one(s, "cubist_run_consumer_redelivered_messages", R), 0);
    assert.equal(one(s, "cubist_verdict_consumer_pending_messages"), 0);
    assert.equal(one(s, "cubist_run_state", { ...R, state: "running" }), 1);
    assert.equal(one(s, "cubist_run_cubes", { ...R, state: "queued" }), queued);
    assert.equal(one(s, "cubist_run_progress_ratio", R), 0);
    assert.equal(find(s, "cubist_run_eta_seconds", R).length, 0, "no ETA while nothing closed");
    assert.equal(one(s, "cubist_cluster_workers"), 0);
    assert.equal(one(s, "cubist_verdicts_malformed_total"), 0);
    for (const x of s) exported.add(x.name);
    scrapes++;

    await t.layout.js.publish(t.names.verdictsSubject(run.id, "junk"), new Uint8Array([0xff, 0xfe, 0x01]));
    await t.layout.js.publish(t.names.verdictsSubject(run.id, "junk"), new TextEncoder().encode("not a verdict"));
    assert.ok(await eventually(async () => {
      s = (await scrape(url)).samples;
      return one(s, "cubist_verdicts_malformed_total") === 2;
    }, 5000), "both malformed verdicts counted");
    assert.ok(one(s, "cubist_verdict_messages_total") >= 2);

    await run.cancel("test");
    s = (await scrape(url)).samples;
    assert.equal(one(s, "cubist_run_state", { ...R, state: "cancelled" }), 1);
    assert.equal(find(s, "cubist_run_consumer_pending_messages", R).length, 0);

    // A scrape while NATS is gone still answers, quickly, without lag series.
    await t.server.kill();
    const t0 = Date.now();
    const res = await fetch(url);
    assert.equal(res.status, 200);
    assert.ok(Date.now() - t0 < 3000, `scrape took ${Date.now() - t0} ms`);
    // Back, so that the coordinator's close writes its last status and lease (with NATS gone each of its writes
    // waits out its timeout: about 12 s in all).
    await t.server.start();
  } finally {
    await proc?.close();
    await t.close();
  }
});

test("metrics - an ended run's run-labelled series are retired after --metrics-retention; run delete forgets the run", async () => {
  const t = await startTestNats();
  const logs: string[] = [];
  let proc: CoordinatorProcess | null = null;
  try {
    const config = loadCoordinatorConfig({ nats: { servers: t.url }, prefix: t.names.prefix, grpc: null, http: "127.0.0.1:0", logLevel: "debug", metricsRetentionSec: 1 });
    proc = await startCoordinatorProcess(config, createLogger({ component: "coordinator", level: "debug", write: (l) => logs.push(l) }));
    const kept = await proc.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 4 }));
    const ended = await proc.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 4 }));
    await kept.splitDone();
    await ended.splitDone();
    await ended.cancel("test");
    const url = `${proc.http!.url}/metrics`;
    let s = (await scrape(url)).samples;
    assert.equal(one(s, "cubist_run_state", { run: ended.id, state: "cancelled" }), 1, "kept for the retention");
    assert.ok(await eventually(async () => {
      s = (await scrape(url)).samples;
      return s.every((x) => x.labels.run !== ended.id);
    }, 10_000), "every series of the ended run retired");
    assert.equal(one(s, "cubist_run_state", { run: kept.id, state: "running" }), 1, "a running run keeps its series");
    assert.equal(one(s, "cubist_runs", { state: "cancelled" }), 1, "the unlabelled totals still count it");

    // Deleting: a running run is refused; an ended one goes from memory, the runs bucket and the ledger.
    const service = createService(proc.coordinator);
    const call = (method: "deleteRun", runId: string): Promise<unknown> => new Promise((resolve, reject) => {
      (service[method] as unknown as (c: unknown, cb: (e: { code?: number; details?: string } | null, r?: unknown) => void) => void)(
        { request: { runId }, metadata: new Metadata(), getPeer: () => "test" }, (e, r) => (e ? reject(e) : resolve(r)));
    });
    await assert.rejects(call("deleteRun", kept.id), (e: { code?: number; details?: string }) => e.code === Status.FAILED_PRECONDITION && /cancel it first/.test(e.details ?? ""));
    await call("deleteRun", ended.id);
    assert.equal(proc.coordinator.getRun(ended.id), undefined);
    assert.equal(await proc.coordinator.runRecord(ended.id), null);
    assert.equal(await proc.coordinator.loadRun(ended.id), undefined, "no ledger left to rebuild it from");
    assert.equal(one((await scrape(url)).samples, "cubist_runs", { state: "cancelled" }), 0);
    await assert.rejects(call("deleteRun", ended.id), (e: { code?: number }) => e.code === Status.NOT_FOUND);
  } finally {
    await proc?.close();
    await t.close();
  }
});

/** Metric and recording-rule names a PromQL expression uses. */
function namesIn(expr: string): string[] {
  const stripped = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/\{[^}]*\}/g, "").replace(/\[[^\]]*\]/g, "");
  return [...stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b/g)].map((m) => m[1]).filter((n) => /^(cubist_|process_|nodejs_)/.test(n) || n.includes(":"));
}

test("metrics - the Grafana dashboard and the Prometheus rules use only names the processes export", () => {
  assert.equal(scrapes, 2, "needs the names scraped by the first two tests");
  const dir = join(REPO_ROOT, "deploy/prometheus/rules");
  const recorded = new Set<string>();
  const ruleExprs: string[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith(".yml"))) {
    const doc = parseYaml(readFileSync(join(dir, f), "utf8")) as { groups: Array<{ rules: Array<{ record?: string; alert?: string; expr: string }> }> };
    for (const g of doc.groups) {
      for (const r of g.rules) {
        if (r.record) recorded.add(r.record);
        ruleExprs.push(String(r.expr));
      }
    }
  }
  assert.ok(recorded.size >= 5 && ruleExprs.length >= 10);

  const dash = JSON.parse(readFileSync(join(REPO_ROOT, "deploy/grafana/dashboards/cubist.json"), "utf8")) as {
    uid: string; panels: Array<{ type: string; title: string; targets?: Array<{ expr: string }> }>; templating: { list: Array<{ definition?: string }> };
  };
  assert.equal(dash.uid, "cubist-overview");
  const panelExprs = dash.panels.flatMap((p) => (p.targets ?? []).map((x) => ({ panel: p.title, expr: x.expr })));
  assert.ok(panelExprs.length >= 20, `${panelExprs.length} expressions`);
  for (const title of ["Progress by run", "Cubes by state", "Cubes closed per second", "Conflicts and propagations per second", "Workers and slots", "Redelivered cube tasks"]) {
    assert.ok(dash.panels.some((p) => p.title === title), `panel "${title}"`);
  }
  const all = [
    ...panelExprs,
    ...dash.templating.list.filter((v) => v.definition).map((v) => ({ panel: "variable", expr: v.definition!.replace(/^label_values\(([^,]+),.*$/, "$1") })),
    ...ruleExprs.map((expr) => ({ panel: "rules", expr })),
  ];
  const used = new Set<string>();
  for (const { panel, expr } of all) {
    for (const name of namesIn(expr)) {
      used.add(name);
      if (name.includes(":")) assert.ok(recorded.has(name), `${panel}: ${name} is no recording rule`);
      else assert.ok(exported.has(name), `${panel}: ${name} is not exported (in ${expr})`);
    }
  }
  for (const r of recorded) assert.ok(used.has(r) || r.startsWith("cluster:") || r.startsWith("run:"), r);
  for (const n of ["cubist_run_progress_ratio", "cubist_run_cubes", "cubist_cluster_workers", "cubist_run_consumer_redelivered_messages", "cubist_worker_busy_slots"]) {
    assert.ok(used.has(n), `${n} is shown somewhere`);
  }
});
