/**
 * The web dashboard in a real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core; never a
 * downloaded browser) against a real cluster: a private nats-server, `cubist coordinator --http --auth-token`,
 * and two worker processes whose solver is Kissat behind a wrapper that holds every SAT answer back until the
 * test releases it, so that the run can be watched (UNSAT cubes close, progress moves) before it is solved.
 * Screenshots go to artifacts/ (gitignored).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { freePort } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { REPO_ROOT, spawnCubist, writeFakeSolver, type CubistProcess, stopProcesses } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";
import { generatePuzzle } from "../../core/generate.js";
import { writeCanonical } from "../../core/formats/index.js";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const TOKEN = "dashboard-test-token";
const ARTIFACTS = join(REPO_ROOT, "artifacts");

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, name), fullPage: true });
}

test("dashboard - a live run in Chromium: progress moves, a running cube is re-split with the token and its children appear, the solved board is drawn", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-dashboard-"));
  const procs: CubistProcess[] = [];
  let browser: Browser | null = null;
  const pageErrors: string[] = [];
  try {
    // A generated 6x6 with one planted solution (the clue puzzles have a solution in nearly every cube): most of
    // its cubes are UNSAT. SAT answers wait for the release file.
    const puzzleFile = join(dir, "gen-6x6-b3-c8-s2.txt");
    writeFileSync(puzzleFile, writeCanonical(generatePuzzle({ rows: 6, cols: 6, borderColors: 3, centerColors: 8, seed: 2 }).puzzle));
    const release = join(dir, "release");
    const gated = writeFakeSolver(dir, "gated-kissat",
      `out=$(kissat "$@"); rc=$?\nif [ "$rc" -eq 10 ]; then while [ ! -e "${release}" ]; do sleep 0.2; done; fi\nprintf "%s\\n" "$out"\nexit $rc`);
    const port = await freePort();
    const coordinator = spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", "off", "--http", `127.0.0.1:${port}`,
      "--auth-token", TOKEN, "--puzzle", puzzleFile, "--cubes", "16", "--search-ms", "0", "--log-level", "debug"], { env: marker.env });
    procs.push(coordinator);
    await coordinator.waitForLog(/HTTP \(metrics, dashboard\) listening/, 20_000);
    const base = `http://127.0.0.1:${port}`;
    let runId = "";
    assert.ok(await eventually(async () => {
      const r = (await (await fetch(`${base}/api/runs`)).json()) as { runs: Array<{ runId: string; state: string }> };
      runId = r.runs[0]?.runId ?? "";
      return r.runs.length === 1 && r.runs[0].state === "running";
    }, 15_000), "the run was submitted");

    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const page = await browser.newPage({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => pageErrors.push(e.message));

    // The runs list shows the run, live.
    await page.goto(base);
    await page.locator(`#runs tr[data-run="${runId}"]`).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(`#runs tr[data-run="${runId}"] .state`).textContent(), "running");
    await page.locator("#conn.conn-live").waitFor({ timeout: 10_000 });
    assert.match((await page.locator(`#runs tr[data-run="${runId}"] td`).last().textContent()) ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d$/, "Started has a date");
    await shot(page, "dashboard-runs.png");
    // Live updates (one a second) change rows in place: the link a user is clicking stays the same element. When each
    // update rebuilt the table, a click that straddled one was lost.
    const runLink = await page.locator(`#runs tr[data-run="${runId}"] a.run-link`).elementHandle();
    await page.waitForTimeout(2500);
    assert.equal(await runLink!.evaluate((a) => a.isConnected), true, "the run's link survived the list's updates");

    // Its page: nothing runs yet, progress 0.
    await page.click(`#runs tr[data-run="${runId}"] a.run-link`);
    await page.waitForURL(`${base}/runs/${runId}`);
    await page.locator("#run-state.state-running").waitFor({ timeout: 10_000 });
    assert.equal(await page.locator("#progress").getAttribute("aria-valuenow"), "0.00");
    assert.equal(await page.locator("#board-caption").textContent().then((s) => /^(Best partial placement|Hints only)/.test(s ?? "")), true);
    // No worker yet: the page says why its cubes wait.
    await page.locator("#facts div", { hasText: "Waitingno live workers" }).waitFor({ timeout: 10_000 });

    for (const id of ["dash-w1", "dash-w2"]) {
      procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", id, "--grace", "0",
        "--solver-path", gated, "--cache-dir", join(dir, `cache-${id}`), "--status-interval", "0.5"], { env: marker.env }));
    }

    // Running cubes appear (from the workers' heartbeats), with their workers.
    await page.locator("#running tbody tr[data-cube]").first().waitFor({ timeout: 20_000 });
    await page.locator("#workers tbody tr", { hasText: "dash-w1" }).waitFor({ timeout: 10_000 });
    const cube = await page.locator("#running tbody tr[data-cube]").first().getAttribute("data-cube");
    assert.ok(cube);

    // Re-split without a token: refused (401), the page asks for the token.
    await page.click(`#running button.resplit[data-cube="${cube}"]`);
    await page.locator("#message.message-error").waitFor({ timeout: 5000 });
    assert.match((await page.locator("#message").textContent()) ?? "", /token/i);
    assert.equal(await page.locator("#token-box.attention").count(), 1);

    // With the token (kept in sessionStorage): re-split a running cube whose split leaves children.
    await page.fill("#token-input", TOKEN);
    await page.click("#token-save");
    assert.equal(await page.evaluate("sessionStorage.getItem('cubist-token')"), TOKEN);
    // The priority control (with the token): the run's priority changes, and the facts show it.
    await page.fill("#priority", "3");
    await page.click("#btn-priority");
    await page.locator("#message.message-ok", { hasText: "Priority 3" }).waitFor({ timeout: 5000 });
    await page.locator("#facts div", { hasText: "Priority3" }).waitFor({ timeout: 10_000 });
    let split = "";
    let children = 0;
    // UNSAT cubes close fast; the SAT cube stays running (held by the wrapper), so keep trying until one sticks.
    const deadline = Date.now() + 30_000;
    for (let attempt = 0; Date.now() < deadline && children === 0; attempt++) {
      const row = page.locator("#running tbody tr[data-cube]").nth(attempt % 2 === 0 ? 0 : 1);
      const id = await row.getAttribute("data-cube", { timeout: 2000 }).catch(() => null);
      const button = row.locator("button.resplit");
      if (!id || !(await button.isVisible()) || (await button.isDisabled())) continue;
      // Clear the last message first (the priority change left one), so the wait below sees this click's answer.
      await page.evaluate("(() => { const m = document.getElementById('message'); m.textContent = ''; m.className = 'message'; })()");
      await button.click().catch(() => undefined);
      if (!(await page.locator("#message.message-ok, #message.message-error").waitFor({ timeout: 5000 }).then(() => true, () => false))) continue;
      const text = (await page.locator("#message").textContent()) ?? "";
      const m = /re-split into (\d+) children/.exec(text);
      if (m && id) {
        split = id;
        children = Number(m[1]);
      }
    }
    assert.ok(children > 0, "a running cube was re-split into children");
    // Its children appear in the cube list (highlighted), and the parent is marked re-split.
    await page.locator(`#cubes tr[data-cube="${split}.0"]`).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator(`#cubes tr[data-cube^="${split}."].highlight`).count(), children);
    await page.locator(`#cubes tr[data-cube="${split}"] .state-resplit`).waitFor({ timeout: 10_000 });
    await shot(page, "dashboard-run-live.png");

    // Progress moves while cubes close; the map and the chart show them.
    assert.ok(await eventually(async () => Number(await page.locator("#progress").getAttribute("aria-valuenow")) > 0, 30_000), "progress rose");
    await page.locator('#map svg rect[data-state="unsat"]').first().waitFor({ timeout: 10_000 });
    await page.locator("#chart .uplot canvas").waitFor({ timeout: 10_000 });
    // The bottom band of the stack (series 6): unsat cubes.
    assert.ok(await eventually(async () => (await page.evaluate("Math.max(0, ...(document.getElementById('chart').uplot?.data[6] ?? []))")) as number > 0, 10_000),
      "the chart shows unsat cubes");
    assert.match((await page.locator("#progress .label").textContent()) ?? "", /closed, ETA/);
    await shot(page, "dashboard-run-progress.png");

    // Let the SAT answer through.
    writeFileSync(release, "");

    // The end: the verified solution, drawn like the CLI's SVG (one group per cell, four triangles each).
    await page.locator("#run-state.state-sat").waitFor({ timeout: 45_000 });
    await page.locator("#board[data-kind=solution]").waitFor({ timeout: 10_000 });
    assert.match((await page.locator("#board-caption").textContent()) ?? "", /Verified solution/);
    assert.equal(await page.locator("#board svg g[data-cell]").count(), 36);
    assert.equal(await page.locator("#board svg g[data-cell] polygon").count(), 144);
    assert.equal(await page.locator("#progress .label").textContent(), "solved", "a solved run is not shown as 0.000% closed");
    await shot(page, "dashboard-run-solved.png");
    // The solution as a file (fetched with the token the page holds): cubist verify accepts it.
    const link = page.locator(`#board-downloads a[data-file="${runId}-solution-0.json"]`);
    await link.waitFor({ timeout: 10_000 });
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    const saved = join(dir, "solution.json");
    await download.saveAs(saved);
    const verified = spawnCubist(["verify", puzzleFile, saved], { env: marker.env });
    assert.equal((await verified.exited).code, 0, `${verified.stdout()}${verified.stderr()}`);
    // Back on the runs list, the solved run counts every cube it made (purged ones too), not "1 / 1".
    await page.goto(base);
    const counts = page.locator(`#runs tr[data-run="${runId}"] td.num`).first();
    await counts.waitFor({ timeout: 10_000 });
    const [, closed, total] = /^(\d+) \/ (\d+)$/.exec((await counts.textContent()) ?? "") ?? [];
    assert.ok(Number(total) >= 16 && Number(closed) >= 1 && Number(closed) <= Number(total), `cubes column: ${closed} / ${total}`);
    assert.deepEqual(pageErrors, []);
  } finally {
    await browser?.close();
    await stopProcesses(procs);
    await t.close();
    rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
