/**
 * The coordinator keeps no state of its own: killed with SIGKILL mid-run (and with the whole NATS server
 * restarted on its store), a new coordinator process resumes from JetStream. No closed cube is solved again,
 * no cube is lost, and the run ends with the right answer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats } from "../helpers/nats.js";
import { spawnCubist, writeFakeSolver } from "../helpers/processes.js";
import { apiClient, freePort, runAfterRunning, spawnCoordinator } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { ListCubesResponse, RunInfo, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";

/** Kissat refutes each of its cubes in tens of ms: the worker's wrapper makes each take 0.4 s. */
const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");

for (const restartNats of [false, true]) {
  test(`resume - coordinator SIGKILLed mid-run${restartNats ? " and nats-server restarted on its store" : ""}: a new one resumes, nothing is solved twice or lost`, async () => {
    const t = await startTestNats();
    const dir = mkdtempSync(join(tmpdir(), "cubist-resume-"));
    const marker = newMarker();
    const port = await freePort();
    const seen = new Map<string, number[]>();
    let killedAt = Infinity;
    const sub = t.nc.subscribe(`${t.names.prefix}.verdicts.>`, {
      callback: (_e, m) => {
        const v = Verdict.decode(m.data);
        const list = seen.get(v.cubeId) ?? [];
        list.push(Date.now());
        seen.set(v.cubeId, list);
      },
    });
    const slow = writeFakeSolver(dir, "slow-kissat", 'sleep 0.4\nexec kissat "$@"');
    const worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", "w1", "--solver-path", slow, "--grace", "0"], { env: marker.env });
    const a = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
    let b: Awaited<ReturnType<typeof spawnCoordinator>> | undefined;
    try {
      let api = apiClient(a.address);
      const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, cubing: { targetCubes: 16 }, solver: { solver: "kissat", timeLimitSec: 60, searchMs: 0 } });
      const id = run!.runId;
      const total = async (): Promise<RunInfo> => api.call<unknown, RunInfo>("getRun", { runId: id });
      const end = Date.now() + 60_000;
      let before = await total();
      while (before.status!.cubes!.unsat < 4) {
        assert.ok(Date.now() < end, "cubes did not close");
        await new Promise((r) => setTimeout(r, 100));
        before = await total();
      }
      a.proc.kill("SIGKILL");
      await a.proc.exited;
      killedAt = Date.now();
      api.close();
      // Cubes answered before the kill (their verdicts were published); the worker keeps working meanwhile.
      const answeredBefore = [...seen.entries()].filter(([, ts]) => ts[0] < killedAt).map(([c]) => c);
      if (restartNats) await t.server.restart();
      await new Promise((r) => setTimeout(r, 500));
      b = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
      const resumed = await b.proc.waitForLog(/runs resumed/, 20_000);
      const ms = Number(/ms=(\d+)/.exec(resumed)?.[1]);
      assert.ok(ms < 10_000, `resume took ${ms} ms`);
      api = apiClient(b.address);
      const info = await runAfterRunning(api.call, id);
      const listed = await api.call<unknown, ListCubesResponse>("listCubes", { runId: id, limit: 1000 });
      api.close();
      assert.equal(info.status!.state, RunState.RUN_STATE_UNSAT, info.status!.message);
      assert.ok(Math.abs(info.status!.progress - 1) < 1e-9, `progress ${info.status!.progress}`);
      const c = info.status!.cubes!;
      assert.equal(c.failed, 0);
      assert.equal(c.resplit, 0);
      assert.equal(c.queued + c.running + c.unknown, 0);
      // No cube answered before the kill was solved again afterwards.
      for (const cube of answeredBefore) {
        const again = (seen.get(cube) ?? []).filter((ts) => ts > killedAt);
        assert.equal(again.length, 0, `cube ${cube} was solved again after the restart`);
      }
      // Every cube was refuted by the worker, as the coordinator recorded it; and every verdict this test saw is of a
      // cube in the split. With nats-server restarted, the test's own subscription misses what is published while it
      // reconnects (the coordinator reads verdicts from JetStream and misses nothing), so it may have seen fewer.
      assert.equal(listed.cubes.length, c.unsat);
      assert.ok(listed.cubes.every((cube) => cube.workerId === "w1"), JSON.stringify(listed.cubes.map((cube) => [cube.cubeId, cube.workerId])));
      assert.ok([...seen.keys()].every((cube) => listed.cubes.some((l) => l.cubeId === cube)));
      if (restartNats) assert.ok(seen.size <= c.unsat);
      else assert.equal(seen.size, c.unsat);
    } finally {
      sub.unsubscribe();
      worker.kill("SIGTERM");
      a.proc.kill("SIGKILL");
      b?.proc.kill("SIGTERM");
      await Promise.all([worker.exited, a.proc.exited, b?.proc.exited]);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
      assert.deepEqual(await waitNoMarked(marker.value), []);
    }
  });
}
