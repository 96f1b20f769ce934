/**
 * A scan run's portfolio members on a real cluster (docs/cubing.md "Scan cubes"; coordinator/model/scan-trees.ts):
 * real nats-server, coordinator and worker processes, the real engine. The members' tasks carry the trees `cubist
 * solve` searches beside the cubes' one, the ledger names each member, a restarted coordinator keeps them and sends
 * the stopped ones on, a member's exhausted tree refutes the run's open cubes, and a member's board ends the run SAT,
 * verified.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { verifySolution } from "../../core/verify.js";
import { engineProblem, runEngine } from "../../worker/engine/index.js";
import { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import type { SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";
import { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { apiClient, freePort, replaceCoordinator, spawnCoordinator } from "../helpers/api.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist } from "../helpers/processes.js";

const SEVEN: Array<[string, number, boolean]> = [
  ["member-short-m", 0, true], ["member-short-c1", 1, false], ["member-short-c1-m", 1, true], ["member-short-c2", 2, false],
  ["member-short-c2-m", 2, true], ["member-short-c3", 3, false], ["member-short-c3-m", 3, true],
];

/** The run's ledger as stored: its entries in order. */
async function ledgerOf(t: TestNats, runId: string): Promise<LedgerEntry[]> {
  const stream = t.names.ledgerStream;
  const last = (await t.jsm.streams.info(stream)).state.last_seq;
  const out: LedgerEntry[] = [];
  for (let seq = 1; seq <= last; seq++) {
    const m = await t.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m && m.subject === t.names.ledgerSubject(runId)) out.push(LedgerEntry.decode(m.data));
  }
  return out;
}

test("scan trees - eight trees: the member tasks carry the seven other trees, the ledger names them; a restarted coordinator keeps them, sends the stopped ones on, and the run ends UNSAT at weight 1", async () => {
  const t = await startTestNats();
  const marker = newMarker();
  const port = await freePort();
  const tasks: CubeTask[] = [];
  const sub = t.nc.subscribe(`${t.names.prefix}.cubes.>`, { callback: (_e, m) => void tasks.push(CubeTask.decode(m.data)) });
  const a = await spawnCoordinator(t, ["--ack-wait", "5"], marker.env, port);
  let next: Awaited<ReturnType<typeof replaceCoordinator>>["next"] | undefined;
  let worker: ReturnType<typeof spawnCubist> | undefined;
  try {
    const api = apiClient(a.address);
    // 0.01 s budgets: the members (each a whole 7x7 tree, some M placements) are stopped and go on many times.
    const { run } = await api.call<unknown, SubmitRunResponse>("submitRun", {
      puzzleText: readFileSync("test/fixtures/cluster/unsat-7x7-hard.txt", "utf8"),
      cubing: { targetCubes: 64, cellOrder: "scan" }, solver: { solver: "none", timeLimitSec: 0.01 },
    });
    api.close();
    const id = run!.runId;
    const end = Date.now() + 20_000;
    while (tasks.filter((x) => x.engineOrder !== "").length < 7) {
      assert.ok(Date.now() < end, `member tasks: ${tasks.map((x) => x.cubeId).join(",")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const members = tasks.filter((x) => x.engineOrder !== "");
    assert.deepEqual(members.map((x) => [x.cubeId, x.engineCorner, x.engineMirror]), SEVEN);
    assert.ok(members.every((x) => x.engineOrder === "short" && x.placements.length === 0 && x.part?.n === 1));
    assert.ok(tasks.filter((x) => x.engineOrder === "").every((x) => !x.engineMirror && x.engineCorner === 0), "cubes are in the cubes' tree");
    // No worker yet: the first coordinator dies with every member in flight; the next one takes over.
    worker = spawnCubist(["worker", "--nats", t.url, "--prefix", t.names.prefix, "--concurrency", "2", "--id", "w1", "--grace", "0"], { env: marker.env });
    const replaced = await replaceCoordinator(t, a, marker.env, port, id);
    next = replaced.next;
    const info = replaced.info;
    assert.equal(info.status!.state, RunState.RUN_STATE_UNSAT, info.status!.message);
    assert.ok(Math.abs(info.status!.progress - 1) < 1e-9, `progress ${info.status!.progress}`);
    assert.equal(info.status!.cubes!.failed, 0);
    const ledger = await ledgerOf(t, id);
    const entries = ledger.flatMap((e) => (e.entry?.$case === "member" ? [e.entry.value] : []));
    assert.deepEqual([...new Set(entries.map((m) => m.id))].sort(), SEVEN.map(([m]) => m).sort(), "every member entry names its member");
    const goesOn = next.proc.stderr().split("\n").filter((l) => /portfolio member goes on/.test(l));
    assert.ok(goesOn.length >= 1, "the next coordinator sent stopped members on");
    for (const l of goesOn) assert.ok(SEVEN.some(([m]) => l.includes(`member=${m}`)), l);
    // Attempts after the takeover went out in their own trees.
    const later = tasks.filter((x) => x.engineOrder !== "" && (x.part?.from ?? 0) > 0);
    assert.ok(later.length >= 1);
    for (const x of later) assert.deepEqual(SEVEN.find(([m]) => m === x.cubeId)!.slice(1), [x.engineCorner, x.engineMirror], x.cubeId);
  } finally {
    sub.unsubscribe();
    worker?.kill("SIGTERM");
    await worker?.exited;
    next?.proc.kill("SIGTERM");
    await next?.proc.exited;
    a.proc.kill("SIGKILL");
    await a.proc.exited;
    await t.close();
    assert.deepEqual(await waitNoMarked(marker.value), []);
  }
});

test("scan trees - a member that exhausts its tree refutes every open cube: solve --workers 2 ends UNSAT at weight 1", async () => {
  const marker = newMarker();
  // Hundreds of cubes, each its own task: the mirror member, second in the queue, exhausts its whole tree (a few M
  // placements) within its first 10 s budget, long before the cubes are through.
  const p = spawnCubist(["solve", "test/fixtures/cluster/unsat-7x7-hard.txt", "--workers", "2", "--json", "--cell-order", "scan", "--solver", "none", "--cubes", "200", "--verbose"], { env: marker.env });
  const { code } = await p.exited;
  assert.deepEqual(await waitNoMarked(marker.value), []);
  assert.equal(code, 20, p.stderr());
  const out = JSON.parse(p.stdout());
  assert.equal(out.status, "unsat");
  assert.ok(Math.abs(out.stats.progress - 1) < 1e-9, `progress ${out.stats.progress}`);
  const exhausted = p.stderr().split("\n").filter((l) => /portfolio member exhausted the board/.test(l));
  assert.equal(exhausted.length, 1, p.stderr().split("\n").filter((l) => /portfolio member|cubes dispatched|scan split/.test(l)).join("\n"));
  assert.ok(SEVEN.some(([m]) => exhausted[0].includes(`member=${m}`)), exhausted[0]);
});

test("scan trees - a member's board ends the run SAT, verified: with one worker and no board in the first cube, the mirror member finds one", async () => {
  const file = "test/fixtures/brendan/pieces_06x06.txt";
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  const cubes = 200;
  // The precondition, by the engine: the cubes' tree has no board in its first cube, so the worker's second task,
  // the mirror member (the whole board in its tree), meets a board before any cube does.
  const first = scanSplit(puzzle, { targetCubes: cubes, symmetry: true }).cubes[0];
  const alone = await runEngine(engineProblem(puzzle, first.placements)!, { rows: 6, cols: 6, pieces: puzzle.pieces.length }, { order: "short", symmetry: true });
  assert.equal(alone.kind, "unsat", "the first cube holds no board");
  const marker = newMarker();
  const p = spawnCubist(["solve", file, "--workers", "1", "--json", "--cubes", String(cubes), "--verbose"], { env: marker.env });
  const { code } = await p.exited;
  assert.deepEqual(await waitNoMarked(marker.value), []);
  assert.equal(code, 0, p.stderr());
  const out = JSON.parse(p.stdout());
  assert.equal(out.status, "sat");
  assert.deepEqual(verifySolution(puzzle, readBoardJSON(out.board, puzzle)), { ok: true });
  const found = p.stderr().split("\n").filter((l) => /solution verified/.test(l));
  assert.equal(found.length, 1);
  assert.match(found[0], /cube=member-short-m\b/, found[0]);
});
