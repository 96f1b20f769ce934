/**
 * The engine's exact resume (--resume-from, docs/engine.md "Going on where a search stopped"): a search stopped by a
 * limit prints where it goes on, and a chain of searches each going on from the last one's line makes exactly the
 * placements and finds exactly the boards of one search without a stop. Brendan Owen's 6x6 in a plain row scan is
 * the public figure: 260 boards in 69,284,103 placements (test/integration/engine-count.test.ts).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { readBrendan } from "../../core/formats/index.js";
import { engineProblem, runEngine, type EngineOptions } from "../../worker/engine/index.js";

const FILE = "bench/puzzles/brendan/pieces_06x06.txt";
const puzzle = readBrendan(readFileSync(FILE, "utf8"), FILE);
const text = engineProblem(puzzle, []) ?? "";
const size = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };

interface Chain { nodes: number; solutions: number; stops: number; partNext: number[] }

/** Searches in chunks of `chunk` placements, each going on where the last stopped, until one exhausts the space. */
async function chain(o: EngineOptions, chunk: number, depth?: number): Promise<Chain> {
  const total: Chain = { nodes: 0, solutions: 0, stops: 0, partNext: [] };
  let resume: number[] | undefined;
  let from: number | undefined;
  for (;;) {
    const part = { k: 0, n: 1, ...(depth !== undefined ? { depth } : {}), ...(from ? { from } : {}), ...(resume ? { resume: { ranks: resume } } : {}) };
    const out = await runEngine(text, size, { ...o, count: true, nodeLimit: chunk, part });
    total.nodes += out.stats.nodes;
    total.solutions += out.stats.solutions;
    if (out.stats.end === "exhausted") return total;
    assert.equal(out.stats.end, "node-limit");
    assert.ok(out.stats.resumeFrom, "a stopped search says where it goes on");
    resume = out.stats.resumeFrom;
    if (depth !== undefined) {
      assert.ok(out.stats.partNext);
      from = out.stats.partNext.next;
      total.partNext.push(from);
    }
    total.stops++;
  }
}

for (const loop of ["bits", "scan"] as const) {
  test(`engine resume - Brendan's 6x6 counted in 3 M-placement chunks (${loop} loop): every board and placement once`, async () => {
    const got = await chain({ order: "row", loop }, 3_000_000);
    assert.ok(got.stops >= 20, `stopped ${got.stops} times`);
    assert.equal(got.solutions, 260);
    assert.equal(got.nodes, 69_284_103);
  });
}

test("engine resume - with subtrees numbered at a depth, part-next goes on counting where the last search stopped", async () => {
  const got = await chain({ order: "row", seed: 7 }, 5_000_000, 6);
  const whole = await runEngine(text, size, { order: "row", seed: 7, count: true });
  assert.equal(got.solutions, 260);
  assert.equal(got.nodes, whole.stats.nodes);
  assert.ok(got.partNext.every((n, i) => i === 0 || n >= got.partNext[i - 1]), `part-next never goes back: ${got.partNext.join(",")}`);
  assert.ok(got.partNext[got.partNext.length - 1] > got.partNext[0]);
});

for (const o of [{ order: "row", seed: 11 }, { order: "short", symmetry: true, corner: 2 }] satisfies EngineOptions[]) {
  test(`engine resume - a first-solution search in 50,000-placement chunks (${JSON.stringify(o)}) reaches one search's board`, async () => {
    const whole = await runEngine(text, size, o);
    assert.equal(whole.kind, "sat");
    let resume: number[] | undefined;
    let nodes = 0;
    for (let chunks = 1; chunks <= 1000; chunks++) {
      const out = await runEngine(text, size, { ...o, nodeLimit: 50_000, ...(resume ? { part: { k: 0, n: 1, resume: { ranks: resume } } } : {}) });
      nodes += out.stats.nodes;
      if (out.kind === "sat") {
        assert.ok(chunks >= 5, `${chunks} chunks`);
        assert.deepEqual(out.board, whole.kind === "sat" ? whole.board : null);
        assert.equal(nodes, whole.stats.nodes);
        return;
      }
      resume = out.stats.resumeFrom;
    }
    assert.fail("no board in 1000 chunks");
  });
}

test("engine resume - refused with what it cannot go on in, and a malformed list", async () => {
  for (const [extra, why] of [
    [{ order: "mcf" as const }, /not with --order mcf/],
    [{ restartBase: 1000 }, /not with .*--restart/],
  ] as const) {
    await assert.rejects(runEngine(text, size, { ...extra, part: { k: 0, n: 1, resume: { ranks: [1, 2] } } }), why);
  }
  await assert.rejects(runEngine(text, size, { part: { k: 0, n: 1, resume: { ranks: [1.5e10] } } }), /--resume-from wants comma-separated ranks/);
});
