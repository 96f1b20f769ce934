/**
 * The Prometheus side with Debian's real `promtool` and `prometheus`: the shipped configuration and rules are
 * accepted (and the alert rules behave as their unit tests say), and a real Prometheus scraping a local cluster
 * (coordinator + two worker processes, every 1 s) sees a run's cubes close, through its HTTP query API.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { createLogger } from "../../cluster/log.js";
import { loadCoordinatorConfig } from "../../coordinator/config.js";
import { startCoordinatorProcess, type CoordinatorProcess } from "../../coordinator/main.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { requestFor, waitForRunEnd } from "../helpers/coordinator.js";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, type CubistProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";

const PROM_DIR = join(REPO_ROOT, "deploy/prometheus");

function promtool(args: string[], cwd = PROM_DIR): { code: number | null; out: string } {
  const r = spawnSync("promtool", args, { cwd, encoding: "utf8", timeout: 30_000 });
  if (r.error) throw new Error(`promtool: ${r.error.message} (scripts/setup.sh installs it)`);
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test("prometheus - promtool accepts the configurations and rules, and the rule unit tests pass", () => {
  const config = promtool(["check", "config", "prometheus.yml"]);
  assert.equal(config.code, 0, config.out);
  assert.match(config.out, /SUCCESS: 2 rule files found/);
  const rules = promtool(["check", "rules", "rules/cubist-recording.yml", "rules/cubist-alerts.yml"]);
  assert.equal(rules.code, 0, rules.out);
  const unit = promtool(["test", "rules", "tests/cubist-rules.test.yml"]);
  assert.equal(unit.code, 0, unit.out);
  assert.match(unit.out, /SUCCESS/);

  // The Kubernetes variant: checked as it is where promtool knows Kubernetes discovery; Debian's build does not,
  // so there its pod discovery is checked by hand and the rest (relabelling included) by promtool.
  const k8sText = readFileSync(join(PROM_DIR, "prometheus-kubernetes.yml"), "utf8");
  const direct = promtool(["check", "config", "prometheus-kubernetes.yml"]);
  if (direct.code !== 0) {
    assert.match(direct.out, /field kubernetes_sd_configs not found/, direct.out);
    const doc = parseYaml(k8sText) as { scrape_configs: Array<Record<string, unknown>> };
    const k8sJobs = doc.scrape_configs.filter((j) => j.kubernetes_sd_configs);
    assert.equal(k8sJobs.length, 1);
    const job = k8sJobs[0];
    assert.deepEqual(job.kubernetes_sd_configs, [{ role: "pod" }]);
    const relabel = job.relabel_configs as Array<Record<string, unknown>>;
    assert.ok(relabel.some((r) => r.action === "keep" && r.regex === "cubist-worker"), "keeps only worker pods");
    assert.ok(relabel.some((r) => r.target_label === "job" && r.replacement === "cubist-worker"), "one job name for all workers");
    delete job.kubernetes_sd_configs;
    job.static_configs = [{ targets: ["pod.example:9465"] }];
    const dir = mkdtempSync(join(tmpdir(), "cubist-promtool-"));
    try {
      writeFileSync(join(dir, "prometheus.yml"), stringifyYaml({ ...doc, rule_files: [join(PROM_DIR, "rules/*.yml")] }));
      const rest = promtool(["check", "config", join(dir, "prometheus.yml")], dir);
      assert.equal(rest.code, 0, rest.out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

interface QueryResult {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(base: string, q: string): Promise<QueryResult[]> {
  const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(q)}`);
  const body = (await res.json()) as { status: string; data?: { resultType: string; result: QueryResult[] }; error?: string };
  assert.equal(body.status, "success", `${q}: ${body.error}`);
  return body.data!.result;
}

test("prometheus - a real Prometheus scraping the coordinator and two workers every second sees the run's cubes close", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-prometheus-"));
  const logs: string[] = [];
  const workers: CubistProcess[] = [];
  let coord: CoordinatorProcess | null = null;
  let prom: ChildProcess | null = null;
  let promLog = "";
  try {
    coord = await startCoordinatorProcess(
      loadCoordinatorConfig({ nats: { servers: t.url }, prefix: t.names.prefix, grpc: null, http: "127.0.0.1:0" }),
      createLogger({ component: "coordinator", level: "debug", write: (l) => logs.push(l) }),
    );
    const workerPorts = [await freePort(), await freePort()];
    for (const [i, port] of workerPorts.entries()) {
      workers.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", `prom-w${i + 1}`, "--grace", "0",
        "--http", `127.0.0.1:${port}`, "--cache-dir", join(dir, `cache-${i}`)], { env: marker.env }));
    }
    await Promise.all(workers.map((w) => w.waitForLog(/HTTP \(metrics\) listening/, 20_000)));

    const promPort = await freePort();
    writeFileSync(join(dir, "prometheus.yml"), stringifyYaml({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: [join(PROM_DIR, "rules/*.yml")],
      scrape_configs: [
        { job_name: "cubist-coordinator", static_configs: [{ targets: [`127.0.0.1:${coord.http!.port}`] }] },
        { job_name: "cubist-worker", static_configs: [{ targets: workerPorts.map((p) => `127.0.0.1:${p}`) }] },
      ],
    }));
    prom = spawn("prometheus", [
      `--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "tsdb")}`, `--web.listen-address=127.0.0.1:${promPort}`,
      "--storage.tsdb.retention.time=1h", "--log.level=warn",
    ], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...marker.env } });
    prom.stdout!.on("data", (d: Buffer) => (promLog += d.toString()));
    prom.stderr!.on("data", (d: Buffer) => (promLog += d.toString()));
    const base = `http://127.0.0.1:${promPort}`;
    assert.ok(await eventually(async () => (await fetch(`${base}/-/ready`).catch(() => null))?.status === 200, 20_000), `Prometheus not ready:\n${promLog}`);
    // Every target up before the run starts, so its whole life is scraped.
    assert.ok(await eventually(async () => (await query(base, "up == 1")).length === 3, 15_000), `targets not up:\n${promLog}`);

    // unsat-5x5: Kissat closes its cubes in tens of ms; the pause below makes sure Prometheus sees them open first.
    const run = await coord.coordinator.submitRun(requestFor("test/fixtures/cluster/unsat-5x5.txt", { targetCubes: 12 }));
    // Held until Prometheus has scraped it with cubes still open: the run alone can end inside one scrape interval,
    // and a rate needs two samples that differ.
    await run.pause(false);
    await run.splitDone();
    assert.ok(await eventually(async () => Number((await query(base, `cubist_run_cubes{run="${run.id}",state="queued"}`))[0]?.value[1]) > 0, 15_000), "the paused run's queued cubes scraped");
    await run.resume();
    assert.equal(await waitForRunEnd(run, 40_000), RunState.RUN_STATE_UNSAT);
    const unsat = run.table.snapshotCounts().unsat;

    // Prometheus has seen the closed cubes, the finished run and the work of both workers.
    const sel = `{run="${run.id}"}`;
    let closed: QueryResult[] = [];
    assert.ok(await eventually(async () => {
      closed = await query(base, `cubist_run_cubes{run="${run.id}",state="unsat"}`);
      return closed.length === 1 && Number(closed[0].value[1]) === unsat;
    }, 15_000), `unsat cubes seen by Prometheus: ${JSON.stringify(closed)} (want ${unsat})`);
    assert.equal(closed[0].metric.job, "cubist-coordinator");
    const progress = await query(base, `cubist_run_progress_ratio${sel}`);
    assert.ok(Math.abs(Number(progress[0].value[1]) - 1) < 1e-9);
    assert.ok(await eventually(async () => Number((await query(base, `cubist_run_state{run="${run.id}",state="unsat"}`))[0]?.value[1]) === 1, 5000));
    let done: QueryResult[] = [];
    assert.ok(await eventually(async () => {
      done = await query(base, 'sum(cubist_worker_cubes_done_total{job="cubist-worker",kind="unsat"})');
      return done.length === 1 && Number(done[0].value[1]) >= unsat;
    }, 10_000), `worker cubes done: ${JSON.stringify(done)}`);
    const perWorker = await query(base, 'cubist_worker_slots{job="cubist-worker"}');
    assert.equal(perWorker.length, 2, "both workers scraped");
    // The recording rules run on the real data: a closed-cube rate per run was recorded.
    let rate: QueryResult[] = [];
    assert.ok(await eventually(async () => {
      rate = await query(base, `max_over_time(run:cubist_cubes_closed:rate1m${sel}[5m])`);
      return rate.length === 1 && Number(rate[0].value[1]) > 0;
    }, 10_000), `recorded closed rate: ${JSON.stringify(rate)}`);
    const alerts = await query(base, 'ALERTS{alertname=~"CubistSolutionRejected|CubistCubesFailed|CubistMalformedVerdicts"}');
    assert.deepEqual(alerts, [], "no alert about bad answers or failed cubes");
  } finally {
    if (prom && prom.exitCode === null) {
      const exited = new Promise((r) => prom!.once("exit", r));
      prom.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (prom.exitCode === null) prom.kill("SIGKILL");
    }
    for (const w of workers) w.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    await coord?.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
