/**
 * Portfolios of real engine processes (worker/engine/portfolio.ts): engine members alone and split over several
 * processes, raced with firstProof. The first proof wins, every other run is stopped, and no process outlives the
 * race (each engine here runs through a wrapper that records its pid, checked through /proc afterwards).
 * The race's own rules with scripted contenders are in test/unit/engine-parts.test.ts.
 */

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Placement, Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import {
  EngineCrashedError,
  EngineNotFoundError,
  engineContender,
  engineProblem,
  firstProof,
  memberName,
  parsePortfolio,
  type Contender,
  type EngineMemberResult,
  type EngineRunContext,
  type MemberSpec,
} from "../../worker/engine/index.js";
import { assertGone, trackedEngine } from "../helpers/engine.js";

const FIX = new URL("../fixtures/", import.meta.url);
const fixture = (rel: string): Puzzle => parsePuzzle(readFileSync(new URL(rel, FIX), "utf8"), rel);
const dir = mkdtempSync(join(tmpdir(), "cubist-engine-portfolio-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const E2 = fixture("eternity2/e2_pieces.txt");
const UNSAT5 = fixture("cluster/unsat-5x5.txt");
const BRENDAN5 = fixture("brendan/pieces_05x05.txt");
const MANY = generatePuzzle({ rows: 3, cols: 3, centerColors: 2, seed: 1, unbounded: true }).puzzle; // 44,144 solutions

let wrappers = 0;

/**
 * An engine wrapper that appends its pid to a file, runs `before` (shell, with the engine's arguments in "$@"),
 * then execs the engine.
 */
function wrapper(before = ""): { binary: string; pids(): number[] } {
  return trackedEngine(dir, `w${wrappers++}`, before);
}

function context(p: Puzzle, extra: Partial<EngineRunContext> = {}): EngineRunContext {
  const problem = engineProblem(p, []);
  assert.ok(problem !== null);
  return { problem, shape: { rows: p.rows, cols: p.cols, pieces: p.pieces.length }, symmetry: false, ...extra };
}

function engineMember(spec: string): Extract<MemberSpec, { kind: "engine" }> {
  const [m] = parsePortfolio(spec);
  assert.equal(m.kind, "engine");
  return m as Extract<MemberSpec, { kind: "engine" }>;
}

function assertBoard(p: Puzzle, board: readonly Placement[] | undefined, what: string): void {
  assert.ok(board, what);
  const cells = new Array(p.rows * p.cols).fill(null).map((_, cell) => ({ piece: board[cell].piece, rot: board[cell].rot }));
  assert.deepEqual(verifySolution(p, { rows: p.rows, cols: p.cols, cells }), { ok: true }, what);
}

test("portfolio members - single and split engine members prove sat with a verified board and unsat, with and without symmetry", async () => {
  const specs = ["short", "long", "spiral:s3", "border:r50:s2", "row:p3", "col:s5:p2", "short:p5"];
  for (const [p, want] of [[BRENDAN5, "sat"], [UNSAT5, "unsat"], [MANY, "sat"]] as const) {
    for (const spec of specs) {
      for (const symmetry of [false, true]) {
        const what = `${p.name} ${spec} symmetry ${symmetry}`;
        const w = wrapper();
        const m = engineMember(spec);
        const r = await engineContender(m, context(p, { symmetry, binary: w.binary })).run(new AbortController().signal);
        assert.equal(r.kind, want, what);
        assert.ok(r.nodes > 0 && r.seconds >= 0, what);
        if (want === "sat") assertBoard(p, r.board, what);
        assert.ok(w.pids().length >= 1 && w.pids().length <= m.parts, `${what}: ${w.pids().length} processes for ${m.parts} parts`);
        if (want === "unsat") assert.equal(w.pids().length, m.parts, `${what}: every part ran to its end`);
        await assertGone(w.pids());
      }
    }
  }
});

test("portfolio race - the first proof wins; a slower member is stopped, a broken one is collected, nothing is left running", async () => {
  // "fast" starts after 3 s, so the member that gives up (after 20 ms of search, plus building its Eternity II
  // tables on a loaded machine) has its answer in before the race ends.
  const fast = wrapper("sleep 3");
  const slow = wrapper("sleep 30");
  const slowParts = wrapper("sleep 30");
  const giveUp = wrapper();
  const members: Array<[string, Contender<EngineMemberResult>]> = [
    ["slow", engineContender(engineMember("row"), context(BRENDAN5, { binary: slow.binary }))],
    ["slow parts", engineContender(engineMember("col:p3"), context(BRENDAN5, { binary: slowParts.binary }))],
    ["missing binary", engineContender(engineMember("spiral"), context(BRENDAN5, { binary: join(dir, "no-such-engine") }))],
    ["gives up", engineContender(engineMember("border"), context(E2, { binary: giveUp.binary, timeLimitMs: 20 }))],
    ["fast", engineContender(engineMember("short"), context(BRENDAN5, { binary: fast.binary }))],
  ];
  const started = performance.now();
  const { winner, entries } = await firstProof(members.map(([, c]) => c));
  assert.ok(performance.now() - started < 10_000);
  assert.equal(winner?.name, "short");
  assert.equal(winner?.result?.kind, "sat");
  assertBoard(BRENDAN5, winner?.result?.board, "winner");
  assert.deepEqual(entries.map((e) => e.name), ["row", "col:p3", "spiral", "border", "short"]);
  assert.deepEqual(entries[0].result, { kind: "unknown", reason: "aborted", nodes: 0, seconds: 0 });
  assert.deepEqual(entries[1].result, { kind: "unknown", reason: "aborted", nodes: 0, seconds: 0 });
  assert.ok(entries[2].error instanceof EngineNotFoundError, String(entries[2].error));
  assert.deepEqual([entries[3].result?.kind, entries[3].result?.reason], ["unknown", "time-limit"]);
  for (const w of [fast, slow, slowParts, giveUp]) await assertGone(w.pids());
});

test("portfolio race - the caller's abort stops every member and every part promptly, and nobody wins", async () => {
  const single = wrapper();
  const parts = wrapper();
  const stop = new AbortController();
  // Stop once both members are searching (their engines print progress, so they handle SIGTERM by then).
  const searching = new Set<string>();
  let abortedAt = 0;
  const onProgress = (member: string): void => {
    searching.add(member);
    if (searching.size === 2 && !stop.signal.aborted) {
      abortedAt = performance.now();
      stop.abort();
    }
  };
  const members = [
    engineContender(engineMember("short"), context(E2, { binary: single.binary, progressMs: 20, onProgress })),
    engineContender(engineMember("spiral:s9:p3"), context(E2, { binary: parts.binary, symmetry: true, progressMs: 20, onProgress })),
  ];
  const { winner, entries } = await firstProof(members, stop.signal);
  const took = performance.now() - abortedAt;
  assert.equal(winner, null);
  assert.ok(stop.signal.aborted);
  for (const e of entries) assert.deepEqual([e.result?.kind, e.result?.reason], ["unknown", "aborted"], e.name);
  assert.ok(entries.every((e) => (e.result?.nodes ?? 0) > 0), "the stopped engines reported their work");
  assert.ok(took < 900, `settled ${took} ms after the abort (the kill grace period is 1000 ms)`);
  assert.equal(single.pids().length + parts.pids().length, 4);
  await assertGone([...single.pids(), ...parts.pids()]);
});

test("portfolio members - a split member stops its other parts once one finds a board, and a failing part fails an unfinished member", async () => {
  // One part hangs before it starts: a board from another part still decides the member, and the hung part is stopped.
  const hang = wrapper('case "$*" in *"--part 1/3"*) sleep 30;; esac');
  const won = await engineContender(engineMember("row:p3"), context(MANY, { binary: hang.binary })).run(new AbortController().signal);
  assert.equal(won.kind, "sat");
  assertBoard(MANY, won.board, "split member");
  await assertGone(hang.pids());

  // One part fails on an unsat board: the others' "unsat" is not the whole space, so the member fails.
  const broken = wrapper('case "$*" in *"--part 1/3"*) echo "part 1 broke" >&2; exit 3;; esac');
  await assert.rejects(
    engineContender(engineMember("row:p3"), context(UNSAT5, { binary: broken.binary })).run(new AbortController().signal),
    (err: unknown) => err instanceof EngineCrashedError && /exit 3.*part 1 broke/.test(err.message),
  );
  await assertGone(broken.pids());

  // Every part gives up: the member is unknown with the parts' reason.
  const tired = wrapper();
  const gaveUp = await engineContender(engineMember("short:p2"), context(E2, { binary: tired.binary, timeLimitMs: 100 })).run(new AbortController().signal);
  assert.deepEqual([gaveUp.kind, gaveUp.reason], ["unknown", "time-limit"]);
  assert.ok(gaveUp.nodes > 0);
  await assertGone(tired.pids());
  assert.equal(memberName(engineMember("short:p2")), "short:p2");
});
