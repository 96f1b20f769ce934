/**
 * The worker's pure parts, without NATS: configuration defaults and errors, the ack-subject parser, cancel
 * parsing and memory, run records that must be ignored, task validation outcomes (term / nak / ack / run), and the
 * placement search under a time budget.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { silentLogger } from "../../cluster/log.js";
import { InvalidOptionError } from "../../core/errors.js";
import { encode } from "../../core/encode/index.js";
import { readBrendan, readBrendanSolution, writeCanonical } from "../../core/formats/index.js";
import { createNames } from "../../proto/contract.js";
import { Cancel, CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import { RunRecord, RunState, RunStatus, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import { CancelMemory, parseCancel } from "../../worker/cancels.js";
import { defaultCacheDir, defaultWorkerId, loadWorkerConfig } from "../../worker/config.js";
import { parseAckSubject, type DeliveryInfo } from "../../worker/pull.js";
import { RunTable, workerRunFromRecord, type WorkerRun } from "../../worker/run-table.js";
import { SolverNotFoundError } from "../../host/solver/index.js";
import { validateTask } from "../../worker/validate-task.js";
import { sha256Hex } from "../helpers/runs.js";

const names = createNames();
const fixture = (name: string): string => readFileSync(new URL(`../fixtures/brendan/${name}`, import.meta.url), "utf8");
const puzzle = readBrendan(fixture("pieces_04x04.txt"), "pieces_04x04.txt");
const solution = readBrendanSolution(fixture("solutions_04x04.txt"), "solutions_04x04.txt", puzzle);
const puzzleText = writeCanonical(puzzle);
const formula = encode("heule-all", puzzle);

test("config - defaults: CPUs, kissat on PATH, XDG cache dir, a sanitised <host>-<pid> id; frozen", () => {
  const c = loadWorkerConfig({ nats: { servers: "nats://x:4222" } }, { ...process.env, XDG_CACHE_HOME: "/var/cache/xdg" });
  assert.ok(c.concurrency >= 1);
  assert.equal(c.solver, "kissat");
  assert.match(c.solverPath, /^\/.*kissat$/);
  assert.equal(c.cacheDir, "/var/cache/xdg/cubist/formulas");
  assert.equal(c.statusIntervalMs, 2000);
  assert.ok(Object.isFrozen(c));
  assert.equal(defaultWorkerId("gpu-7.lab.example.org", 42), "gpu-7-lab-example-org-42");
  assert.equal(defaultWorkerId("...", 1), "worker-1");
  assert.equal(defaultWorkerId("_build.box", 7), "build-box-7");
  assert.equal(defaultWorkerId("h".repeat(100), 123).length, 64);
  assert.match(defaultCacheDir({ HOME: "/home/u", XDG_CACHE_HOME: "relative" }), /\.cache\/cubist\/formulas$/);
});

test("config - bad values are InvalidOptionError naming the flag; a missing solver names scripts/setup.sh", () => {
  const nats = { servers: "nats://x:4222" };
  const bad: [object, string][] = [
    [{ concurrency: 0 }, "--concurrency"],
    [{ solver: "minisat" }, "--solver"],
    [{ workerId: "has.dot" }, "--id"],
    [{ workerId: "<img src=x>" }, "--id"],
    [{ workerId: "-looks-like-a-flag" }, "--id"],
    [{ workerId: "a".repeat(65) }, "--id"],
    [{ prefix: "Bad Prefix" }, "--prefix"],
    [{ logLevel: "loud" }, "--log-level"],
    [{ logFormat: "xml" }, "--log-format"],
    [{ longPollMs: 10 }, "longPollMs"],
    // The coordinator counts a worker silent after 10 s: heartbeats further apart would make it look dead.
    [{ statusIntervalMs: 3_600_000 }, "--status-interval"],
  ];
  for (const [input, option] of bad) {
    assert.throws(() => loadWorkerConfig({ nats, ...input }), (e: unknown) => e instanceof InvalidOptionError && e.option === option, option);
  }
  assert.throws(() => loadWorkerConfig({ nats, solverPath: "/no/such/kissat" }), (e: unknown) => e instanceof SolverNotFoundError && /scripts\/setup\.sh/.test((e as Error).message));
});

test("pull - ack subjects parse in both forms; anything else is null", () => {
  assert.deepEqual(parseAckSubject("$JS.ACK.CUBIST_CUBES.run-a.3.17.9.1795318899218258019.2"), {
    stream: "CUBIST_CUBES", consumer: "run-a", deliveryCount: 3, streamSequence: 17, consumerSequence: 9, pending: 2,
  });
  assert.equal(parseAckSubject("$JS.ACK.hub.ACCHASH.CUBIST_CUBES.run-a.1.5.5.1795318899218258019.0.abc")?.streamSequence, 5);
  for (const s of ["", "t.a", "$JS.ACK.S.c.x.1.1.1.0", "$JS.API.CONSUMER.INFO.S.c.1.1.1"]) assert.equal(parseAckSubject(s), null, s);
});

test("cancels - subject and payload must agree; the memory forgets after its TTL and ignores pauses", () => {
  const enc = (runId: string, cubeId: string, reason: string): Uint8Array => Cancel.encode({ runId, cubeId, reason }).finish();
  assert.deepEqual(parseCancel(names, "cubist.cancel.r1", enc("r1", "", "sat")), { ok: true, cancel: { run: "r1", cube: "", reason: "sat" } });
  assert.deepEqual(parseCancel(names, "cubist.cancel.r1.17.3", enc("r1", "17.3", "")), { ok: true, cancel: { run: "r1", cube: "17.3", reason: "cancelled" } });
  assert.equal(parseCancel(names, "cubist.cancel.r1", enc("r2", "", "x")).ok, false);
  assert.equal(parseCancel(names, "cubist.cancel.r1.5", enc("r1", "6", "x")).ok, false);
  assert.equal(parseCancel(names, "cubist.cancel.r1", new Uint8Array([0xff, 0xff])).ok, false);
  let now = 0;
  const memory = new CancelMemory(1000, 10, () => now);
  memory.remember({ run: "r1", cube: "", reason: "sat" });
  memory.remember({ run: "r2", cube: "4", reason: "resplit" });
  memory.remember({ run: "r3", cube: "", reason: "pause-now" });
  assert.deepEqual([memory.cancelled("r1", "9"), memory.cancelled("r2", "4"), memory.cancelled("r2", "5"), memory.cancelled("r3", "1")], [true, true, false, false]);
  now = 1001;
  assert.equal(memory.cancelled("r1", "9"), false);
});

function spec(overrides: Partial<RunSpec> = {}): RunSpec {
  return {
    runId: "r1", name: "r1", puzzleText, encoding: "heule-all", order: "", cubing: undefined, solver: undefined, resplit: undefined,
    priority: 3, mode: 1, createdUnixMs: 1, puzzleSha256: sha256Hex(puzzleText), formulaSha256: "a".repeat(64), numVars: formula.numVars,
    numClauses: 0, certify: false, ...overrides,
  };
}

function record(s: RunSpec, state = RunState.RUN_STATE_RUNNING): Uint8Array {
  return RunRecord.encode({ spec: s, status: RunStatus.fromPartial({ runId: s.runId, state, priority: s.priority }) }).finish();
}

test("runs - records that do not hold together are ignored, the previous good one stays", () => {
  assert.equal(workerRunFromRecord("r1", record(spec()), 1).ok, true);
  const reasons = [
    workerRunFromRecord("r1", new Uint8Array([0xff, 0xff, 0xff]), 1),
    workerRunFromRecord("r2", record(spec()), 1),
    workerRunFromRecord("r1", record(spec({ formulaSha256: "xyz" })), 1),
    workerRunFromRecord("r1", record(spec({ numVars: 0 })), 1),
    workerRunFromRecord("r1", record(spec({ puzzleText: puzzleText + "\n# edited" })), 1),
    workerRunFromRecord("r1", record(spec(), RunState.RUN_STATE_UNSPECIFIED), 1),
  ].map((r) => (r.ok ? "ok" : r.reason));
  assert.deepEqual(reasons.map((r) => r !== "ok"), [true, true, true, true, true, true], reasons.join("; "));
  const lines: string[] = [];
  const log = { ...silentLogger, warn: (m: string, f?: object) => void lines.push(`${m} ${JSON.stringify(f)}`) };
  const table = new RunTable(log);
  const stopped: string[] = [];
  table.onStopped((e) => stopped.push(`${e.run}:${e.reason}`));
  table.put("r1", record(spec()), 1);
  table.put("r1", new Uint8Array([1, 2, 3]), 2);
  assert.equal(table.get("r1")?.revision, 1);
  assert.equal(lines.length, 1);
  table.put("r1", record(spec(), RunState.RUN_STATE_CANCELLED), 3);
  table.delete("r1");
  assert.deepEqual(stopped, ["r1:run cancelled"], "a deleted run that was already final is not stopped twice");
});

/** A well-formed task of run r1 (spec()), cube 4.1: the solution's first placement. */
function cubeTask(overrides: Partial<CubeTask> = {}): CubeTask {
  const p = { cell: 0, piece: solution.cells[0]!.piece, rot: solution.cells[0]!.rot };
  return {
    runId: "r1", cubeId: "4.1", formulaSha256: "a".repeat(64), numVars: formula.numVars, units: formula.varMap.placementLiterals(p),
    placements: [p], solver: { solver: "kissat", timeLimitSec: 10, conflictLimit: 0, seed: 7, searchMs: 0, firstTimeLimitSec: 0, objective: "" }, generation: 0, puzzleSha256: sha256Hex(puzzleText), lease: "l1", certify: false, engineOrder: "", engineMirror: false, engineCorner: 0, notWorker: "",
    ...overrides,
  };
}

/** The first DELIVERY of a task by run r1's main consumer. */
const DELIVERY: DeliveryInfo = { stream: "CUBIST_CUBES", consumer: "run-r1", deliveryCount: 1, streamSequence: 1, consumerSequence: 1, pending: 0 };

test("validate - term for foreign or malformed, nak while paused, ack when finished or cancelled, run otherwise", () => {
  let state = RunState.RUN_STATE_RUNNING;
  const info = (): WorkerRun => ({ ...(workerRunFromRecord("r1", record(spec()), 1) as { run: WorkerRun }).run, state });
  let cancelled = false;
  const ctx = { names, run: (id: string) => (id === "r1" ? info() : undefined), cancelled: () => cancelled };
  const task = cubeTask();
  const check = (t: CubeTask, d: DeliveryInfo = DELIVERY, subject = "cubist.cubes.r1") => validateTask(ctx, subject, CubeTask.encode(t).finish(), d);
  const ok = check(task);
  assert.equal(ok.action, "run");
  if (ok.action === "run") assert.deepEqual(ok.limits, { solver: "kissat", timeLimitSec: 10, conflictLimit: undefined, seed: 7, searchMs: 0, objective: "sat" });
  const score = check({ ...task, solver: { ...task.solver!, solver: "none", searchMs: 1000, objective: "score" } });
  assert.ok(score.action === "run" && score.limits.objective === "score");
  assert.equal(check({ ...task, solver: { ...task.solver!, objective: "score" } }).action, "term", "score mode needs the engine alone");
  assert.equal(check({ ...task, solver: { ...task.solver!, objective: "maximise" } }).action, "term");
  assert.equal(check(task, { ...DELIVERY, stream: "OTHER" }).action, "term");
  assert.equal(check(task, { ...DELIVERY, consumer: "coordinator" }).action, "term");
  assert.equal(check(task, DELIVERY, "cubist.cubes.r2").action, "term");
  // The front queue: its own consumer and subject, and only together.
  assert.equal(check(task, { ...DELIVERY, consumer: "front-r1" }, "cubist.cubes.r1.front").action, "run");
  assert.equal(check(task, { ...DELIVERY, consumer: "front-r1" }, "cubist.cubes.r1").action, "term");
  assert.equal(check(task, DELIVERY, "cubist.cubes.r1.front").action, "term");
  assert.equal(check(task, { ...DELIVERY, consumer: "front-r2" }, "cubist.cubes.r2.front").action, "term");
  // The lead queue (a portfolio member going on) likewise.
  assert.equal(check(task, { ...DELIVERY, consumer: "lead-r1" }, "cubist.cubes.r1.lead").action, "run");
  assert.equal(check(task, { ...DELIVERY, consumer: "lead-r1" }, "cubist.cubes.r1.front").action, "term");
  assert.equal(check(task, { ...DELIVERY, consumer: "front-r1" }, "cubist.cubes.r1.lead").action, "term");
  assert.equal(check(task, DELIVERY, "cubist.cubes.r1.lead").action, "term");
  assert.equal(check({ ...task, numVars: task.numVars + 1 }).action, "term");
  assert.equal(check({ ...task, solver: { ...task.solver!, solver: "minisat" } }).action, "term");
  assert.equal(check({ ...task, solver: { ...task.solver!, seed: 2 ** 31 } }).action, "term");
  assert.equal(check({ ...task, placements: [{ cell: 0, piece: 16, rot: 0 }] }).action, "term");
  assert.equal(check({ ...task, puzzleSha256: "b".repeat(64) }).action, "term");
  // A scan run's portfolio member names the engine's scan order; an unknown one is refused.
  assert.equal(check({ ...task, engineOrder: "long" }).action, "run");
  const badOrder = check({ ...task, engineOrder: "diagonal" });
  assert.ok(badOrder.action === "term" && /unknown engine order "diagonal"/.test(badOrder.reason));
  // A part of a scan cube (core/cubes/parts.ts): well formed, and only where the engine searches for a board.
  assert.equal(check({ ...task, part: { k: 1, n: 2, depth: 10 } }).action, "run");
  assert.equal(check({ ...task, part: { k: 0, n: 1, depth: 10 } }).action, "run", "a whole scan cube, numbered");
  assert.equal(check({ ...task, part: { k: 1, n: 2, depth: 10, from: 5000 } }).action, "run", "a part that starts where an earlier search stopped");
  for (const part of [{ k: 2, n: 2, depth: 10 }, { k: 1, n: 1, depth: 10 }, { k: 0, n: 0, depth: 0 }, { k: 0, n: 2, depth: 2_000_000 }]) {
    const r = check({ ...task, part });
    assert.ok(r.action === "term" && /part/.test(r.reason), JSON.stringify(part));
  }
  const partScore = check({ ...task, solver: { ...task.solver!, solver: "none", searchMs: 1000, objective: "score" }, part: { k: 0, n: 2, depth: 10 } });
  assert.ok(partScore.action === "term" && /objective score/.test(partScore.reason));
  assert.equal(check({ ...task, certify: true, part: { k: 0, n: 2, depth: 10 } }).action, "term");
  assert.equal(check({ ...task, engineOrder: "long", part: { k: 0, n: 2, depth: 10 } }).action, "term");
  assert.equal(check({ ...task, engineOrder: "long", part: { k: 0, n: 1, depth: 10, from: 99 } }).action, "run", "the member, numbered, going on");
  assert.equal(check({ ...task, engineOrder: "long", part: { k: 0, n: 1, depth: 10, from: 99, resume: { ranks: [4, 0, 2] } } }).action, "run", "going on exactly where it stopped");
  for (const resume of [{ ranks: [] }, { ranks: [1, 2 ** 31] }, { ranks: [2 ** 32 - 1] }, { ranks: new Array<number>(64 * 64 + 2).fill(0) }]) {
    const r = check({ ...task, engineOrder: "long", part: { k: 0, n: 1, depth: 10, resume } });
    assert.ok(r.action === "term" && /resume/.test(r.reason), JSON.stringify(resume).slice(0, 40));
  }
  const resumePart = check({ ...task, part: { k: 1, n: 2, depth: 10, resume: { ranks: [1] } } });
  assert.ok(resumePart.action === "term" && /only the whole cube goes on exactly/.test(resumePart.reason));
  // A member's tree (coordinator/model/scan-trees.ts): mirrored, a pinned corner piece 0-3 where the board's symmetry
  // is broken (no hints, not certified), on a whole-board task with engine_order only.
  const member: CubeTask = { ...task, cubeId: "member-short-c3-m", placements: [], units: [], engineOrder: "short", part: { k: 0, n: 1, depth: 10 } };
  assert.equal(check({ ...member, engineMirror: true }).action, "run");
  assert.equal(check({ ...member, engineCorner: 3, engineMirror: true }).action, "run");
  for (const [t, why] of [
    [{ ...member, engineCorner: 4 }, /engine_corner 4 is not a corner piece/],
    [{ ...member, engineOrder: "", part: undefined, engineMirror: true }, /for a whole-board task with engine_order/],
    [{ ...task, engineOrder: "short", engineCorner: 1 }, /for a whole-board task with engine_order/],
    [{ ...member, certify: true, part: undefined, engineCorner: 2 }, /symmetry is not broken/],
  ] as const) {
    const r = check(t as CubeTask);
    assert.ok(r.action === "term" && why.test(r.reason), `${JSON.stringify(t).slice(0, 80)}: ${r.action === "term" ? r.reason : r.action}`);
  }
  state = RunState.RUN_STATE_PAUSED;
  assert.equal(check(task).action, "nak");
  state = RunState.RUN_STATE_SAT;
  assert.equal(check(task).action, "ack");
  // A forged task is terminated (and counted) even after its run ended, not dropped as finished work.
  assert.equal(check({ ...task, placements: [{ cell: 0, piece: 16, rot: 0 }] }).action, "term");
  state = RunState.RUN_STATE_RUNNING;
  cancelled = true;
  assert.equal(check(task).action, "ack");
  assert.equal(check({ ...task, numVars: task.numVars + 1 }).action, "term");
});

test("validate - a check of this worker's own work is handed back, for a wait that doubles with each DELIVERY up to 1 s", () => {
  const run = (workerRunFromRecord("r1", record(spec()), 1) as { run: WorkerRun }).run;
  const ctx = { names, run: (id: string) => (id === "r1" ? run : undefined), cancelled: () => false, workerId: "w1" };
  const task = CubeTask.encode(cubeTask({ notWorker: "w1" })).finish();
  const at = (deliveryCount: number) => validateTask(ctx, "cubist.cubes.r1", task, { ...DELIVERY, deliveryCount });
  const waits = [1, 2, 3, 4, 5, 8, 1000].map((d) => {
    const c = at(d);
    assert.ok(c.action === "nak" && /own refutation/.test(c.reason), JSON.stringify(c));
    return c.action === "nak" ? c.delayMs : undefined;
  });
  assert.deepEqual(waits, [100, 200, 400, 800, 1000, 1000, 1000]);
  assert.equal(validateTask({ ...ctx, workerId: "w2" }, "cubist.cubes.r1", task, DELIVERY).action, "run", "another worker runs it");
});
