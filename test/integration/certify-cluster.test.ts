/**
 * Certified UNSAT across processes, as an operator runs it: a private nats-server, a `cubist coordinator` process
 * (gRPC on a free port), a `cubist worker` process with real Kissat; `cubist run submit --certify --watch`, then
 * `run show` says what was checked and `run certificate RUN -o DIR` exports a bundle that drat-trim alone
 * re-checks (proofs travel worker -> proofs stream -> coordinator -> gRPC -> files).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, type CubistProcess, runCubist, type CubistResult, stopProcesses } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";

const UNSAT = "test/fixtures/cluster/unsat-5x5.txt";
const marker = newMarker();
let nats: TestNats;
let temp: string;
let coordinator: CubistProcess;
let worker: CubistProcess;
let address: string;
let stopping = false;

async function cubist(args: string[]): Promise<CubistResult> {
  return runCubist(args, { env: { ...marker.env, CUBIST_COORDINATOR: address, CUBIST_AUTH_TOKEN: "" } });
}

function stop(p: CubistProcess | undefined): Promise<void> {
  return stopProcesses([p], 8000);
}

before(async () => {
  temp = mkdtempSync(join(tmpdir(), "cubist-certify-cluster-"));
  nats = await startTestNats({ layout: false });
  coordinator = spawnCubist(["coordinator", "--nats", nats.url, "--grpc", "127.0.0.1:0", "--http", "off"], { env: marker.env });
  void coordinator.exited.then(({ code, signal }) => {
    if (!stopping) process.stderr.write(`coordinator exited early (${code ?? signal}):\n${coordinator.stderr()}\n`);
  });
  const line = await coordinator.waitForLog(/gRPC API listening/, 20_000);
  address = /address=(\S+:\d+)/.exec(line)![1];
  worker = spawnCubist([
    "worker", "--nats", nats.url, "--id", "cert1", "--concurrency", "2", "--cache-dir", join(temp, "cache"), "--grace", "0", "--log-level", "warn",
  ], { env: marker.env });
});

after(async () => {
  stopping = true;
  await stop(worker);
  await stop(coordinator);
  await nats?.close();
  rmSync(temp, { recursive: true, force: true });
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("certify cluster - run submit --certify ends in a certified UNSAT; run show says what was checked; run certificate exports a bundle drat-trim re-checks", async () => {
  const sub = await cubist(["run", "submit", UNSAT, "--certify", "--cubes", "8", "--watch", "--id", "cert-unsat"]);
  assert.equal(sub.code, 20, sub.stderr);
  assert.match(sub.stdout, /unsat: certified: \d+\/\d+ cube proofs checked, coverage checked/);

  const shown = JSON.parse((await cubist(["run", "show", "cert-unsat", "--json"])).stdout) as { state: string; cubes: { unsat: number }; certified: Record<string, unknown> };
  assert.equal(shown.state, "unsat");
  const n = shown.cubes.unsat;
  assert.deepEqual(shown.certified, { cubeProofsChecked: n, cubeProofsRejected: 0, cubeProofsPending: 0, coverage: "checked" });
  const text = await cubist(["run", "show", "cert-unsat"]);
  assert.match(text.stdout, new RegExp(`^certified\\s+${n}/${n} cube proofs checked, coverage checked$`, "m"));
  // One worker: every proof checked by the coordinator (checker slots need another worker), its checkers' CPU apart.
  assert.match(text.stdout, new RegExp(`^proof checks\\s+0 by workers \\(0\\.00 s CPU\\), ${n} by the coordinator \\(\\d+\\.\\d+ s CPU\\)$`, "m"));
  const checks = (JSON.parse((await cubist(["run", "show", "cert-unsat", "--json"])).stdout) as { proofChecks: Record<string, number> }).proofChecks;
  assert.equal(checks.byWorkers, 0);
  assert.equal(checks.byCoordinator, n);
  assert.ok(checks.coordinatorWallSeconds > 0, JSON.stringify(checks));

  const dir = join(temp, "bundle");
  const exported = await cubist(["run", "certificate", "cert-unsat", "-o", dir]);
  assert.equal(exported.code, 0, exported.stderr);
  assert.match(exported.stderr, new RegExp(`${n} cube proof\\(s\\)`));
  assert.equal(readdirSync(join(dir, "proofs")).length, n);
  // The worker's default proof format: the placement prover writes binary DRAT, as Kissat does.
  assert.deepEqual(readdirSync(join(dir, "proofs")).filter((f) => !f.endsWith(".drat")), []);
  const check = spawnSync("sh", [join(dir, "check.sh")], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stdout + check.stderr);
  assert.match(check.stdout, /^formula: VERIFIED: formula\.cnf is the cubist-placement encoding \(order paper\) of puzzle\.txt/);
  assert.match(check.stdout, new RegExp(`cubes: ${n}/${n} VERIFIED`));

  // A run without --certify has no certificate; an unknown run is NOT_FOUND. Neither writes anything.
  const plain = await cubist(["run", "submit", UNSAT, "--cubes", "4", "--watch", "--id", "plain-unsat"]);
  assert.equal(plain.code, 20, plain.stderr);
  assert.doesNotMatch(plain.stdout, /certified/);
  const refused = await cubist(["run", "certificate", "plain-unsat", "-o", join(temp, "none")]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /FAILED_PRECONDITION: run plain-unsat was not certified/);
  assert.deepEqual(readdirSync(temp).filter((f) => f === "none"), []);
  const missing = await cubist(["run", "certificate", "no-such-run", "-o", join(temp, "none")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /NOT_FOUND/);

  // run delete releases what the run stored: its proofs at once, the formula only with the last run made from it.
  const stored = async (stream: string): Promise<number> => (await nats.jsm.streams.info(stream)).state.bytes;
  const [formulas, proofs] = [await stored("OBJ_cubist-formulas"), await stored("CUBIST_PROOFS")];
  assert.ok(formulas > 1024 && proofs > 1024, `formula ${formulas} and proof ${proofs} bytes stored`);
  assert.equal((await cubist(["run", "delete", "cert-unsat"])).code, 0);
  assert.equal(await stored("CUBIST_PROOFS"), 0, "proofs gone");
  assert.equal(await stored("OBJ_cubist-formulas"), formulas, "plain-unsat was made from the same formula and keeps it");
  assert.equal((await cubist(["run", "delete", "plain-unsat"])).code, 0);
  assert.ok(await stored("OBJ_cubist-formulas") < 1024, `formula gone with the last run that used it: ${await stored("OBJ_cubist-formulas")} bytes`);
});
