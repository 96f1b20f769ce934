/**
 * Workers on other hosts: each worker runs in its own network namespace, joined to this machine by a veth pair on
 * a private /24, and reaches the nats-server only over that link. One worker's link is cut mid-cube: JetStream
 * redelivers its cube to the other host after ack_wait; when the link comes back the worker reconnects and takes
 * cubes again. Needs root and iproute2; without them the test is skipped and says why.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { writeFakeSolver } from "../helpers/processes.js";
import { requestFor, startTestCoordinator, waitForRunEnd, type TestCoordinator } from "../helpers/coordinator.js";
import { eventually } from "../helpers/runs.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { createNetnsLab, netnsUnavailable, type NetnsLab, type NetnsProcess } from "../helpers/netns.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";

const UNSAT = "test/fixtures/cluster/unsat-6x6.txt";

interface LogLine {
  time: string;
  level: string;
  msg: string;
  cube?: string;
  run?: string;
  [k: string]: unknown;
}

/** The worker's JSON log lines. */
function logLines(p: NetnsProcess): LogLine[] {
  const out: LogLine[] = [];
  for (const l of p.stderr().split("\n")) {
    if (!l.startsWith("{")) continue;
    try {
      out.push(JSON.parse(l) as LogLine);
    } catch {
      // a line being written
    }
  }
  return out;
}

test("multi-host - a worker whose link is cut mid-cube: its cube is redelivered to another host; back online it reconnects and takes cubes again", async (t) => {
  const why = await netnsUnavailable();
  if (why) {
    t.skip(`needs root and iproute2: ${why}`);
    return;
  }
  const t0 = Date.now();
  const marker = newMarker();
  const dir = mkdtempSync(join(tmpdir(), "cubist-netns-"));
  let lab: NetnsLab | null = null;
  let nats: TestNats | null = null;
  let c: TestCoordinator | null = null;
  try {
    lab = await createNetnsLab(2);
    const [hostA, hostB] = lab.hosts;
    // The server listens only on this machine's end of the links: the workers reach it over their veth alone.
    nats = await startTestNats({ server: { host: lab.hostAddress } });
    assert.match(nats.url, new RegExp(`^nats://${lab.hostAddress.replace(/\./g, "\\.")}:\\d+$`));
    c = await startTestCoordinator(nats, { ackWaitMs: 3000, maxDeliver: 5 });
    const coordinator = c.coordinator;
    // Slow (3 s a cube) while the flag file exists: host-a is cut mid-cube and cubes are left for it when it is back.
    // The flag goes once host-a has rejoined, and the rest of the run goes at Kissat's pace.
    const flag = join(dir, "slow");
    writeFileSync(flag, "");
    const slow = writeFakeSolver(dir, "slow-kissat", `if [ -e ${flag} ]; then sleep 3; fi\nexec kissat "$@"`);
    const run = await coordinator.submitRun(requestFor(UNSAT, { targetCubes: 24 }));
    const verdicts: Array<Verdict & { atMs: number }> = [];
    run.on("verdict", (v) => verdicts.push({ ...v, atMs: Date.now() }));

    const workerArgs = (id: string): string[] => [
      "worker", "--nats", nats!.url, "--prefix", nats!.names.prefix, "--concurrency", "1", "--id", id,
      "--log-level", "debug", "--log-format", "json", "--grace", "0", "--solver-path", slow,
      // Pings every 2 s instead of 10: the cut is noticed after 6 to 8 s, not 30 to 40 (the same three unanswered).
      "--nats-ping-interval", "2",
    ];
    const hostAProc = lab.spawnCubist(hostA, workerArgs("host-a"), marker.env);
    const b = lab.spawnCubist(hostB, workerArgs("host-b"), marker.env);
    await b.waitForLog(/"msg":"cube started"/, 30_000);
    const held = (JSON.parse(await hostAProc.waitForLog(/"msg":"cube started"/, 30_000)) as LogLine).cube!;
    assert.ok(held);

    await lab.cut(hostA);
    const cutAt = Date.now();
    // host-a's cube comes back from JetStream after ack_wait and host-b answers it.
    assert.ok(
      await eventually(() => verdicts.some((v) => v.cubeId === held && v.workerId === "host-b" && v.delivery >= 2), 40_000),
      `cube ${held} held by the cut worker was not answered by host-b; verdicts: ${JSON.stringify(verdicts.map((v) => [v.cubeId, v.workerId, v.delivery]))}`,
    );
    const redeliveredMs = Date.now() - cutAt;
    // A silent partition: host-a finds out from its unanswered pings (every 2 s here, 3 outstanding), the coordinator
    // from its missing heartbeats.
    assert.ok(
      await eventually(() => logLines(hostAProc).some((l) => l.msg === "NATS disconnected; reconnecting"), 60_000),
      `host-a never noticed the cut; its log:\n${hostAProc.stderr().slice(-3000)}`,
    );
    const noticedMs = Date.now() - cutAt;
    // The coordinator stops counting it WORKER_SILENCE_MS (10 s) after its last heartbeat, which may be after host-a noticed.
    assert.ok(
      await eventually(() => !coordinator.liveWorkers().some((w) => w.status.workerId === "host-a"), 20_000),
      "the coordinator no longer counts host-a",
    );
    assert.ok(!verdicts.some((v) => v.workerId === "host-a" && v.atMs > cutAt + 500), "no verdict crosses a cut link");

    await lab.restore(hostA);
    const restoredAt = Date.now();
    const restoredIso = new Date(restoredAt).toISOString();
    assert.ok(
      await eventually(() => logLines(hostAProc).some((l) => l.msg === "NATS reconnected" && l.time >= restoredIso), 30_000),
      `host-a did not reconnect; its log:\n${hostAProc.stderr().slice(-3000)}`,
    );
    const reconnectedMs = Date.now() - restoredAt;
    assert.ok(
      await eventually(() => logLines(hostAProc).some((l) => l.msg === "cube started" && l.time >= restoredIso && l.cube !== held), 30_000),
      `host-a took no new cube after the link came back; its log:\n${hostAProc.stderr().slice(-3000)}`,
    );
    assert.ok(
      await eventually(() => coordinator.liveWorkers().some((w) => w.status.workerId === "host-a" && w.seenMs > restoredAt), 10_000),
      "the coordinator counts host-a again",
    );
    rmSync(flag);

    assert.equal(await waitForRunEnd(run, 180_000), RunState.RUN_STATE_UNSAT, run.status().message);
    const s = run.status();
    assert.ok(Math.abs(s.progress - 1) < 1e-9, `progress ${s.progress}`);
    assert.equal(s.cubes!.failed, 0);
    assert.ok(verdicts.some((v) => v.workerId === "host-a" && v.atMs > restoredAt && v.cubeId !== held), "host-a answered cubes after it rejoined");
    assert.equal(hostAProc.child.exitCode, null, "host-a is still running");
    assert.equal(b.child.exitCode, null, "host-b is still running");
    process.stderr.write(
      `multi-host: cube ${held} answered by host-b ${redeliveredMs} ms after the cut; host-a noticed the cut after ${noticedMs} ms; ` +
        `reconnected ${reconnectedMs} ms after the link came back; total ${Date.now() - t0} ms\n`,
    );
  } finally {
    await c?.close();
    await lab?.close();
    await nats?.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(await waitNoMarked(marker.value), []);
  const left = execFileSync("ip", ["netns", "list"]).toString();
  assert.ok(!left.includes(`cubist-t-${process.pid}-`), `namespaces left: ${left}`);
});
