/**
 * The gRPC API with a real grpc-js client against a real coordinator process (private nats-server, real worker
 * processes, real Kissat): the run lifecycle, errors as status codes, authentication, pause/resume, manual and
 * automatic re-split with exact weights, priorities between concurrent runs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status as Status, type ServiceError, Metadata } from "@grpc/grpc-js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, writeFakeSolver, type CubistProcess, stopProcesses } from "../helpers/processes.js";
import { apiClient, spawnCoordinator, type Call } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { CubeState, WatchRunRequest } from "../../proto/gen/cubist/v1/api.js";
import type { ListCubesResponse, ResplitCubeResponse, RunEvent, RunInfo, SolutionInfo, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { RunMode, RunState } from "../../proto/gen/cubist/v1/run.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { boardFromPlacements } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";

/** Kissat refutes each of its cubes in tens of ms: where a test needs slow cubes, a wrapper sleeps first. */
const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");
const CLUE = readFileSync("test/fixtures/cluster/clue1-shuffled-s11.txt", "utf8");
/** The SAT solver alone (no placement search first), with the default per-cube budget: for tests that need cubes to take a while. */
const SOLVER_ONLY = { solver: "kissat", timeLimitSec: 60, searchMs: 0 };

interface Env {
  t: TestNats;
  dir: string;
  call: Call;
  address: string;
  /** Collects WatchRun events until the stream ends. */
  watch(runId: string, verdicts?: boolean): Promise<RunEvent[]>;
  coordinator: CubistProcess;
  workers: CubistProcess[];
  marker: ReturnType<typeof newMarker>;
  worker(id: string, solverPath?: string, extra?: string[]): CubistProcess;
  close(): Promise<void>;
}

async function setup(coordinatorArgs: string[] = []): Promise<Env> {
  const t = await startTestNats();
  const dir = mkdtempSync(join(tmpdir(), "cubist-api-"));
  const marker = newMarker();
  const c = await spawnCoordinator(t, ["--ack-wait", "5", ...coordinatorArgs], marker.env);
  const api = apiClient(c.address);
  const workers: CubistProcess[] = [];
  return {
    t, dir, call: api.call, coordinator: c.proc, workers, marker, address: c.address,
    watch(runId, verdicts = false) {
      return new Promise((resolve, reject) => {
        const events: RunEvent[] = [];
        const stream = api.client.watchRun(WatchRunRequest.fromPartial({ runId, verdicts, intervalSec: 0.2 }), new Metadata());
        stream.on("data", (e: RunEvent) => events.push(e));
        stream.on("end", () => resolve(events));
        stream.on("error", reject);
      });
    },
    worker(id, solverPath, extra = []) {
      const args = ["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "1", "--id", id, "--grace", "0", "--log-level", "debug", ...extra];
      if (solverPath) args.push("--solver-path", solverPath);
      const w = spawnCubist(args, { env: marker.env });
      workers.push(w);
      return w;
    },
    async close() {
      api.close();
      await stopProcesses([...workers, c.proc]);
      await t.close();
      rmSync(dir, { recursive: true, force: true });
      assert.deepEqual(await waitNoMarked(marker.value), []);
    },
  };
}

async function waitState(call: Call, runId: string, states: RunState[], timeoutMs = 60_000): Promise<RunInfo> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const info = await call<unknown, RunInfo>("getRun", { runId });
    if (states.includes(info.status!.state)) return info;
    if (Date.now() > end) throw new Error(`run ${runId} is ${RunState[info.status!.state]}, wanted ${states.map((s) => RunState[s])}: ${JSON.stringify(info.status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function codeOf(p: Promise<unknown>): Promise<{ code: number; details: string }> {
  return p.then(
    () => ({ code: Status.OK, details: "" }),
    (e: ServiceError) => ({ code: e.code, details: e.details }),
  );
}

test("api - submit, get, list, watch to the end, and the solution verifies", async () => {
  const env = await setup();
  try {
    env.worker("w1");
    env.worker("w2");
    const { run } = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: CLUE, puzzleName: "clue1.txt", cubing: { targetCubes: 8 } });
    assert.ok(run!.runId);
    assert.equal(run!.rows, 6);
    // WatchRun streams status snapshots (and verdicts, and the solution) until the run ends.
    const events = await env.watch(run!.runId, true);
    const statuses = events.filter((e) => e.event?.$case === "status").map((e) => (e.event as { value: { state: RunState } }).value);
    assert.ok(statuses.length >= 1);
    assert.equal(statuses[statuses.length - 1].state, RunState.RUN_STATE_SAT);
    assert.equal(events.filter((e) => e.event?.$case === "solution").length, 1);
    assert.ok(events.some((e) => e.event?.$case === "verdict"));
    const done = await waitState(env.call, run!.runId, [RunState.RUN_STATE_SAT]);
    assert.equal(done.status!.solutions, 1);
    const list = await env.call<unknown, { runs: RunInfo[] }>("listRuns", {});
    assert.ok(list.runs.some((r) => r.runId === run!.runId));
    const sol = await env.call<unknown, SolutionInfo>("getSolution", { runId: run!.runId, index: 0 });
    const puzzle = parsePuzzle(sol.puzzleText, "solution");
    const board = boardFromPlacements(puzzle, sol.solution!.cells);
    assert.deepEqual(verifySolution(puzzle, board), { ok: true });
    assert.match(sol.svg, /^<svg/);
    assert.equal(sol.ids.length, 36);
  } finally {
    await env.close();
  }
});

test("api - errors are status codes with clear messages, and the coordinator keeps serving", async () => {
  const env = await setup();
  try {
    const notFound = await codeOf(env.call("getRun", { runId: "nope" }));
    assert.equal(notFound.code, Status.NOT_FOUND);
    const badId = await codeOf(env.call("getRun", { runId: "../etc" }));
    assert.equal(badId.code, Status.INVALID_ARGUMENT);
    // A malformed puzzle: the message names the file and line.
    const bad = await codeOf(env.call("submitRun", { puzzleText: "2 2\n1 0 0 1 1\n2 0 1 1 x\n", puzzleName: "broken.txt" }));
    assert.equal(bad.code, Status.INVALID_ARGUMENT);
    assert.match(bad.details, /broken\.txt:3/);
    // A huge request: refused, not a crash.
    const huge = await codeOf(env.call("submitRun", { puzzleText: "1 ".repeat(1_500_000), puzzleName: "huge.txt" }));
    assert.equal(huge.code, Status.INVALID_ARGUMENT);
    assert.match(huge.details, /^the puzzle text is 2\.9 MB, above the input limit of 1\.0 MB \(raise it with cubist coordinator --max-puzzle-mb MB/);
    const bigBoard = await codeOf(env.call("submitRun", { puzzleText: CLUE, cubing: { targetCubes: 50_000_000 } }));
    assert.equal(bigBoard.code, Status.INVALID_ARGUMENT);
    // Counting runs the placement engine alone: a SAT solver or certify with it is refused, naming the option.
    const allWithSolver = await codeOf(env.call("submitRun", { puzzleText: CLUE, mode: RunMode.RUN_MODE_ALL_SOLUTIONS, solver: { solver: "kissat" } }));
    assert.equal(allWithSolver.code, Status.INVALID_ARGUMENT);
    assert.match(allWithSolver.details, /mode: all \(counting\) runs the placement engine alone/);
    const limitAlone = await codeOf(env.call("submitRun", { puzzleText: CLUE, solutionLimit: 5 }));
    assert.equal(limitAlone.code, Status.INVALID_ARGUMENT);
    // Still serving: a good run is accepted, and a finished run cannot be resumed.
    env.worker("w1");
    const { run } = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: CLUE, cubing: { targetCubes: 4 } });
    await waitState(env.call, run!.runId, [RunState.RUN_STATE_SAT]);
    const resume = await codeOf(env.call("resumeRun", { runId: run!.runId }));
    assert.equal(resume.code, Status.FAILED_PRECONDITION);
    const cancel = await codeOf(env.call("cancelRun", { runId: run!.runId }));
    assert.equal(cancel.code, Status.FAILED_PRECONDITION);
    const noCube = await codeOf(env.call("resplitCube", { runId: run!.runId, cubeId: "99" }));
    assert.equal(noCube.code, Status.FAILED_PRECONDITION);
    assert.equal(env.coordinator.child.exitCode, null);
  } finally {
    await env.close();
  }
});

test("api - a bearer token guards mutating calls; reads stay open unless --auth-reads", async () => {
  const token = "s3cret-token-123";
  const env = await setup(["--auth-token", token]);
  try {
    const noToken = await codeOf(env.call("submitRun", { puzzleText: CLUE }));
    assert.equal(noToken.code, Status.UNAUTHENTICATED);
    const wrong = await codeOf(env.call("submitRun", { puzzleText: CLUE }, "wrong-token-xyz"));
    assert.equal(wrong.code, Status.UNAUTHENTICATED);
    const ok = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: CLUE, cubing: { targetCubes: 4 } }, token);
    assert.ok(ok.run!.runId);
    const read = await env.call<unknown, RunInfo>("getRun", { runId: ok.run!.runId });
    assert.equal(read.runId, ok.run!.runId);
    const cancel = await codeOf(env.call("cancelRun", { runId: ok.run!.runId }));
    assert.equal(cancel.code, Status.UNAUTHENTICATED);
  } finally {
    await env.close();
  }
  const strict = await setup(["--auth-token", token, "--auth-reads"]);
  try {
    assert.equal((await codeOf(strict.call("listRuns", {}))).code, Status.UNAUTHENTICATED);
    assert.equal((await codeOf(strict.call("listRuns", {}, token))).code, Status.OK);
  } finally {
    await strict.close();
  }
});

test("api - pause stops leasing new cubes, resume continues; the run ends UNSAT with weights summing to 1", async () => {
  const env = await setup();
  try {
    // Each cube takes a second while the flag file exists (until the resume), so the pause meets a run in progress.
    const flag = join(env.dir, "slow");
    writeFileSync(flag, "");
    const slow = writeFakeSolver(env.dir, "slow-kissat", `if [ -e ${flag} ]; then sleep 1; fi\nexec kissat "$@"`);
    env.worker("w1", slow);
    const { run } = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, cubing: { targetCubes: 10 }, solver: SOLVER_ONLY });
    const id = run!.runId;
    // Let a few cubes close, then pause.
    const end = Date.now() + 30_000;
    while ((await env.call<unknown, RunInfo>("getRun", { runId: id })).status!.cubes!.unsat < 2) {
      assert.ok(Date.now() < end, "cubes did not close");
      await new Promise((r) => setTimeout(r, 200));
    }
    const paused = await env.call<unknown, RunInfo>("pauseRun", { runId: id });
    assert.equal(paused.status!.state, RunState.RUN_STATE_PAUSED);
    // The cube that was running may finish; after that nothing moves.
    await new Promise((r) => setTimeout(r, 3500));
    const a = (await env.call<unknown, RunInfo>("getRun", { runId: id })).status!.cubes!;
    await new Promise((r) => setTimeout(r, 3000));
    const b = (await env.call<unknown, RunInfo>("getRun", { runId: id })).status!.cubes!;
    assert.equal(b.unsat, a.unsat, "no cube closed while paused");
    assert.ok(b.queued > 0);
    rmSync(flag);
    await env.call("resumeRun", { runId: id });
    const done = await waitState(env.call, id, [RunState.RUN_STATE_UNSAT], 90_000);
    assert.ok(Math.abs(done.status!.progress - 1) < 1e-9);
  } finally {
    await env.close();
  }
});

test("api - manual re-split of a running cube and automatic re-split of cubes over budget keep the weights exact", async () => {
  const env = await setup();
  try {
    // The first three solver calls give up after 3 s without an answer (as a solver at its budget does: unknown, so
    // the coordinator re-splits those cubes); later calls are plain Kissat. Heartbeats every 0.5 s show a cube
    // running well within those 3 s.
    const counter = join(env.dir, "calls");
    const gated = writeFakeSolver(env.dir, "gated-kissat", `n=$(( $(cat ${counter} 2>/dev/null || echo 0) + 1 ))\necho $n > ${counter}\nif [ "$n" -le 3 ]; then cat > /dev/null; sleep 3; echo "s UNKNOWN"; exit 0; fi\nexec kissat "$@"`);
    env.worker("w1", gated, ["--status-interval", "0.5"]);
    const { run } = await env.call<unknown, SubmitRunResponse>("submitRun", {
      puzzleText: UNSAT, cubing: { targetCubes: 4 }, solver: { solver: "kissat", timeLimitSec: 60, searchMs: 0 }, resplit: { afterBudgets: 1, depth: 1 },
    });
    const id = run!.runId;
    // Manually re-split a cube while it is queued or running.
    let target = "";
    const end = Date.now() + 20_000;
    while (!target) {
      const cubes = await env.call<unknown, ListCubesResponse>("listCubes", { runId: id, limit: 100 });
      target = cubes.cubes.find((c) => c.state === CubeState.CUBE_STATE_RUNNING)?.cubeId ?? "";
      assert.ok(Date.now() < end, "no cube started");
      if (!target) await new Promise((r) => setTimeout(r, 100));
    }
    const rs = await env.call<unknown, ResplitCubeResponse>("resplitCube", { runId: id, cubeId: target, depth: 1 });
    assert.ok(rs.children.length + Number(rs.refuted) > 0);
    for (const c of rs.children) assert.ok(c.startsWith(`${target}.`));
    const parent = await env.call<unknown, ListCubesResponse>("listCubes", { runId: id, state: CubeState.CUBE_STATE_RESPLIT, limit: 1000 });
    assert.ok(parent.cubes.some((c) => c.cubeId === target));
    const done = await waitState(env.call, id, [RunState.RUN_STATE_UNSAT], 120_000);
    assert.ok(done.status!.cubes!.resplit >= 2, JSON.stringify(done.status!.cubes));
    assert.ok(Math.abs(done.status!.progress - 1) < 1e-9, `progress ${done.status!.progress}`);
  } finally {
    await env.close();
  }
});

test("api - two runs at once: the higher priority run's cubes are taken first", async () => {
  const env = await setup();
  try {
    const slow = writeFakeSolver(env.dir, "slow-kissat", 'sleep 0.3\nexec kissat "$@"');
    const low = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, puzzleName: "low", priority: 1, cubing: { targetCubes: 12 }, solver: SOLVER_ONLY });
    const high = await env.call<unknown, SubmitRunResponse>("submitRun", { puzzleText: UNSAT, puzzleName: "high", priority: 10, cubing: { targetCubes: 12 }, solver: SOLVER_ONLY });
    await new Promise((r) => setTimeout(r, 500));
    env.worker("w1", slow);
    const h = await waitState(env.call, high.run!.runId, [RunState.RUN_STATE_UNSAT], 120_000);
    const l = await env.call<unknown, RunInfo>("getRun", { runId: low.run!.runId });
    assert.equal(h.status!.state, RunState.RUN_STATE_UNSAT);
    // While the high-priority run had queued cubes the worker took none of the low one's.
    assert.ok(l.status!.cubes!.unsat <= 1, `low-priority run closed ${l.status!.cubes!.unsat} cubes before the high one ended`);
    await waitState(env.call, low.run!.runId, [RunState.RUN_STATE_UNSAT], 120_000);
  } finally {
    await env.close();
  }
});
