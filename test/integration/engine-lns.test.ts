/**
 * Score mode's neighbourhood search (engine/lns.c, `--score --lns MS`): every board it prints passes core/score.ts
 * (each piece once, grey only on the rim, hints kept) and scores what the engine claims. Runs are bounded by
 * placements, and `--lns 0` starts the search at the first board, so the results are deterministic.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { generatePuzzle } from "../../core/generate.js";
import type { Edges, Puzzle } from "../../core/puzzle.js";
import { innerEdgeCount } from "../../core/verify.js";
import { engineProblem, runEngine, type EngineBest } from "../../worker/engine/index.js";
import { checkScoredBoards } from "../helpers/engine.js";

/** A generated 8x8 board with two hints from its solution, one inner piece given a colour nobody else has. */
function hintedBroken(seed: number): Puzzle {
  const { puzzle, solution } = generatePuzzle({ rows: 8, cols: 8, borderColors: 3, centerColors: 6, seed });
  const pieces = puzzle.pieces.map((p) => ({ ...p }));
  const hints = [18, 45].map((cell) => ({ row: Math.floor(cell / 8), col: cell % 8, piece: solution.cells[cell]!.piece, rot: solution.cells[cell]!.rot }));
  const inner = pieces.findIndex((p, i) => p.edges.every((c) => c !== 0) && !hints.some((h) => h.piece === i));
  const e = [...pieces[inner].edges] as [number, number, number, number];
  e[0] = 99;
  pieces[inner] = { ...pieces[inner], edges: e as Edges };
  return { ...puzzle, pieces, hints };
}

test("--lns: every board it prints is valid (hints kept, grey on the rim), scores what it claims, and improves", async () => {
  for (const seed of [1, 3, 4]) {
    const puzzle = hintedBroken(seed);
    const bests: EngineBest[] = [];
    const outcome = await runEngine(engineProblem(puzzle, [])!, { rows: 8, cols: 8, pieces: 64 }, {
      order: "row", seed, restartBase: 20_000, score: { fromPct: 50, lnsMs: 0 }, nodeLimit: 3_000_000, onBest: (b) => bests.push(b),
    });
    assert.equal(outcome.kind, "unknown", `seed ${seed}: no perfect board exists`);
    assert.ok(bests.length > 1, `seed ${seed}: the first board and improvements on it`);
    const last = checkScoredBoards(puzzle, bests, `seed ${seed}`);
    assert.ok(last < innerEdgeCount(puzzle), "no board can be perfect");
    // --lns 0: the branch and bound hands over at its first check point (every 16384 placements) after a board.
    assert.ok(bests.some((b) => b.nodes > 16_384), `seed ${seed}: the neighbourhood search improved the board`);
    const first = bests[0].score ?? Number.POSITIVE_INFINITY;
    assert.ok(last >= first + 5, `seed ${seed}: the search gains on its first board (${first} -> ${last})`);
  }
});

test("cubist solve --lns goes with --objective score alone", () => {
  const r = spawnSync(process.execPath, [join(process.cwd(), "dist/cli/main.js"), "solve", "test/fixtures/eternity2/e2_pieces.txt", "--lns", "5", "--time", "1"], { encoding: "utf8" });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /lns.*--objective score/);
});
