/**
 * A coordinator that requires a bearer token (`--auth-token`), driven with the CLI as users do: a private
 * nats-server, a `cubist coordinator` process, and each `cubist run ...` invocation as its own process. No worker:
 * the calls are what is tested, not the run.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { runCubist, stopProcesses, type CubistResult } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startCliCoordinator, type CliCoordinator } from "../helpers/cli-coordinator.js";

const TOKEN = "ctl-test-token-1234";
const marker = newMarker();
let nats: TestNats;
let coordinator: CliCoordinator;
let stopping = false;

/** Runs one `cubist` command against the coordinator, with no token unless `env` gives one. */
async function cubist(args: string[], env: Record<string, string> = {}): Promise<CubistResult> {
  return runCubist(args, { env: { ...marker.env, CUBIST_COORDINATOR: coordinator.address, CUBIST_AUTH_TOKEN: "", ...env } });
}

function json<T = Record<string, unknown>>(r: CubistResult): T {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

before(async () => {
  nats = await startTestNats({ layout: false });
  coordinator = await startCliCoordinator(nats.url, ["--prefix", "ctlauth", "--auth-token", TOKEN], { env: marker.env, expected: () => stopping });
});

after(async () => {
  stopping = true;
  await stopProcesses([coordinator?.proc], 8000);
  await nats?.close();
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cli auth - with --auth-token: mutating calls without the token are UNAUTHENTICATED (exit 1); reads need none", async () => {
  const bare = await cubist(["run", "submit", "examples/clue1.txt", "--cubes", "2"]);
  assert.equal(bare.code, 1);
  assert.match(bare.stderr, /^cubist run submit: UNAUTHENTICATED: .*; pass --token TOKEN or set CUBIST_AUTH_TOKEN\n$/);
  const wrong = await cubist(["run", "submit", "examples/clue1.txt", "--token", "not-the-token"]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /UNAUTHENTICATED/);
  assert.deepEqual(json(await cubist(["run", "list", "--json"])), [], "nothing was submitted");

  const ok = await cubist(["run", "submit", "examples/clue1.txt", "--cubes", "2", "--id", "authed", "--name", "clue one"], { CUBIST_AUTH_TOKEN: TOKEN });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "authed\n");
  // Reads without a token.
  assert.deepEqual(json<Array<{ run: string }>>(await cubist(["run", "list", "--json"])).map((r) => r.run), ["authed"]);
  const shown = json<{ state: string; name: string }>(await cubist(["run", "show", "authed", "--json"]));
  assert.deepEqual([shown.state, shown.name], ["running", "clue one"], "no worker serves this prefix");
  assert.ok(json<{ total: number }>(await cubist(["cubes", "list", "authed", "--json"])).total >= 1);

  const cancelBare = await cubist(["run", "cancel", "authed"]);
  assert.equal(cancelBare.code, 1);
  assert.match(cancelBare.stderr, /^cubist run cancel: UNAUTHENTICATED: .*CUBIST_AUTH_TOKEN\n$/);
  const cancel = await cubist(["run", "cancel", "authed", "--token", TOKEN]);
  assert.equal(cancel.code, 0, cancel.stderr);
});
