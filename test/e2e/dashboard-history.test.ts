/**
 * The run page's chart and events across a coordinator restart, in a real headless Chromium (Debian's
 * /usr/bin/chromium driven by playwright-core) against a real cluster: a private nats-server, `cubist coordinator`
 * (gRPC and HTTP), one worker whose Kissat waits a moment per cube so that the run lasts. The cubes-over-time chart
 * has a time axis and value axes with labels and ticks; the coordinator is SIGKILLed and another one starts on the same
 * NATS and ports; after a reload the chart still starts where the run started (its points come from the ledger), and
 * the events list shows the takeover after the submission.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { apiClient, freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, writeFakeSolver, type CubistProcess, stopProcesses } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";
import type { RunInfo, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const UNSAT = readFileSync("test/fixtures/cluster/unsat-6x6.txt", "utf8");

interface ChartState { labels: string[]; first: number; last: number; points: number; xTicks: string; yTicks: string; y2Ticks: string; inkLeftOfPlot: number; inkBelowPlot: number }

/** The chart as the page drew it: axis labels, points, tick labels, and how many dark pixels the axes' strips hold. */
async function chartState(page: Page): Promise<ChartState> {
  return (await page.evaluate(`(() => {
    const box = document.getElementById("chart");
    const u = box.uplot;
    const canvas = box.querySelector("canvas");
    const ctx = canvas.getContext("2d");
    const ink = (x, y, w, h) => {
      const d = ctx.getImageData(x, y, Math.max(1, w), Math.max(1, h)).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0 && d[i] + d[i + 1] + d[i + 2] < 400) n++;
      return n;
    };
    const b = u.bbox;
    return {
      labels: u.axes.map((a) => a.label), first: u.data[0][0], last: u.data[0][u.data[0].length - 1], points: u.data[0].length,
      xTicks: box.dataset.xTicks ?? "", yTicks: box.dataset.yTicks ?? "", y2Ticks: box.dataset.y2Ticks ?? "",
      inkLeftOfPlot: ink(0, b.top, b.left, b.height), inkBelowPlot: ink(b.left, b.top + b.height, b.width, canvas.height - b.top - b.height),
    };
  })()`)) as ChartState;
}

function startCoordinator(t: Awaited<ReturnType<typeof startTestNats>>, grpc: number, http: number, env: Record<string, string>): CubistProcess {
  return spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", `127.0.0.1:${grpc}`, "--http", `127.0.0.1:${http}`,
    "--ack-wait", "5", "--log-level", "debug"], { env });
}

test("dashboard - the cubes chart has labelled axes and keeps its points across a coordinator restart; the events list shows the takeover", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-dashboard-history-"));
  const procs: CubistProcess[] = [];
  let browser: Browser | null = null;
  try {
    const grpc = await freePort();
    const http = await freePort();
    let coordinator = startCoordinator(t, grpc, http, marker.env);
    procs.push(coordinator);
    await coordinator.waitForLog(/coordinator leads/, 20_000);
    const slow = writeFakeSolver(dir, "slow-kissat", 'sleep 0.4\nexec kissat "$@"');
    procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "w1", "--solver-path", slow, "--grace", "0"], { env: marker.env }));
    const api = apiClient(`127.0.0.1:${grpc}`);
    const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, puzzleName: "unsat-6x6.txt", cubing: { targetCubes: 24 }, solver: { solver: "kissat", timeLimitSec: 60, searchMs: 0 } });
    const id = run!.runId;
    assert.ok(await eventually(async () => (await api.call<unknown, RunInfo>("getRun", { runId: id })).status!.cubes!.unsat >= 3, 60_000), "cubes closed");
    api.close();

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const base = `http://127.0.0.1:${http}`;
    await page.goto(`${base}/runs/${id}`);
    await page.locator("#chart .uplot canvas").waitFor({ timeout: 10_000 });
    const before = await chartState(page);
    assert.deepEqual(before.labels, ["time", "cubes", "closed %"]);
    assert.match(before.xTicks, /^\d\d:\d\d(:\d\d)?(\|\d\d:\d\d(:\d\d)?)*$/, "time ticks");
    assert.match(before.yTicks, /^\d[\d,]*(\|\d[\d,]*)+$/, "cube count ticks");
    assert.match(before.y2Ticks, /^0%\|.*100%$/, "closed share ticks");
    assert.ok(before.inkLeftOfPlot > 20 && before.inkBelowPlot > 20, `the axes are drawn: ${JSON.stringify(before)}`);
    assert.ok(before.points >= 2, "points before the restart");
    await page.locator('#timeline tr[data-kind="submitted"]').waitFor({ timeout: 10_000 });
    mkdirSync(join(REPO_ROOT, "artifacts"), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, "artifacts", "dashboard-chart-before-restart.png"), fullPage: true });

    coordinator.kill("SIGKILL");
    await coordinator.exited;
    const restartedAt = Date.now() / 1000;
    coordinator = startCoordinator(t, grpc, http, marker.env);
    procs.push(coordinator);
    await coordinator.waitForLog(/coordinator leads/, 20_000);
    await page.reload();
    await page.locator("#chart .uplot canvas").waitFor({ timeout: 10_000 });
    const after = await chartState(page);
    // The chart starts where the run started, not at the restart, and goes on after it.
    assert.equal(after.first, before.first, "the first point is the run's start, kept in the ledger");
    assert.ok(after.first < restartedAt - 1 && after.last >= before.last, JSON.stringify({ before, after, restartedAt }));
    assert.ok(after.inkLeftOfPlot > 20 && after.inkBelowPlot > 20, "the axes are drawn after the restart");
    await page.locator('#timeline tr[data-kind="takeover"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('#timeline tr[data-kind="submitted"]').count(), 1);
    await page.screenshot({ path: join(REPO_ROOT, "artifacts", "dashboard-chart-after-restart.png"), fullPage: true });
  } finally {
    await browser?.close();
    await stopProcesses(procs);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
