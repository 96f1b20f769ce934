/** What `cubist solve` writes on stderr while it works (cli/solve-progress.ts), without a cluster. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { countOf, PLAIN_INTERVAL_MS, progressLine, scoreLine, searchLine, SolveProgress } from "../../cli/solve-progress.js";
import { RunState, RunStatus } from "../../proto/gen/cubist/v1/run.js";

// fromPartial: fields added to RunStatus later get their defaults.
const status = RunStatus.fromPartial({
  runId: "r", state: RunState.RUN_STATE_RUNNING, progress: 0.034, etaSeconds: -1, cubesPerSecond: 0, solutions: 0, rejectedModels: 0,
  cubes: { queued: 6, running: 2, sat: 0, unsat: 10, unknown: 0, failed: 0, resplit: 0, refutedBySplit: 0, purged: 0 },
  startedUnixMs: 0, finishedUnixMs: 0, updatedUnixMs: 0, priority: 0, message: "", generation: 0, waiting: "", initialCubes: 16,
});

test("solve progress - the line has the elapsed time, then the closed fraction and cubes once the run reports", () => {
  assert.equal(progressLine(2.5, undefined, "starting a local cluster of 2 workers"), "2.5s elapsed: starting a local cluster of 2 workers");
  assert.equal(progressLine(65, status, "x"), "1m05s elapsed: 3.4% closed, 10 refuted, 2 running, 6 queued");
});

test("solve progress - a pipe gets a plain line at once and then every interval; a terminal a redrawn line, cleared at the end", () => {
  const plain = new SolveProgress(false, 1000, "starting");
  assert.equal(plain.tick(1000), "cubist solve: starting\n", "no \"0ms elapsed\" in the first second");
  assert.equal(plain.tick(2000), "");
  plain.update(status);
  assert.equal(plain.tick(1000 + PLAIN_INTERVAL_MS), "cubist solve: 10s elapsed: 3.4% closed, 10 refuted, 2 running, 6 queued\n");
  assert.equal(plain.finish(), "");
  const tty = new SolveProgress(true, 0, "searching (2 threads)");
  assert.equal(tty.finish(), "", "nothing drawn, nothing to clear");
  assert.equal(tty.tick(3000), "\r3.0s elapsed: searching (2 threads)\x1b[K");
  assert.equal(tty.tick(4000), "\r4.0s elapsed: searching (2 threads)\x1b[K");
  assert.equal(tty.finish(), "\r\x1b[K");
});

test("solve progress - on one machine the line has the engines' searched fraction and the deepest board", () => {
  const tty = new SolveProgress(true, 0, "searching (2 threads)");
  assert.equal(tty.tick(3000), "\r3.0s elapsed: searching (2 threads)\x1b[K");
  tty.updateSearch({ covered: 0.031, deepest: 204, cells: 256 });
  assert.equal(tty.tick(12_000), "\r12s elapsed: searching (2 threads), about 3.1% of the space searched, deepest board 204 of 256 cells\x1b[K");
  assert.equal(searchLine(65, "x", undefined), "1m05s elapsed: x");
});

test("solve progress - in a pipe a long single-machine or score search gets a plain line every interval, the first after one", () => {
  const plain = new SolveProgress(false, 0, `score search (${countOf(2, "thread")})`, PLAIN_INTERVAL_MS);
  plain.updateScore(undefined);
  assert.equal(plain.tick(0), "", "a quick run prints nothing");
  assert.equal(plain.tick(PLAIN_INTERVAL_MS - 1), "");
  assert.equal(plain.tick(PLAIN_INTERVAL_MS), "cubist solve: 10s elapsed: score search (2 threads), no complete board yet\n");
  plain.updateScore({ score: 451, maxScore: 480, mismatches: 29 });
  assert.equal(plain.tick(PLAIN_INTERVAL_MS + 5000), "", "not before the next interval");
  assert.equal(plain.tick(150_000), "cubist solve: 2m30s elapsed: score search (2 threads), best score 451 of 480 (29 mismatched edges)\n");
  assert.equal(plain.tick(155_000), "");
  assert.equal(plain.tick(160_000), "cubist solve: 2m40s elapsed: score search (2 threads), best score 451 of 480 (29 mismatched edges)\n");
  assert.equal(scoreLine(0.5, "x", { score: 479, maxScore: 480, mismatches: 1 }), "x, best score 479 of 480 (1 mismatched edge)");
  assert.deepEqual([countOf(1, "worker"), countOf(2, "worker")], ["1 worker", "2 workers"]);
});
