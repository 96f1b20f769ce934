/**
 * A counting run (`run submit --all`) on the web dashboard in a real headless Chromium (Debian's /usr/bin/chromium
 * via playwright-core) against a real cluster: a private nats-server, `cubist coordinator --grpc --http`, and a
 * worker whose engine starts slowly (a wrapper sleeps before it), so the count is seen growing before it is complete.
 * The Prometheus metric shows the same count. A triangle counting run shows its size, its count and a triangle board.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, writeFakeSolver, type CubistProcess, stopProcesses } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const PUZZLE = join(REPO_ROOT, "test/fixtures/cluster/count-5x5-1820.txt");

/** A private cluster's coordinator (gRPC and HTTP), a browser page, and what the test started, cleaned up after `fn`. */
async function withDashboard(fn: (d: { t: TestNats; grpc: string; base: string; page: Page; dir: string; env: NodeJS.ProcessEnv; procs: CubistProcess[] }) => Promise<void>): Promise<void> {
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
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await fn({ t, grpc: `127.0.0.1:${grpc}`, base: `http://127.0.0.1:${http}`, page, dir, env: marker.env, procs });
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser?.close();
    await stopProcesses(procs);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
}

async function submit(args: string[]): Promise<string> {
  const submitted = spawnCubist(["run", "submit", ...args]);
  assert.equal((await submitted.exited).code, 0, submitted.stderr());
  return submitted.stdout().trim();
}

test("dashboard - a counting run in Chromium: the count grows on the run page and the runs list, ends exact, and the metric agrees", () => withDashboard(async ({ t, grpc, base, page, dir, env, procs }) => {
  const runId = await submit([PUZZLE, "--all", "--cubes", "48", "--coordinator", grpc]);
  // The engine starts 0.3 s late while the flag file exists: until the page has shown the count growing.
  const flag = join(dir, "slow");
  writeFileSync(flag, "");
  const engine = writeFakeSolver(dir, "slow-engine", `if [ -e ${flag} ]; then sleep 0.3; fi\nexec "${join(REPO_ROOT, "dist/engine/cubist-engine")}" "$@"`);
  procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "count-w1", "--grace", "0",
    "--cache-dir", join(dir, "cache"), "--status-interval", "0.5"], { env: { ...env, CUBIST_ENGINE: engine } }));
  await page.goto(`${base}/runs/${runId}`);
  // While it runs: a lower bound that grows.
  await page.locator("#facts div", { hasText: /^Countat least [1-9][\d,]* solutions? so far/ }).waitFor({ timeout: 30_000 });
  assert.match((await page.locator("#progress .label").textContent()) ?? "", /closed.*; at least [\d,]+ solutions? so far/);
  rmSync(flag);
  // The end: exact, and the whole space closed.
  await page.locator("#facts div", { hasText: "Countexactly 1820 solutions" }).waitFor({ timeout: 90_000 });
  await page.locator("#run-state.state-sat").waitFor({ timeout: 10_000 });
  assert.equal(await page.locator("#progress").getAttribute("aria-valuenow"), "100.00");
  // One count: no "Solutions 100 recorded" beside it.
  assert.equal(await page.locator("#facts dt", { hasText: /^Solutions$/ }).count(), 0);
  await page.goto(base);
  await page.locator(`#runs tr[data-run="${runId}"]`, { hasText: "1820" }).waitFor({ timeout: 10_000 });
  assert.ok(await eventually(async () => /cubist_run_solutions_counted\{run="[^"]+"\} 1820/.test(await (await fetch(`${base}/metrics`)).text()), 10_000), "the metric shows the count");
}));

test("dashboard - a triangle counting run in Chromium: its size, the exact count, a verified triangle board drawn, and the metric", () => withDashboard(async ({ t, grpc, base, page, dir, env, procs }) => {
  const runId = await submit([join(REPO_ROOT, "test/fixtures/cluster/tri-4-l4-s4.txt"), "--all", "--cubes", "8", "--coordinator", grpc]);
  procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "tri-w1", "--grace", "0",
    "--cache-dir", join(dir, "cache-tri")], { env }));
  await page.goto(`${base}/runs/${runId}`);
  await page.locator("#facts div", { hasText: "Countexactly 146 solutions" }).waitFor({ timeout: 60_000 });
  await page.locator("#facts div", { hasText: /^Puzzletriangle of side 4, 16 pieces, 0 hints/ }).waitFor({ timeout: 10_000 });
  await page.locator("#board-caption", { hasText: /^Verified solution/ }).waitFor({ timeout: 10_000 });
  // Sixteen triangles, three labels each.
  assert.equal(await page.locator("#board svg polygon").count(), 16);
  assert.equal(await page.locator("#board svg circle").count(), 48);
  await page.goto(base);
  await page.locator(`#runs tr[data-run="${runId}"]`, { hasText: "triangle of side 4" }).waitFor({ timeout: 10_000 });
  assert.ok(await eventually(async () => new RegExp(`cubist_run_solutions_counted\\{run="${runId}"\\} 146`).test(await (await fetch(`${base}/metrics`)).text()), 10_000), "the metric shows the count");
}));
