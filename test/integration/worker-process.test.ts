/**
 * `cubist worker` as a real process (the built CLI): start-up errors that name what is wrong, waiting for the
 * coordinator's layout, SIGTERM, a worker killed with SIGKILL mid-cube (its cube goes to another worker after
 * ack_wait), and a nats-server restart in the middle of a run (the worker reconnects and finishes).
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ensureLayout } from "../../cluster/layout.js";
import { startNatsServer } from "../../cli/nats-launcher.js";
import { readBrendan, readBrendanSolution } from "../../core/formats/index.js";
import type { Placement } from "../../core/puzzle.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { startTestNats, withNats } from "../helpers/nats.js";
import { processAlive, recordedPids, sleepingSolver, spawnCubist, type CubistProcess } from "../helpers/processes.js";
import { createTestRun, cubeTask, eventually, publishTasks, readVerdicts } from "../helpers/runs.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/brendan/${name}`, import.meta.url), "utf8");
const puzzle4 = readBrendan(fixture("pieces_04x04.txt"), "pieces_04x04.txt");
const solution4 = readBrendanSolution(fixture("solutions_04x04.txt"), "solutions_04x04.txt", puzzle4);
const puzzle6 = readBrendan(fixture("pieces_06x06.txt"), "pieces_06x06.txt");
const solved = (cell: number): Placement => ({ cell, piece: solution4.cells[cell]!.piece, rot: solution4.cells[cell]!.rot });

let dir: string;
const procs: CubistProcess[] = [];
before(() => {
  dir = mkdtempSync(join(tmpdir(), "cubist-worker-process-"));
});
after(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await Promise.all(procs.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

function worker(url: string, id: string, extra: string[] = []): CubistProcess {
  const p = spawnCubist(["worker", "--nats", url, "--id", id, "--concurrency", "1", "--cache-dir", join(dir, `cache-${id}`), "--log-level", "debug", ...extra]);
  procs.push(p);
  return p;
}

test("worker process - start-up errors name the problem: NATS unreachable, no JetStream, no solver", async () => {
  const unreachable = worker("nats://127.0.0.1:1", "e1");
  assert.equal((await unreachable.exited).code, 1);
  assert.match(unreachable.stderr(), /cubist worker: cannot connect to NATS at nats:\/\/127\.0\.0\.1:1/);

  const noJs = await startNatsServer({ args: ["-js=false"] });
  try {
    const p = worker(noJs.url, "e2");
    assert.equal((await p.exited).code, 1);
    assert.match(p.stderr(), /JetStream is not available .*start nats-server with -js/);
  } finally {
    await noJs.stop();
  }

  const noSolver = worker("nats://127.0.0.1:1", "e3", ["--solver-path", join(dir, "no-such-kissat")]);
  assert.equal((await noSolver.exited).code, 1);
  assert.match(noSolver.stderr(), /solver .*no-such-kissat not found: .* does not exist; run scripts\/setup\.sh/);
});

test("worker process - waits for the coordinator's layout, then works; SIGTERM stops it cleanly", async () => {
  await withNats(async (t) => {
    const p = worker(t.url, "waiter", ["--log-format", "json"]);
    const line = await p.waitForLog(/waiting for the coordinator/);
    assert.equal(JSON.parse(line).level, "info");
    const tl = { ...t, layout: await ensureLayout(t.nc, t.jsm, t.names) };
    await p.waitForLog(/"msg":"worker running"/);
    const run = await createTestRun(tl, { id: "late", puzzle: puzzle4 });
    await publishTasks(tl, [cubeTask(run, "0", { placements: [solved(0)] }), cubeTask(run, "1", { placements: [solved(0)], solver: { solver: "none", searchMs: 1000 } })]);
    const [v, s] = await readVerdicts(tl, 2);
    assert.deepEqual([v?.kind, v?.workerId, v?.stats?.engine], [VerdictKind.VERDICT_KIND_SAT, "waiter", "kissat"]);
    // The native placement engine, as the built process finds it (dist/engine).
    assert.deepEqual([s?.kind, s?.stats?.engine, s?.board.length], [VerdictKind.VERDICT_KIND_SAT, "search", 16]);
    p.kill("SIGTERM");
    assert.deepEqual(await p.exited, { code: 0, signal: null });
    assert.match(p.stderr(), /"msg":"worker closed"/);
  }, { layout: false });
});

test("worker process - a worker killed with SIGKILL mid-cube: the cube is redelivered after ack_wait and answered by another", async () => {
  await withNats(async (t) => {
    const run = await createTestRun(t, { id: "killed", puzzle: puzzle4, ackWaitMs: 1500 });
    const pidFile = join(dir, "killed.pids");
    const a = worker(t.url, "victim", ["--solver-path", sleepingSolver(dir, "sleep-60.sh", 60, pidFile)]);
    await publishTasks(t, [cubeTask(run, "9", { placements: [solved(0)] })]);
    assert.ok(await eventually(() => recordedPids(pidFile).length === 1), "the victim's solver started");
    a.kill("SIGKILL");
    await a.exited;
    // The solver leads its own process group: it outlives a SIGKILLed worker (until its time limit). Clean up.
    const [solverPid] = recordedPids(pidFile);
    process.kill(-solverPid, "SIGKILL");
    const b = worker(t.url, "rescuer");
    const [v] = await readVerdicts(t, 1, 15_000);
    // Delivery 2 without a nak (the victim could not send one): redelivered because its ack_wait ran out.
    assert.deepEqual([v?.cubeId, v?.kind, v?.workerId, v?.delivery], ["9", VerdictKind.VERDICT_KIND_SAT, "rescuer", 2]);
    assert.ok(!processAlive(solverPid));
    b.kill("SIGTERM");
    assert.equal((await b.exited).code, 0);
  });
});

test("worker process - nats-server restarted mid-run: the worker reconnects and finishes every task; SIGINT stops it", async () => {
  const t = await startTestNats();
  try {
    const run = await createTestRun(t, { id: "restart", puzzle: puzzle6 });
    const ids = Array.from({ length: 12 }, (_, i) => String(i));
    // A small conflict budget keeps each cube short (unknown or decided); what matters is that each is answered.
    await publishTasks(t, ids.map((id) => cubeTask(run, id, { solver: { conflictLimit: 2000, seed: Number(id) } })));
    const w = worker(t.url, "survivor");
    const first = await readVerdicts(t, 3, 20_000);
    assert.equal(first.length, 3);
    await t.server.restart();
    await w.waitForLog(/NATS reconnected/, 15_000);
    const rest = await readVerdicts(t, ids.length - 3, 30_000);
    const answered = new Set([...first, ...rest].map((v) => v.cubeId));
    // Duplicates are allowed (a verdict whose ack was lost in the restart); missing cubes are not.
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      const more = await readVerdicts(t, missing.length, 15_000);
      for (const v of more) answered.add(v.cubeId);
    }
    assert.deepEqual(ids.filter((id) => !answered.has(id)), [], w.stderr().split("\n").slice(-30).join("\n"));
    w.kill("SIGINT");
    assert.equal((await w.exited).code, 0, "SIGINT stops it as gracefully as SIGTERM");
    assert.match(w.stderr(), /worker closed/);
  } finally {
    await t.close();
  }
});
