/**
 * Issue 11, findings 4-7, against a real cluster: a private nats-server, a `cubist coordinator` process (gRPC and
 * HTTP on free ports, no worker, so a run's cubes stay queued), a junk publisher on the heartbeat subjects, the
 * CLI as its own processes, and plain HTTP requests with forged Host and Origin headers.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, type CubistProcess, runCubist, type CubistResult } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { CubeTask, WorkerStatus, type RunningCube } from "../../proto/gen/cubist/v1/cube.js";
import { leaseProof } from "../../proto/lease-proof.js";
import { request } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePuzzle } from "../../core/generate.js";
import { writeCanonical } from "../../core/formats/index.js";
import { createNames } from "../../proto/contract.js";
import { Coordinator } from "../../coordinator/shell/coordinator.js";
import { silentLogger } from "../../cluster/log.js";
import { LimitExceededError, sizeLimits } from "../../core/limits.js";
import { COORDINATOR_LIMIT_FLAGS } from "../../coordinator/config.js";
import { releaseProofs } from "../../coordinator/shell/formula-upload.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { uploadProof } from "../../certify/proof-store.js";
import { until } from "../helpers/poll.js";

const marker = newMarker();
const PUZZLE = "test/fixtures/clues/clue1.txt";
let nats: TestNats;
let coordinator: CubistProcess;
let grpc: string;
let http: string;

async function cubist(args: string[]): Promise<CubistResult> {
  return runCubist(args, { env: { ...marker.env, CUBIST_COORDINATOR: grpc, CUBIST_AUTH_TOKEN: "" } });
}

function ok(r: CubistResult): string {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  return r.stdout;
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${http}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").pop()) : NaN;
}

/** A POST with exactly these headers (fetch may not set Host), to `base` (default: the coordinator's HTTP). */
function post(path: string, headers: Record<string, string>, base = http): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, base);
    const body = "{}";
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": String(body.length), ...headers } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function runState(run: string): Promise<string> {
  return (JSON.parse(ok(await cubist(["run", "show", run, "--json"]))) as { state: string }).state;
}

async function submit(args: string[]): Promise<string> {
  return ok(await cubist(["run", "submit", PUZZLE, "--cubes", "8", ...args])).trim();
}

before(async () => {
  nats = await startTestNats({ layout: false });
  coordinator = spawnCubist(["coordinator", "--nats", nats.url, "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0", "--log-level", "debug"], { env: marker.env });
  grpc = /address=(\S+:\d+)/.exec(await coordinator.waitForLog(/gRPC API listening/, 20_000))![1];
  http = /url=(http:\S+)/.exec(await coordinator.waitForLog(/HTTP \(metrics, dashboard\) listening/, 20_000))![1];
});

after(async () => {
  coordinator?.kill("SIGTERM");
  await coordinator?.exited;
  await nats?.close();
  await waitNoMarked(marker.value);
});

/** The lease of each cube task of `run`, read from the cube stream (which the test's client may read, workers may not). */
async function leasesOf(run: string): Promise<Map<string, string>> {
  const stream = nats.names.cubesStream;
  const info = await nats.jsm.streams.info(stream);
  const leases = new Map<string, string>();
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await nats.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m?.subject !== nats.names.cubesSubject(run)) continue;
    const task = CubeTask.decode(m.data);
    leases.set(task.cubeId, task.lease);
  }
  return leases;
}

/** `run show RUN --json`'s cube counts. */
async function cubeCounts(run: string): Promise<{ queued?: number; running?: number }> {
  return (JSON.parse(ok(await cubist(["run", "show", run, "--json"]))) as { cubes: { queued?: number; running?: number } }).cubes;
}

test("heartbeats - forged ids and impossible running entries are dropped and counted; cubes list --stuck stays empty", async () => {
  const run = await submit([]);
  const cubes = JSON.parse(ok(await cubist(["cubes", "list", run, "--json"]))) as { cubes: Array<{ cube: string }> };
  assert.ok(cubes.cubes.length >= 4, JSON.stringify(cubes));
  const [good, old, future, early] = cubes.cubes.map((c) => c.cube);
  const leases = await leasesOf(run);
  const day = 86_400_000;
  const beat = (subject: string, s: Omit<Partial<WorkerStatus>, "running"> & { running?: Array<Partial<RunningCube>> }): void =>
    nats.nc.publish(subject, WorkerStatus.encode(WorkerStatus.fromPartial({ host: "h", slots: 4, busy: 0, uptimeSec: 100, solver: "kissat", ...s })).finish());
  const junk = (): void => {
    const t = Date.now();
    // One honest worker: its cube shows running (the positive control).
    beat("cubist.workers.honest", { workerId: "honest", running: [{ runId: run, cubeId: good, startedUnixMs: t - 5000, leaseProof: leaseProof(leases.get(good)!, "honest") }] });
    // The finding: a start time of 0 (20,780 days ago), one in the future, one before the worker started, a cube of an unknown run.
    beat("cubist.workers.liar", {
      workerId: "liar",
      running: [
        { runId: run, cubeId: old, startedUnixMs: 0 },
        { runId: run, cubeId: future, startedUnixMs: t + day },
        { runId: "no-such-run", cubeId: "1", startedUnixMs: t - 1000 },
      ],
    });
    // Issue 23 finding 4: queued cubes claimed with plausible start times, without a proof of their lease, and with
    // the honest worker's proof (a proof of one worker does not serve another).
    beat("cubist.workers.forger", {
      workerId: "forger",
      uptimeSec: 3600,
      running: [
        { runId: run, cubeId: old, startedUnixMs: t - 100_000 },
        { runId: run, cubeId: future, startedUnixMs: t - 100_000, leaseProof: leaseProof(leases.get(future)!, "other") },
        { runId: run, cubeId: good, startedUnixMs: t - 100_000, leaseProof: leaseProof(leases.get(good)!, "honest") },
      ],
    });
    beat("cubist.workers.young", { workerId: "young", uptimeSec: 10, running: [{ runId: run, cubeId: early, startedUnixMs: t - 3_600_000 }] });
    // Markup as an id (stored before), an id that is not the subject's, and bytes that are no heartbeat.
    beat("cubist.workers.x", { workerId: "<img src=x onerror=alert(1)>", running: [{ runId: run, cubeId: old, startedUnixMs: 0 }] });
    beat("cubist.workers.honest2", { workerId: "someone-else", running: [{ runId: run, cubeId: old, startedUnixMs: 0 }] });
    nats.nc.publish("cubist.workers.garbage", new Uint8Array([0xff, 0xff, 0xff, 0xff]));
  };
  const timer = setInterval(junk, 400);
  try {
    junk();
    await until("the honest worker's cube shown running", 20_000, async () => {
      const r = JSON.parse(ok(await cubist(["cubes", "list", run, "--state", "running", "--json"]))) as { cubes: Array<{ cube: string; worker: string }> };
      return r.cubes.some((c) => c.cube === good && c.worker === "honest");
    });
    const stuck = ok(await cubist(["cubes", "list", run, "--stuck", "1m"]));
    assert.equal(stuck, "no matching cubes\n");
    const running = JSON.parse(ok(await cubist(["cubes", "list", run, "--state", "running", "--json"]))) as { cubes: Array<{ cube: string; worker: string; runningSec: number }> };
    assert.deepEqual(running.cubes.map((c) => [c.cube, c.worker]), [[good, "honest"]]);
    assert.ok(running.cubes[0].runningSec < 3600, JSON.stringify(running));
    const counts = await cubeCounts(run);
    assert.equal(counts.running ?? 0, 1, JSON.stringify(counts));
    assert.equal(counts.queued ?? 0, cubes.cubes.length - 1, JSON.stringify(counts));
    const workerRows = (await (await fetch(`${http}/api/workers`)).json()) as { workers: Array<{ workerId: string; falseClaims: number }> };
    assert.ok((workerRows.workers.find((w) => w.workerId === "forger")?.falseClaims ?? 0) >= 3, JSON.stringify(workerRows));
    assert.equal(workerRows.workers.find((w) => w.workerId === "honest")?.falseClaims, 0);
    for (const kind of ["running_not_leased", "running_start_before_worker", "running_future_start", "running_unknown_run", "heartbeat_bad_worker_id", "heartbeat_wrong_subject", "heartbeat_undecodable"]) {
      assert.ok((await metric("cubist_coordinator_rejected_messages_total", `kind="${kind}"`)) >= 1, kind);
    }
    const workers = (await (await fetch(`${http}/api/workers`)).json()) as { workers: Array<{ id?: string; workerId?: string }> };
    const ids = workers.workers.map((w) => w.id ?? w.workerId);
    assert.ok(!ids.some((id) => id === "someone-else" || String(id).includes("<")), JSON.stringify(ids));
  } finally {
    clearInterval(timer);
  }
  ok(await cubist(["run", "cancel", run]));
});

test("terminal - a run named with ESC sequences and newlines prints escaped in run list, run show and run cancel", async () => {
  const name = "evil\x1b]0;pwned\x07\x1b[2J\nr0  sat  100%\u202e";
  const run = await submit(["--name", name]);
  for (const args of [["run", "list"], ["run", "show", run]]) {
    const out = ok(await cubist(args));
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(out, /[\u0000-\u0009\u000b-\u001f\u202e]/, args.join(" "));
    assert.ok(out.includes("evil\\e]0;pwned\\x07\\e[2J\\nr0  sat  100%\\u202e"), out);
  }
  const cancelled = ok(await cubist(["run", "cancel", run, "--reason", "bye\x1b[31m\r\nforged"]));
  assert.equal(cancelled.split("\n").length, 2, cancelled);
  assert.ok(cancelled.includes("bye\\e[31m\\r\\nforged"), cancelled);
});

test("web - a DNS-rebinding or cross-origin POST is refused with 403 and changes nothing; same-origin calls work", async () => {
  const run = await submit([]);
  const port = new URL(http).port;
  const rebinding = await post(`/api/runs/${run}/cancel`, { host: `attacker.example:${port}` });
  assert.equal(rebinding.status, 403, rebinding.body);
  assert.match(rebinding.body, /--http-allow-host attacker\.example/);
  const crossSite = await post(`/api/runs/${run}/pause`, { host: `127.0.0.1:${port}`, origin: "http://attacker.example" });
  assert.equal(crossSite.status, 403, crossSite.body);
  assert.equal((await post(`/api/runs/${run}/pause`, { host: `localhost:${port}`, origin: "null" })).status, 403);
  assert.equal((await post(`/api/runs/${run}/pause`, { host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${Number(port) + 1}` })).status, 403);
  assert.equal(await runState(run), "running");
  // The dashboard itself (same origin), and curl on the machine (no Origin).
  assert.equal((await post(`/api/runs/${run}/pause`, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status, 200);
  assert.equal(await runState(run), "paused");
  assert.equal((await post(`/api/runs/${run}/cancel`, { host: `127.0.0.1:${port}` })).status, 200);
  assert.equal(await runState(run), "cancelled");
});

test("web - bound to a non-loopback address without a token, the coordinator makes one up, logs it once and requires it", async () => {
  const c = spawnCubist(["coordinator", "--nats", nats.url, "--prefix", "webtok", "--grpc", "off", "--http", "0.0.0.0:0"], { env: marker.env });
  try {
    const line = await c.waitForLog(/generated token/, 20_000);
    const token = /token=(\S+)/.exec(line)![1];
    const url = /url=(http:\S+)/.exec(await c.waitForLog(/HTTP \(metrics, dashboard\) listening/, 20_000))![1];
    const host = new URL(url).host;
    assert.equal((await post("/api/runs/nope/cancel", { host }, url)).status, 401);
    // With the token the call gets through to the API (which has no such run).
    assert.equal((await post("/api/runs/nope/cancel", { host, authorization: `Bearer ${token}` }, url)).status, 404);
    assert.equal(c.stderr().split(token).length - 1, 1, "the token is printed exactly once");
  } finally {
    c.kill("SIGTERM");
    await c.exited;
  }
});

test("limits - a board above the cell limit is refused by run submit (coordinator) and solve alike, naming the limit and its flag", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-limits-"));
  try {
    const file = join(dir, "big-17x17.txt");
    writeFileSync(file, writeCanonical(generatePuzzle({ rows: 17, cols: 17, borderColors: 4, centerColors: 6, seed: 1 }).puzzle));
    const submitted = await cubist(["run", "submit", file]);
    assert.equal(submitted.code, 1, submitted.stderr);
    assert.match(submitted.stderr, /17x17 = 289 cells, above the limit of 256 cells \(raise it with cubist coordinator --max-cells N/);
    const solved = spawnCubist(["solve", file, "--threads", "1"], { env: marker.env });
    assert.equal((await solved.exited).code, 1, solved.stderr());
    assert.match(solved.stderr(), /289 cells, above the limit of 256 cells \(raise it with --max-cells N/);
    // solve's SAT member measures its formula before it starts the solver.
    const satOnly = spawnCubist(["solve", PUZZLE, "--search-ms", "0", "--max-formula-mb", "0.01"], { env: marker.env });
    assert.equal((await satOnly.exited).code, 1, satOnly.stderr());
    assert.match(satOnly.stderr(), /KB of DIMACS, above the limit of 11 KB \(use a smaller encoding, or raise it with --max-formula-mb MB/);
    assert.equal(ok(await cubist(["run", "list", "--json"])).includes("big-17x17"), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("limits - a formula above the coordinator's limit is refused before anything is uploaded", async () => {
  const names = createNames("limits");
  const c = new Coordinator({ nc: nats.nc, jsm: nats.jsm, names, log: silentLogger, settings: { limits: sizeLimits({ maxFormulaMb: 0.01 }, COORDINATOR_LIMIT_FLAGS) } });
  await c.start();
  try {
    await assert.rejects(
      c.submitRun({ puzzleText: readFileSync(PUZZLE, "utf8"), puzzleLabel: PUZZLE, searchMs: 0 }),
      (e: unknown) => e instanceof LimitExceededError && / KB of DIMACS, above the limit of 11 KB .*--max-formula-mb/.test((e as Error).message),
    );
    assert.equal((await nats.jsm.streams.info(`OBJ_${names.formulasBucket}`)).state.bytes, 0);
    assert.equal([...c.runs()].length, 0);
  } finally {
    await c.close();
  }
});

test("limits - cancelling a run deletes its formula object and queued cubes: JetStream usage returns to its level before the run", async () => {
  const formulas = async (): Promise<number> => (await nats.jsm.streams.info("OBJ_cubist-formulas")).state.bytes;
  const cubesOf = async (run: string): Promise<number> => (await nats.jsm.streams.info("CUBIST_CUBES", { subjects_filter: `cubist.cubes.${run}` })).state.subjects?.[`cubist.cubes.${run}`] ?? 0;
  const puzzle = "test/fixtures/clues/clue2.txt";
  const before = await formulas();
  const a = ok(await cubist(["run", "submit", puzzle, "--cubes", "8"])).trim();
  const b = ok(await cubist(["run", "submit", puzzle, "--cubes", "8", "--name", "same formula"])).trim();
  const during = await formulas();
  assert.ok(during - before > 10_000, `the formula is stored (${before} -> ${during} bytes)`);
  await until("run a's cubes published", 20_000, async () => (await cubesOf(a)) > 0);
  ok(await cubist(["run", "cancel", a]));
  // b shares the formula and is still open: it stays.
  assert.equal(await formulas(), during);
  assert.equal(await cubesOf(a), 0);
  ok(await cubist(["run", "cancel", b]));
  const after = await formulas();
  assert.ok(after - before < 1024, `formula bytes ${before} before the runs, ${during} during, ${after} after (only a delete marker may remain)`);
  assert.equal(await cubesOf(b), 0);
  await assert.rejects(nats.jsm.consumers.info("CUBIST_CUBES", `run-${a}`));
});

test("limits - a cancelled certified run's proofs leave the proofs store; a proof an open run also holds stays", async () => {
  const t = await startTestNats();
  try {
    const dir = mkdtempSync(join(tmpdir(), "cubist-proofs-"));
    try {
      const names: string[] = [];
      for (const body of ["proof a\n", "proof b\n", "proof c\n"]) {
        const file = join(dir, `p${names.length}`);
        writeFileSync(file, body);
        names.push(await uploadProof(t.layout.proofs, file, "test proof"));
      }
      const [a, b, c] = names;
      const runs = [
        { id: "cancelled", state: RunState.RUN_STATE_CANCELLED, proofs: new Map([["0", a], ["1", b]]) },
        { id: "open", state: RunState.RUN_STATE_RUNNING, proofs: new Map([["7", b]]) },
        { id: "ended", state: RunState.RUN_STATE_UNSAT, proofs: new Map([["2", c]]) },
      ];
      await releaseProofs(t.layout.proofs, runs[0].proofs.values(), "cancelled", runs, silentLogger);
      const left = async (sha: string): Promise<boolean> => (await t.layout.proofs.count(sha)) > 0;
      assert.deepEqual([await left(a), await left(b), await left(c)], [false, true, true]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    await t.close();
  }
});
