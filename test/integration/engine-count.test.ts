/**
 * The engine's node count against a public figure: Brendan Owen's 6x6 (set 1) has 65 solutions, 260 counting its
 * rotations, and a plain row-scan backtracker takes 69,284,103 nodes (placements) to find them all. The engine's row
 * order without a seed or symmetry breaking is that plain scan (candidates in piece order, a node = one placement
 * made), so both inner loops must give exactly these numbers.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { readBrendan } from "../../core/formats/index.js";
import { engineProblem, runEngine } from "../../worker/engine/index.js";

const FILE = "bench/puzzles/brendan/pieces_06x06.txt";

for (const loop of ["bits", "scan"] as const) {
  test(`engine count - Brendan's 6x6 in a row scan (${loop} loop): 260 boards in 69,284,103 placements`, async () => {
    const puzzle = readBrendan(readFileSync(FILE, "utf8"), FILE);
    const text = engineProblem(puzzle, []);
    assert.ok(text !== null);
    const o = await runEngine(text, { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length }, { order: "row", count: true, loop });
    assert.equal(o.kind, "sat");
    assert.equal(o.stats.end, "exhausted");
    assert.equal(o.stats.solutions, 260);
    assert.equal(o.stats.nodes, 69_284_103);
  });
}
