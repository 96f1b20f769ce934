/**
 * End to end through the embedded local cluster (`cubist solve --workers N`): a private nats-server, the
 * coordinator and real workers (in the CLI's process, each on its own NATS connection) running real Kissat. Answers are checked by the verifier; nothing may
 * be left behind (processes, temp dirs), also after Ctrl-C.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnCubist } from "../helpers/processes.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { verifySolution } from "../../core/verify.js";

/**
 * A private TMPDIR for one command, so that what it leaves behind is told apart from other test files' clusters
 * (they run side by side); `left()` lists what is still in it, and removes it.
 */
function privateTmp(): { env: Record<string, string>; left(): string[] } {
  const dir = mkdtempSync(join(tmpdir(), "cubist-test-tmp-"));
  return {
    env: { TMPDIR: dir },
    left: () => {
      const rest = readdirSync(dir);
      rmSync(dir, { recursive: true, force: true });
      return rest;
    },
  };
}

async function solve(args: string[], marker: { env: Record<string, string> }, tmp?: { env: Record<string, string> }) {
  const p = spawnCubist(["solve", ...args], { env: { ...marker.env, ...tmp?.env } });
  const { code } = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

test("cluster solve - a crashing solver on the local workers ends the run FAILED (exit 1) instead of stalling in quarantine", async () => {
  const marker = newMarker();
  const r = await solve([
    "test/fixtures/cluster/unsat-5x5.txt", "--workers", "1", "--json", "--cubes", "4", "--search-ms", "0",
    "--solver-path", new URL("../fixtures/fake-solvers/crash-exit1.sh", import.meta.url).pathname, "--time", "60",
  ], marker);
  assert.equal(r.code, 1, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unknown");
  assert.match(out.reason, /cube\(s\) failed/);
  assert.ok(out.stats.cubes.failed > 0);
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cluster solve - a shuffled clue puzzle is solved on 2 workers and the board verifies", async () => {
  const marker = newMarker();
  const tmp = privateTmp();
  const file = "test/fixtures/cluster/clue1-shuffled-s11.txt";
  const r = await solve([file, "--workers", "2", "--json", "--cubes", "16"], marker, tmp);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "sat");
  assert.equal(out.workers, 2);
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const board = readBoardJSON(out.board, puzzle);
  assert.deepEqual(verifySolution(puzzle, board), { ok: true });
  // The phases of the embedded cluster, in the order they happen (ms since its start).
  const p = out.stats.phasesMs;
  assert.deepEqual(Object.keys(p).sort(), ["coordinatorReady", "ended", "firstVerdict", "natsReady", "stopped", "submitted", "workersReady"]);
  const order = [p.natsReady, p.coordinatorReady, p.submitted, p.firstVerdict, p.ended, p.stopped];
  assert.ok(order.every((t, i) => Number.isInteger(t) && t >= 0 && (i === 0 || t >= order[i - 1])), JSON.stringify(p));
  assert.ok(p.workersReady >= p.coordinatorReady && p.workersReady <= p.firstVerdict, JSON.stringify(p));
  assert.ok(p.stopped <= out.stats.wallMs, `stopped at ${p.stopped} ms, the command took ${out.stats.wallMs} ms`);
  assert.deepEqual(await waitNoMarked(marker.value), []);
  assert.deepEqual(tmp.left(), [], "nothing left in the command's TMPDIR");
});

test("cluster solve - a missing solver binary is an error at start naming it (exit 1), and nothing is left behind", async () => {
  const marker = newMarker();
  const tmp = privateTmp();
  const r = await solve(["test/fixtures/cluster/clue1-shuffled-s11.txt", "--workers", "2", "--json", "--solver-path", "/nonexistent/kissat", "--time", "60"], marker, tmp);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /cubist solve: solver \/nonexistent\/kissat not found/);
  assert.deepEqual(await waitNoMarked(marker.value), []);
  assert.deepEqual(tmp.left(), [], "nothing left in the command's TMPDIR");
});

test("cluster solve - an unsatisfiable puzzle is proved UNSAT: every cube refuted, weights sum to 1", async () => {
  const marker = newMarker();
  const r = await solve(["test/fixtures/cluster/unsat-6x6.txt", "--workers", "2", "--json", "--cubes", "24"], marker);
  assert.equal(r.code, 20, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unsat");
  assert.equal(out.board, null);
  assert.ok(Math.abs(out.stats.progress - 1) < 1e-9, `progress ${out.stats.progress}`);
  assert.equal(out.stats.cubes.failed, 0);
  assert.equal(out.stats.cubes.queued, 0);
  assert.ok(out.stats.cubes.unsat + out.stats.cubes.refutedBySplit > 0);
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cluster solve - in a pipe, progress lines go to stderr from the start (the cluster's start-up included), the board to stdout", async () => {
  const marker = newMarker();
  const r = await solve(["test/fixtures/cluster/unsat-6x6.txt", "--workers", "2", "--cubes", "24"], marker);
  assert.equal(r.code, 20, r.stderr);
  const lines = r.stderr.split("\n");
  // The first line comes at once, so it has no elapsed time ("0ms elapsed" would tell nobody anything).
  assert.equal(lines[0], "cubist solve: starting a local cluster of 2 workers");
  assert.ok(!r.stderr.includes("\r") && !r.stderr.includes("\u001b["), "no terminal redraws in a pipe");
  assert.doesNotMatch(r.stdout, /elapsed/);
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cluster solve - Ctrl-C tears the whole cluster down: exit 130, no process or temp dir left", async () => {
  const marker = newMarker();
  const tmp = privateTmp();
  // A puzzle that keeps the workers busy for longer than the test waits.
  const p = spawnCubist(["solve", "test/fixtures/eternity2/e2_pieces.txt", "--workers", "2", "-v", "--cubes", "8"], { env: { ...marker.env, ...tmp.env } });
  await p.waitForLog(/worker running/, 20_000);
  await new Promise((r) => setTimeout(r, 1500));
  p.kill("SIGINT");
  const { code } = await p.exited;
  assert.equal(code, 130, p.stderr());
  assert.deepEqual(await waitNoMarked(marker.value), []);
  assert.deepEqual(tmp.left(), [], "nothing left in the command's TMPDIR");
});

test("cluster solve - a whole-run time limit gives unknown (exit 30)", async () => {
  const marker = newMarker();
  const r = await solve(["test/fixtures/eternity2/e2_pieces.txt", "--workers", "1", "--json", "--time", "4", "--cubes", "4"], marker);
  assert.equal(r.code, 30, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unknown");
  assert.equal(out.reason, "time-limit");
  assert.deepEqual(await waitNoMarked(marker.value), []);
});

test("cluster solve - Eternity II with its 5 hints: split into 50,000 cubes, dispatched, cubes close and progress rises", async () => {
  const marker = newMarker();
  // The 50,000 cubes were all out 21 to 22 s after the start on 2 cores at a load of 6; at a load of 17, 33,201 of
  // them in 32 s.
  const r = await solve([
    "test/fixtures/eternity2/e2_pieces.txt", "--hints", "test/fixtures/eternity2/e2_hints.txt",
    "--workers", "2", "--json", "--cubes", "50000", "--cube-time", "3", "--search-ms", "300", "--time", "45",
  ], marker);
  assert.equal(r.code, 30, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unknown");
  const c = out.stats.cubes;
  const total = c.sat + c.unsat + c.unknown + c.failed + c.resplit + c.queued + c.purged; // queued counts running ones too
  assert.ok(total >= 50_000, `only ${total} cubes`);
  assert.ok(c.unsat + c.resplit > 0, `no cube closed: ${JSON.stringify(c)}`);
  assert.ok(out.stats.progress > 0, "progress above zero");
  assert.ok(out.stats.progress < 1);
  assert.deepEqual(await waitNoMarked(marker.value), []);
});
