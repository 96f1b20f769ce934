/**
 * Replicated JetStream state, as in a real deployment: a 3-node nats-server cluster on loopback, a coordinator
 * creating every stream and bucket with 3 replicas (`--replicas 3`), worker processes given all three URLs, and
 * real Kissat. One NATS node is killed with SIGKILL mid-run; the run must still end with the right answer and
 * the ledger must show every cube closed exactly once.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { JetStreamManager, StreamInfo } from "@nats-io/jetstream";
import { jetstream } from "@nats-io/jetstream";
import { startNatsCluster, type NatsCluster } from "../helpers/nats-cluster.js";
import { spawnCubist, writeFakeSolver, type CubistProcess } from "../helpers/processes.js";
import { requestFor, waitForRunEnd } from "../helpers/coordinator.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { createLogger } from "../../cluster/log.js";
import { requireJetStream } from "../../cluster/nats.js";
import { Coordinator } from "../../coordinator/shell/coordinator.js";
import { Ledger } from "../../coordinator/shell/ledger.js";
import { createNames, type Names } from "../../proto/contract.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";

/**
 * Kissat refutes each of its cubes in tens of ms; the workers' wrapper makes each take a second. Half the refutations
 * are spot-checked, so that checks are being published (and cubes closed in the same verdict batches) when the node
 * dies: a decision stopped by a failed publish once left a cube closed in memory and never in the ledger.
 */
const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";

/** The JetStream streams behind the layout: three streams plus the KV and Object Store buckets. */
function layoutStreams(names: Names): string[] {
  return [names.cubesStream, names.verdictsStream, names.ledgerStream, `KV_${names.runsBucket}`, `OBJ_${names.formulasBucket}`];
}

/** Retries a JetStream API call: right after a node loss a stream or the meta group may be between leaders. */
async function retry<T>(fn: () => Promise<T>, attempts = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts) throw err;
      await sleep(250);
    }
  }
}

function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo> {
  return retry(() => jsm.streams.info(name));
}

async function startCoordinator(cluster: NatsCluster, names: Names) {
  const logs: string[] = [];
  const log = createLogger({
    component: "coordinator",
    level: "debug",
    write: (line) => {
      logs.push(line);
      if (process.env.CUBIST_TEST_LOG === "1") process.stderr.write(line + "\n");
    },
  });
  const nc = await cluster.connect("test-coordinator");
  const jsm = await requireJetStream(nc);
  const coordinator = new Coordinator({ nc, jsm, names, log, replicas: 3, settings: { ackWaitMs: 5000, maxDeliver: 5 }, statusIntervalMs: 250 });
  await coordinator.start();
  return { coordinator, nc, jsm, logs };
}

test("replicated state - every stream and bucket has 3 replicas; a NATS node killed mid-run loses nothing", async () => {
  const t0 = Date.now();
  const cluster = await startNatsCluster();
  const names = createNames("cubist");
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-replicated-"));
  const workers: CubistProcess[] = [];
  let coordinator: Coordinator | null = null;
  try {
    const c = await startCoordinator(cluster, names);
    coordinator = c.coordinator;

    for (const s of layoutStreams(names)) {
      const info = await streamInfo(c.jsm, s);
      assert.equal(info.config.num_replicas, 3, `${s}: num_replicas`);
      assert.ok(info.cluster?.leader, `${s} has a leader`);
      assert.equal(info.cluster?.replicas?.length, 2, `${s}: a leader and two followers`);
    }

    const slow = writeFakeSolver(dir, "slow-kissat", 'sleep 1\nexec kissat "$@"');
    const run = await c.coordinator.submitRun(requestFor(UNSAT, { targetCubes: 12, spotCheckPercent: 50 }));
    const verdicts: Verdict[] = [];
    run.on("verdict", (v) => verdicts.push(v));
    for (const id of ["w1", "w2"]) {
      workers.push(
        spawnCubist(
          ["worker", "--nats", cluster.url, "--prefix", names.prefix, "--concurrency", "1", "--id", id, "--log-level", "debug", "--grace", "0", "--solver-path", slow],
          { env: marker.env },
        ),
      );
    }
    await workers[0].waitForLog(/cube started/, 30_000);
    // Mid-run: some cubes closed, others running or queued.
    const deadline = Date.now() + 60_000;
    while (run.table.snapshotCounts().unsat < 2 && Date.now() < deadline) await sleep(100);

    // Kill the node that leads the ledger stream, the coordinator's source of truth: its appends in flight fail
    // and must be made again on the new leader (and the streams it also leads must fail over).
    const leader = (await streamInfo(c.jsm, names.ledgerStream)).cluster!.leader!;
    const victim = cluster.node(leader);
    const killedAt = Date.now();
    await victim.server.kill();
    const closedBefore = run.table.snapshotCounts().unsat;

    assert.equal(await waitForRunEnd(run, 180_000), RunState.RUN_STATE_UNSAT, run.status().message);
    const runMs = Date.now() - killedAt;
    const s = run.status();
    assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    assert.equal(s.cubes!.failed, 0, JSON.stringify(s.cubes));
    assert.equal(s.cubes!.queued, 0, JSON.stringify(s.cubes));
    assert.ok(closedBefore < s.cubes!.unsat, `cubes were closed after the node loss (${closedBefore} before, ${s.cubes!.unsat} at the end)`);

    // The replicated ledger: every leaf cube closed exactly once, as UNSAT; nothing closed that was not added.
    const entries = await retry(() => new Ledger(jetstream(c.nc), names).replay(run.id));
    const added = new Set<string>();
    const closes = new Map<string, number>();
    for (const e of entries) {
      if (e.entry?.$case === "added") for (const cube of e.entry.value.cubes) added.add(cube.id);
      if (e.entry?.$case === "closed") {
        for (const cube of e.entry.value.cubes) {
          assert.equal(cube.kind, VerdictKind.VERDICT_KIND_UNSAT, `cube ${cube.id} closed as ${VerdictKind[cube.kind]}`);
          closes.set(cube.id, (closes.get(cube.id) ?? 0) + 1);
        }
      }
    }
    const leaves = [...run.table.entries()].filter((e) => e.state !== "resplit");
    assert.ok(leaves.length >= 1);
    for (const e of leaves) {
      assert.equal(e.state, "unsat", `cube ${e.id}`);
      // 0: closed in the coordinator's memory but never recorded (a failed ledger append not made again).
      assert.equal(closes.get(e.id), 1, `cube ${e.id} closed ${closes.get(e.id) ?? 0} times in the ledger`);
    }
    for (const id of closes.keys()) assert.ok(added.has(id), `closed cube ${id} was added`);
    assert.equal(new Set(verdicts.filter((v) => v.kind === VerdictKind.VERDICT_KIND_UNSAT).map((v) => v.cubeId)).size, leaves.length);

    // The streams kept 3 configured replicas and a leader other than the killed node.
    for (const name of layoutStreams(names)) {
      const info = await streamInfo(c.jsm, name);
      assert.equal(info.config.num_replicas, 3);
      assert.notEqual(info.cluster?.leader, leader, `${name} is not led by the killed node`);
    }
    for (const w of workers) assert.equal(w.child.exitCode, null, "workers survive the node loss");
    process.stderr.write(`replicated state: killed ${leader} (ledger leader) with ${closedBefore}/${leaves.length} cubes closed; the run ended ${runMs} ms later; ${verdicts.length} verdicts; total ${Date.now() - t0} ms\n`);
  } finally {
    for (const w of workers) w.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.exited));
    await coordinator?.close();
    await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(await waitNoMarked(marker.value), []);
});
