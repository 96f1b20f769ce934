/**
 * One leader per prefix (coordinator/shell/leadership.ts), on the deployed topology: a private nats-server and separate
 * `cubist coordinator` and `cubist worker` processes. Two coordinators started together: one leads, the other stands
 * by, says so and refuses changes naming the leader. The leader killed with SIGKILL mid-run: the standby takes over
 * and finishes the run. The leader frozen past its lease (SIGSTOP): the standby takes over; on SIGCONT the old one
 * steps down, and no ledger entry of its term follows the new leader's takeover entry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status as GrpcStatus, type ServiceError } from "@grpc/grpc-js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawn } from "node:child_process";
import { REPO_ROOT, spawnCubist, trackChild, writeFakeSolver, type CubistProcess } from "../helpers/processes.js";
import { apiClient, freePort, runAfterRunning, type Call } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { Ledger } from "../../coordinator/shell/ledger.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import type { ListRunsResponse, RunInfo, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { LEADER_METADATA_KEY } from "../../coordinator/serve/api-errors.js";

/** Kissat refutes each of its cubes in tens of ms; where cubes must take a while, a wrapper sleeps first. */
const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");

interface Started {
  readonly proc: CubistProcess;
  readonly grpc: string;
  readonly http: string;
}

async function coordinator(t: TestNats, env: Record<string, string>, extra: string[] = []): Promise<Started> {
  const grpc = `127.0.0.1:${await freePort()}`;
  const http = `127.0.0.1:${await freePort()}`;
  const proc = spawnCubist(["coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", grpc, "--http", http, "--ack-wait", "5", "--log-level", "debug", ...extra], { env });
  // The servers answer first; the first look at the lease ends with "coordinator started" (as leader or standby).
  await proc.waitForLog(/coordinator started/, 20_000);
  return { proc, grpc, http };
}

async function health(c: Started, path = "/healthz"): Promise<{ status: number; body: { role: string; id: string; leader: { id: string; grpc: string } | null } }> {
  const res = await fetch(`http://${c.http}${path}`);
  return { status: res.status, body: await res.json() as never };
}

/** Whichever of the two leads now (polls /healthz), and the other. */
async function leaderOf(pair: readonly Started[], timeoutMs: number): Promise<{ leader: Started; standby: Started }> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const roles = await Promise.all(pair.map((c) => health(c).then((h) => h.body.role, () => "down")));
    const i = roles.indexOf("leader");
    if (i >= 0 && roles.filter((r) => r === "leader").length === 1) return { leader: pair[i], standby: pair[1 - i] };
    if (Date.now() > end) throw new Error(`no single leader within ${timeoutMs} ms: ${roles.join(", ")}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A run on a worker slowed down so that it takes several seconds; resolves once `closed` cubes are refuted. */
async function runningRun(call: Call, closed: number): Promise<string> {
  const { run } = await call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, cubing: { targetCubes: 24 }, solver: { solver: "kissat", timeLimitSec: 60, searchMs: 0 } });
  const id = run!.runId;
  const end = Date.now() + 60_000;
  while ((await call<unknown, RunInfo>("getRun", { runId: id })).status!.cubes!.unsat < closed) {
    assert.ok(Date.now() < end, "cubes did not close");
    await new Promise((r) => setTimeout(r, 100));
  }
  return id;
}

/** Every cube closed as refuted at most once in the run's ledger, and the entries' terms never go back. */
async function checkLedger(t: TestNats, runId: string): Promise<{ terms: number[] }> {
  const entries = await new Ledger(t.layout.js, t.names).replay(runId);
  const refuted = new Map<string, number>();
  const terms: number[] = [];
  for (const e of entries) {
    if (terms.length === 0 || terms[terms.length - 1] !== e.term) terms.push(e.term);
    if (e.entry?.$case !== "closed") continue;
    for (const c of e.entry.value.cubes) if (c.kind === VerdictKind.VERDICT_KIND_UNSAT) refuted.set(c.id, (refuted.get(c.id) ?? 0) + 1);
  }
  for (const [cube, n] of refuted) assert.equal(n, 1, `cube ${cube} refuted ${n} times in the ledger`);
  for (let i = 1; i < terms.length; i++) assert.ok(terms[i] > terms[i - 1], `ledger terms go back: ${terms.join(" -> ")}`);
  return { terms };
}

function setup(): { dir: string; marker: ReturnType<typeof newMarker>; procs: CubistProcess[] } {
  return { dir: mkdtempSync(join(tmpdir(), "cubist-leader-")), marker: newMarker(), procs: [] };
}

async function teardown(t: TestNats, s: ReturnType<typeof setup>): Promise<void> {
  for (const p of s.procs) p.kill("SIGCONT");
  for (const p of s.procs) p.kill("SIGKILL");
  await Promise.all(s.procs.map((p) => p.exited));
  await t.close();
  rmSync(s.dir, { recursive: true, force: true });
  assert.deepEqual(await waitNoMarked(s.marker.value), []);
}

test("leadership - two coordinators started together: exactly one leads; the other stands by, says so and refuses changes naming the leader", async () => {
  const t = await startTestNats();
  const s = setup();
  try {
    const pair = await Promise.all([coordinator(t, s.marker.env), coordinator(t, s.marker.env)]);
    s.procs.push(...pair.map((c) => c.proc));
    const { leader, standby } = await leaderOf(pair, 10_000);
    const hs = await health(standby);
    assert.equal(hs.body.role, "standby");
    assert.equal(hs.body.leader?.id, (await health(leader)).body.id);
    assert.equal(hs.body.leader?.grpc, leader.grpc);
    assert.equal((await health(leader, "/readyz")).status, 200);
    assert.equal((await health(standby, "/readyz")).status, 503);
    await standby.proc.waitForLog(/started as a standby/, 5000);
    const metrics = await (await fetch(`http://${standby.http}/metrics`)).text();
    assert.match(metrics, /^cubist_coordinator_leader 0$/m);
    assert.match(await (await fetch(`http://${leader.http}/metrics`)).text(), /^cubist_coordinator_leader 1$/m);

    const sb = apiClient(standby.grpc);
    const err = await sb.call("submitRun", { puzzleText: UNSAT }).then(() => null, (e: ServiceError) => e);
    assert.ok(err, "a standby accepted a run");
    assert.equal(err.code, GrpcStatus.UNAVAILABLE);
    assert.match(err.details, new RegExp(`standby; the leader is .*${leader.grpc.replace(/\./g, "\\.")}`));
    assert.equal(err.metadata.get(LEADER_METADATA_KEY)[0], leader.grpc);
    // Reads it can serve from JetStream work on a standby.
    const ld = apiClient(leader.grpc);
    const { run } = await ld.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, cubing: { targetCubes: 4 } });
    const listed = await sb.call<unknown, ListRunsResponse>("listRuns", {});
    assert.ok(listed.runs.some((r) => r.runId === run!.runId), "the standby lists the leader's run");
    sb.close();
    ld.close();
    // The CLI pointed at the standby goes to the leader it names.
    const cli = spawnCubist(["run", "submit", "test/fixtures/cluster/unsat-5x5.txt", "--coordinator", standby.grpc, "--json"]);
    assert.equal((await cli.exited).code, 0, cli.stderr());
    assert.match(JSON.parse(cli.stdout()).run, /^[A-Za-z0-9_-]+$/);
  } finally {
    await teardown(t, s);
  }
});

for (const how of ["SIGKILL", "SIGSTOP"] as const) {
  const title = how === "SIGKILL"
    ? "leadership - the leader killed (SIGKILL) mid-run: the standby takes over within the lease and finishes the run, no cube refuted twice"
    : "leadership - the leader frozen past its lease (SIGSTOP): the standby takes over; on SIGCONT the old one steps down and writes nothing more";
  test(title, async () => {
    const t = await startTestNats();
    const s = setup();
    try {
      // 0.5 s a cube on two slots: the 20 cubes left at the kill outlast the 3 s lease, so the new leader closes some.
      const slow = writeFakeSolver(s.dir, "slow-kissat", 'sleep 0.5\nexec kissat "$@"');
      s.procs.push(spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "2", "--id", "w1", "--solver-path", slow, "--grace", "0"], { env: s.marker.env }));
      const pair = await Promise.all([coordinator(t, s.marker.env, ["--leader-lease", "3"]), coordinator(t, s.marker.env, ["--leader-lease", "3"])]);
      s.procs.push(...pair.map((c) => c.proc));
      const { leader, standby } = await leaderOf(pair, 10_000);
      const ld = apiClient(leader.grpc);
      const id = await runningRun(ld.call, 4);
      ld.close();
      const at = Date.now();
      leader.proc.kill(how);
      await standby.proc.waitForLog(/coordinator: coordinator leads/, 15_000);
      const tookMs = Date.now() - at;
      assert.ok(tookMs < 10_000, `the standby took ${tookMs} ms to take over`);
      if (how === "SIGSTOP") {
        await new Promise((r) => setTimeout(r, 1500));
        const from = leader.proc.stderr().length;
        leader.proc.kill("SIGCONT");
        await leader.proc.waitForLog(/leader lease lost|stepped down/, 5000, from).catch((err: Error) => {
          throw new Error(`${err.message}\nstopped at ${new Date(at).toISOString()}; the standby's log:\n${standby.proc.stderr().slice(-3000)}`);
        });
        assert.equal((await health(leader)).body.role, "standby");
      }
      const sb = apiClient(standby.grpc);
      const info = await runAfterRunning(sb.call, id);
      sb.close();
      assert.equal(info.status!.state, RunState.RUN_STATE_UNSAT, info.status!.message);
      assert.ok(Math.abs(info.status!.progress - 1) < 1e-9, `progress ${info.status!.progress}`);
      assert.equal(info.status!.cubes!.failed, 0);
      const { terms } = await checkLedger(t, id);
      assert.ok(terms.length >= 2, `one term wrote the whole ledger: ${terms.join(", ")}`);
      const entries = await new Ledger(t.layout.js, t.names).replay(id);
      const takeover = entries.findIndex((e) => e.entry?.$case === "note" && e.entry.value.kind === "takeover" && e.term === terms[terms.length - 1]);
      assert.ok(takeover > 0, "the new leader noted its takeover in the run's ledger");
      assert.ok(entries.slice(takeover).every((e) => e.term === terms[terms.length - 1]), "an entry of the old term after the takeover");
    } finally {
      await teardown(t, s);
    }
  });
}

test("leadership - `kill` of the npx that launched a coordinator stops it too, and a coordinator started next leads at once", async () => {
  const t = await startTestNats();
  const s = setup();
  try {
    const grpc = `127.0.0.1:${await freePort()}`;
    // The README's launch path: npm, then sh, then node. A plain kill of npm does not pass the signal on.
    const npx = trackChild(spawn("npx", ["--no-install", "cubist", "coordinator", "--nats", t.url, "--prefix", t.names.prefix, "--grpc", grpc, "--http", "off"], {
      cwd: REPO_ROOT, env: { ...process.env, ...s.marker.env }, stdio: ["ignore", "pipe", "pipe"],
    }));
    s.procs.push(npx);
    await npx.waitForLog(/gRPC API listening/, 30_000);
    npx.kill("SIGTERM");
    await npx.exited;
    // The coordinator notices its parent is gone, stops as on SIGTERM, and deletes its lease on the way out.
    assert.deepEqual(await waitNoMarked(s.marker.value, 30_000), []);
    const next = await coordinator(t, s.marker.env);
    s.procs.push(next.proc);
    const h = await health(next);
    assert.equal(h.body.role, "leader");
  } finally {
    await teardown(t, s);
  }
});
