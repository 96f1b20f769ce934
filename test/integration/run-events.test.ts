/**
 * A run's timeline against a real cluster: a private nats-server and a `cubist coordinator` process, no worker (the
 * cubes wait, so every action finds the run open). The run is submitted through the API; pause, resume, priority and a
 * manual re-split go through the CLI, each as its own process; then the coordinator is SIGKILLed and another one starts
 * on the same NATS. `cubist run events` shows every event in order, with who asked for each action, after the restart
 * as before it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { apiClient, freePort, spawnCoordinator } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats } from "../helpers/nats.js";
import { spawnCubist } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";
import type { ListCubesResponse, ListRunEventsResponse, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";

const UNSAT = readFileSync("test/fixtures/cluster/unsat-6x6.txt", "utf8");

interface EventJson { atUnixMs: number; time: string; kind: string; message: string; actor: string; term: number }

test("run events - submit, pause, resume, priority and a manual re-split are on the timeline in order, with who asked, after a coordinator restart", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const port = await freePort();
  let coordinator = await spawnCoordinator(t, [], marker.env, port);
  await coordinator.proc.waitForLog(/coordinator leads/, 20_000);
  const cli = async (args: string[]): Promise<string> => {
    const p = spawnCubist([...args, "--coordinator", coordinator.address], { env: { ...marker.env, CUBIST_AUTH_TOKEN: "" } });
    const { code } = await p.exited;
    assert.equal(code, 0, `cubist ${args.join(" ")}: ${p.stderr()}`);
    return p.stdout();
  };
  try {
    const api = apiClient(coordinator.address);
    const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, puzzleName: "unsat-6x6.txt", cubing: { targetCubes: 8 }, solver: { solver: "kissat", timeLimitSec: 60, searchMs: 0 } });
    const id = run!.runId;
    let cube = "";
    assert.ok(await eventually(async () => {
      const r = await api.call<unknown, ListCubesResponse>("listCubes", { runId: id, state: 1 });
      cube = r.cubes[0]?.cubeId ?? "";
      return cube !== "";
    }, 20_000), "the run was split");
    api.close();

    await cli(["run", "pause", id]);
    await cli(["run", "resume", id]);
    await cli(["run", "priority", id, "7"]);
    await cli(["cube", "resplit", id, cube, "--depth", "1"]);
    const before = JSON.parse(await cli(["run", "events", id, "--json"])) as { events: EventJson[] };

    coordinator.proc.kill("SIGKILL");
    await coordinator.proc.exited;
    coordinator = await spawnCoordinator(t, [], marker.env, port);
    await coordinator.proc.waitForLog(/coordinator leads/, 20_000);

    const after = JSON.parse(await cli(["run", "events", id, "--json"])) as { events: EventJson[]; total: number };
    const kinds = after.events.map((e) => e.kind);
    assert.deepEqual(kinds, ["submitted", "paused", "resumed", "priority", "resplit", "takeover"], JSON.stringify(after.events, null, 1));
    // What the first coordinator showed is there, unchanged, after the restart.
    assert.deepEqual(after.events.slice(0, before.events.length), before.events);
    for (let i = 1; i < after.events.length; i++) assert.ok(after.events[i].atUnixMs >= after.events[i - 1].atUnixMs, "oldest first");
    const me = `${userInfo().username}@${hostname()} (grpc 127.0.0.1)`;
    for (const e of after.events.slice(1, 5)) assert.equal(e.actor, me, `${e.kind} names who asked`);
    assert.match(after.events[0].message, /^submitted: unsat-6x6, first solution, 8 cubes asked, priority 0$/);
    assert.match(after.events[3].message, /^priority 0 -> 7$/);
    assert.match(after.events[4].message, new RegExp(`^cube ${cube.replace(/\./g, "\\.")} re-split by hand into \\d+ children`));
    assert.match(after.events[5].message, /took the run over \(term 2\)/);
    assert.equal(after.events[5].term, 2);

    // The text form: one line per event, the actor after "by".
    const text = (await cli(["run", "events", id])).trimEnd().split("\n");
    assert.equal(text.length, 6, text.join("\n"));
    assert.match(text[1], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}paused +paused {2}by \S+@\S+ \(grpc 127\.0\.0\.1\)$/);
    assert.match(text[5], /takeover .*\[term 2\]$/);

    // The API call, with a limit: the newest events.
    const api2 = apiClient(coordinator.address);
    try {
      const r = await api2.call<unknown, ListRunEventsResponse>("listRunEvents", { runId: id, limit: 2 });
      assert.deepEqual(r.events.map((e) => e.kind), ["resplit", "takeover"]);
      assert.equal(r.total, 6);
      await assert.rejects(api2.call("listRunEvents", { runId: "no-such-run", limit: 0 }), /NOT_FOUND|no run/);
    } finally {
      api2.close();
    }
  } finally {
    coordinator.proc.kill("SIGTERM");
    await coordinator.proc.exited;
    await t.close();
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
