/**
 * A counting run (`run submit --all`) on the web dashboard in a real headless Chromium (Debian's /usr/bin/chromium
 * via playwright-core) against a real cluster: a private nats-server, `cubist coordinator --grpc --http`, and a
 * worker whose engine starts slowly (a wrapper sleeps before it), so the count is seen growing before it is complete.
 * The Prometheus metric shows the same count.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, writeFakeSolver, type CubistProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const PUZZLE = join(REPO_ROOT, "test/fixtures/cluster/count-5x5-1820.txt");

test("dashboard - a counting run in Chromium: the count grows on the run page and the runs list, ends exact, and the metric agrees", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-dashboard-count-"));
  const procs: CubistProcess[] = [];
  let browser: Browser | null = null;
  const pageErrors: string[] = [];
  try {
    const [grpc, http] = [await freePort(), await freePort()];
    const coordinator = spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", `127.0.0.1:${grpc}`, "--http", `127.0.0.1:${http}`], { env: marker.env });
    procs.push(coordinator);
    await coordinator.waitForLog(/HTTP \(metrics, dashboard\) listening/, 20_000);
    const submitted = spawnCubist(["run", "submit", PUZZLE, "--all", "--cubes", "48", "--coordinator", `127.0.0.1:${grpc}`]);
    assert.equal((await submitted.exited).code, 0, submitted.stderr());
    const runId = submitted.stdout().trim();
    const engine = writeFakeSolver(dir, "slow-engine", `sleep 0.3\nexec "${join(REPO_ROOT, "dist/engine/cubist-engine")}" "$@"`);
    procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "count-w1", "--grace", "0",
      "--cache-dir", join(dir, "cache"), "--status-interval", "0.5"], { env: { ...marker.env, CUBIST_ENGINE: engine } }));

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    const base = `http://127.0.0.1:${http}`;
    await page.goto(`${base}/runs/${runId}`);
    // While it runs: a lower bound that grows.
    await page.locator("#facts div", { hasText: /^Countat least [1-9][\d,]* solutions? so far/ }).waitFor({ timeout: 30_000 });
    assert.match((await page.locator("#progress .label").textContent()) ?? "", /closed.*; at least [\d,]+ solutions? so far/);
    // The end: exact, and the whole space closed.
    await page.locator("#facts div", { hasText: "Countexactly 1820 solutions" }).waitFor({ timeout: 90_000 });
    await page.locator("#run-state.state-sat").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator("#progress").getAttribute("aria-valuenow"), "100.00");
    await page.goto(base);
    await page.locator(`#runs tr[data-run="${runId}"]`, { hasText: "1820" }).waitFor({ timeout: 10_000 });
    assert.ok(await eventually(async () => /cubist_run_solutions_counted\{run="[^"]+"\} 1820/.test(await (await fetch(`${base}/metrics`)).text()), 10_000), "the metric shows the count");
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser?.close();
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => p.exited));
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
