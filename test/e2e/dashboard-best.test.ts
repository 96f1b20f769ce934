/**
 * The dashboard of a long run in a real headless Chromium: Eternity II with its 5 hints on a real cluster (private
 * nats-server, coordinator, one worker running the placement engine alone with 1-second cubes). Nothing will solve
 * it; what the user must see is how far the search got: the best board (checked and scored by the coordinator)
 * with its score, the viewer link, the score over time, placements per second and the work left by the tree
 * estimates.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, type CubistProcess, stopProcesses } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

test("dashboard - a long run shows its best board with score and viewer link, the score over time, placements/s and the work left", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-dashboard-best-"));
  const procs: CubistProcess[] = [];
  let browser: Browser | null = null;
  const pageErrors: string[] = [];
  try {
    const port = await freePort();
    const coordinator = spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", "off", "--http", `127.0.0.1:${port}`,
      "--puzzle", join(REPO_ROOT, "test/fixtures/eternity2/e2_pieces.txt"), "--hints", join(REPO_ROOT, "test/fixtures/eternity2/e2_hints.txt"),
      "--cubes", "8", "--cube-time", "1", "--cube-time-first", "1", "--log-level", "info"], { env: marker.env });
    procs.push(coordinator);
    await coordinator.waitForLog(/HTTP \(metrics, dashboard\) listening/, 30_000);
    const base = `http://127.0.0.1:${port}`;
    let runId = "";
    let failure = "";
    // The coordinator encodes and uploads Eternity II's formula (23 MB) as it starts: on a loaded machine a request
    // can fail meanwhile, which is not yet an answer.
    assert.ok(await eventually(async () => {
      const r = await fetch(`${base}/api/runs`).then((res) => res.json() as Promise<{ runs: Array<{ runId: string; state: string }> }>)
        .catch((err: Error) => { failure = `${err.message} (${String(err.cause)})`; return { runs: [] }; });
      runId = r.runs[0]?.runId ?? "";
      return r.runs.length === 1 && r.runs[0].state === "running";
    }, 30_000), `the run was submitted; last failure: ${failure}; coordinator: ${coordinator.stderr().slice(-2000)}`);
    procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "best-w1", "--grace", "0",
      "--cache-dir", join(dir, "cache"), "--status-interval", "0.5"], { env: marker.env }));

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${base}/runs/${runId}`);
    await page.locator("#run-state.state-running").waitFor({ timeout: 15_000 });

    // The first unknown cubes bring a best board: caption with its score, the viewer link, the score over time.
    await page.locator("#board-caption", { hasText: /^Best board: score \d+ of 480/ }).waitFor({ timeout: 60_000 });
    const caption = (await page.locator("#board-caption").textContent()) ?? "";
    const [, score, placed] = /score (\d+) of 480, (\d+) of 256 cells/.exec(caption) ?? [];
    assert.ok(Number(placed) > 5 && Number(score) > 0, caption);
    assert.match((await page.locator("#board-link a").getAttribute("href")) ?? "", /^https:\/\/e2\.bucas\.name\/#puzzle=/);
    assert.equal(await page.locator("#board-link").isVisible(), true);
    await page.locator("#best-chart .uplot canvas").waitFor({ timeout: 10_000 });
    assert.match((await page.locator("#best-chart").getAttribute("data-y-ticks")) ?? "", /^\d+(\|\d+)*$/, "the score axis has ticks");

    // Downloads of the best board: a JSON file that cubist render reads (the same board, scored alike) and the SVG.
    const link = page.locator(`#board-downloads a[data-file="${runId}-best.json"]`);
    await link.waitFor({ timeout: 10_000 });
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    assert.equal(download.suggestedFilename(), `${runId}-best.json`);
    const file = join(dir, "best.json");
    await download.saveAs(file);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { rows: number; cols: number; score: number; maxScore: number; board: unknown };
    assert.deepEqual([saved.rows, saved.cols, saved.maxScore], [16, 16, 480]);
    assert.ok(saved.score >= Number(score), `${saved.score} vs the caption's ${score}`);
    const rendered = spawnCubist(["render", join(REPO_ROOT, "test/fixtures/eternity2/e2_pieces.txt"), file], { env: marker.env });
    assert.equal((await rendered.exited).code, 0, rendered.stderr());
    assert.match(rendered.stdout(), new RegExp(`^score ${saved.score} of 480`));
    const svgRes = await fetch(`${base}/api/runs/${runId}/best.svg`);
    assert.equal(svgRes.headers.get("content-type"), "image/svg+xml; charset=utf-8");
    assert.match(svgRes.headers.get("content-disposition") ?? "", new RegExp(`attachment; filename="${runId}-best.svg"`));
    assert.match(await svgRes.text(), /^<svg/);
    assert.equal((await fetch(`${base}/api/runs/${runId}/solutions/0.json`)).status, 404, "no solution yet");

    // Placements and the work left (the engine's tree estimates) among the facts.
    const facts = async (): Promise<string> => (await page.locator("#facts").textContent()) ?? "";
    assert.ok(await eventually(async () => /Work left \(tree estimate\)\s*[0-9.]+e\+\d+ ± /.test(await facts()), 30_000), await facts());
    assert.match(await facts(), /placements\/s/);

    // The same best board reaches Prometheus's text format.
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, new RegExp(`cubist_run_best_score\\{run="${runId}"\\} \\d+`));
    assert.match(metrics, new RegExp(`cubist_run_remaining_placements\\{run="${runId}"\\} [0-9.e+]+`));
    mkdirSync(join(REPO_ROOT, "artifacts"), { recursive: true });
    await page.screenshot({ path: join(REPO_ROOT, "artifacts", "dashboard-best-board.png"), fullPage: true });
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser?.close();
    await stopProcesses(procs);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
