/**
 * The gRPC API bound to a non-loopback address (issue 23, finding 5), against a real `cubist coordinator` process
 * bound to 0.0.0.0 without --auth-token, and the CLI as its own processes on another host: a network namespace
 * joined by a veth pair (test/helpers/netns.ts), so calls come from a non-loopback address. Where namespaces cannot
 * be made (not root), the client runs here and reaches the server on 127.0.0.2, which the 0.0.0.0 bind also serves.
 * Without the generated token every mutating call is UNAUTHENTICATED and changes nothing; with it each works.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, type CubistProcess } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { createNetnsLab, netnsUnavailable, type NetnsLab } from "../helpers/netns.js";
import { apiClient } from "../helpers/api.js";
import type { RunInfo } from "../../proto/gen/cubist/v1/api.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";

const PUZZLE = "test/fixtures/clues/clue1.txt";

interface Result { code: number | null; stdout: string; stderr: string }

test("grpc auth - bound to 0.0.0.0 without a token: a token is generated and logged once; from another host mutating calls need it, reads do not", async (t) => {
  const marker = newMarker();
  const why = await netnsUnavailable();
  let lab: NetnsLab | null = null;
  let nats: TestNats | null = null;
  let coordinator: CubistProcess | null = null;
  let local: ReturnType<typeof apiClient> | null = null;
  try {
    nats = await startTestNats({ layout: false });
    coordinator = spawnCubist(["coordinator", "--nats", nats.url, "--prefix", "grpcauth", "--grpc", "0.0.0.0:0", "--http", "off"], { env: marker.env });
    const warning = await coordinator.waitForLog(/generated token/, 20_000);
    const token = /token=(\S+)/.exec(warning)![1];
    assert.match(warning, /grpc=0\.0\.0\.0:0/);
    const listening = await coordinator.waitForLog(/gRPC API listening/, 20_000);
    assert.match(listening, /auth=true/);
    const port = /address=\S+:(\d+)/.exec(listening)![1];

    let address: string;
    let cubist: (args: string[], env: Record<string, string>) => CubistProcess;
    if (why === null) {
      lab = await createNetnsLab(1);
      const host = lab.hosts[0];
      address = `${lab.hostAddress}:${port}`;
      cubist = (args, env) => lab!.spawnCubist(host, args, env);
    } else {
      t.diagnostic(`no network namespace (${why}): the client calls 127.0.0.2 from this machine`);
      address = `127.0.0.2:${port}`;
      cubist = (args, env) => spawnCubist(args, { env });
    }
    const call = async (args: string[], withToken: boolean): Promise<Result> => {
      const p = cubist(args, { ...marker.env, CUBIST_COORDINATOR: address, CUBIST_AUTH_TOKEN: withToken ? token : "" });
      const { code } = await p.exited;
      return { code, stdout: p.stdout(), stderr: p.stderr() };
    };
    const refused = async (args: string[]): Promise<void> => {
      const r = await call(args, false);
      assert.equal(r.code, 1, `${args.join(" ")} without the token: exit ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, /UNAUTHENTICATED: .*needs a valid bearer token.*pass --token TOKEN or set CUBIST_AUTH_TOKEN/, args.join(" "));
    };
    const accepted = async (args: string[]): Promise<string> => {
      const r = await call(args, true);
      assert.equal(r.code, 0, `${args.join(" ")} with the token: exit ${r.code}: ${r.stderr}`);
      return r.stdout;
    };
    /** The run as `run show --json` prints it, read from the other host without a token. */
    const shown = async (run: string): Promise<{ state: string; priority: number }> => {
      const r = await call(["run", "show", run, "--json"], false);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as { state: string; priority: number };
    };
    // What each refused or accepted call left behind is read through the API on loopback: one process for the test's
    // dozen reads (that reads need no token from the other host is shown by run list and run show above them).
    local = apiClient(`127.0.0.1:${port}`);
    const state = async (run: string): Promise<{ state: string; priority: number }> => {
      const s = (await local!.call<unknown, RunInfo>("getRun", { runId: run })).status!;
      return { state: RunState[s.state].replace(/^RUN_STATE_/, "").toLowerCase(), priority: s.priority };
    };

    await refused(["run", "submit", PUZZLE, "--cubes", "4", "--id", "forged"]);
    assert.equal((await call(["run", "list", "--json"], false)).stdout.trim(), "[]", "the refused submit made no run");
    const run = (await accepted(["run", "submit", PUZZLE, "--cubes", "4", "--id", "authed"])).trim();
    assert.equal(run, "authed");
    assert.equal((await shown(run)).state, "running", "reads need no token");

    await refused(["run", "pause", run]);
    assert.equal((await state(run)).state, "running");
    await accepted(["run", "pause", run]);
    assert.equal((await state(run)).state, "paused");
    await refused(["run", "resume", run]);
    assert.equal((await state(run)).state, "paused");
    await accepted(["run", "resume", run]);
    assert.equal((await state(run)).state, "running");
    await refused(["run", "priority", run, "7"]);
    assert.equal((await state(run)).priority, 0);
    await accepted(["run", "priority", run, "7"]);
    assert.equal((await state(run)).priority, 7);
    await refused(["run", "cancel", run]);
    assert.equal((await state(run)).state, "running");
    await accepted(["run", "cancel", run]);
    await refused(["run", "delete", run]);
    assert.equal((await state(run)).state, "cancelled");
    await accepted(["run", "delete", run]);

    assert.equal(coordinator.stderr().split(token).length - 1, 1, "the token is printed exactly once");
  } finally {
    local?.close();
    coordinator?.kill("SIGTERM");
    await coordinator?.exited;
    await lab?.close();
    await nats?.close();
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});
