import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseE2Hints, parsePuzzle, readReferenceBoards, withHints } from "../../core/formats/index.js";
import type { Board, Puzzle } from "../../core/puzzle.js";
import { verifyPartial } from "../../core/verify.js";
import { splitCubes } from "../../core/cubes/split.js";
import { addRational, equalRational, sumWeights } from "../../core/cubes/weight.js";

const FIX = new URL("../fixtures/eternity2/", import.meta.url);
const read = (f: string): string => readFileSync(new URL(f, FIX), "utf8");
const bare = parsePuzzle(read("e2_pieces.txt"), "e2_pieces.txt");
const e2: Puzzle = withHints(bare, parseE2Hints(read("e2_hints.txt"), "e2_hints.txt", bare), "e2_hints.txt");

test("cube split - Eternity II splits into 10,000 cubes with exact weights, hints kept", () => {
  const started = performance.now();
  const r = splitCubes(e2, { targetCubes: 10_000, recordRefuted: true });
  const ms = performance.now() - started;
  assert.ok(r.cubes.length >= 10_000 && r.cubes.length < 11_000, `${r.cubes.length} cubes`);
  assert.ok(ms < 10_000, `split took ${ms.toFixed(0)} ms`);
  assert.equal(r.solutions.length, 0);
  const total = [r.cubes, r.refuted.branches!].map((l) => sumWeights(l.map((c) => c.branching))).reduce(addRational);
  assert.ok(equalRational(total, { num: 1n, den: 1n }));
  const hintCells = new Set(e2.hints.map((h) => h.row * 16 + h.col));
  const hintPieces = new Set(e2.hints.map((h) => h.piece));
  for (const c of r.cubes.filter((_, i) => i % 97 === 0)) {
    const cells: Board["cells"][number][] = new Array(256).fill(null);
    for (const h of e2.hints) cells[h.row * 16 + h.col] = { piece: h.piece, rot: h.rot };
    for (const pl of c.placements) {
      assert.ok(!hintCells.has(pl.cell) && !hintPieces.has(pl.piece));
      cells[pl.cell] = { piece: pl.piece, rot: pl.rot };
    }
    assert.deepEqual(verifyPartial(e2, { rows: 16, cols: 16, cells }), { ok: true });
  }
});

test("cube split - Eternity II spiral and row-major splits are exact too", () => {
  for (const cellOrder of ["spiral", "row-major"] as const) {
    const r = splitCubes(e2, { targetCubes: 3_000, cellOrder, expansion: "heaviest-first", recordRefuted: true });
    assert.ok(r.cubes.length >= 3_000);
    const total = [r.cubes, r.refuted.branches!].map((l) => sumWeights(l.map((c) => c.branching))).reduce(addRational);
    assert.ok(equalRational(total, { num: 1n, den: 1n }), cellOrder);
  }
});

test("cube split - a base cube taken from a reference board splits into children that extend it, weights exact", () => {
  // The 2009 boards respect all five hints; their first 20 cells make a valid base cube.
  const boards = readReferenceBoards(read("e2_reference_boards.txt"), "e2_reference_boards.txt", bare);
  const withAllHints = boards.find((b) => e2.hints.every((h) => {
    const c = b.board.cells[h.row * 16 + h.col];
    return c !== null && c.piece === h.piece && c.rot === h.rot;
  }));
  assert.ok(withAllHints, "a reference board respects the hints");
  const board = withAllHints.board;
  // A partial board from the reference: rows 0-1 where the pieces still match (a reference board has mismatches).
  const base = { placements: [] as { cell: number; piece: number; rot: number }[], branching: [3, 5], weight: 1 / 15 };
  const probe: Board["cells"][number][] = new Array(256).fill(null);
  for (const h of e2.hints) probe[h.row * 16 + h.col] = { piece: h.piece, rot: h.rot };
  for (let cell = 0; cell < 32; cell++) {
    probe[cell] = board.cells[cell];
    if (verifyPartial(e2, { rows: 16, cols: 16, cells: probe }).ok) base.placements.push({ cell, ...board.cells[cell]! });
    else probe[cell] = null;
  }
  assert.ok(base.placements.length >= 10);
  const r = splitCubes(e2, { targetCubes: 2_000, base, recordRefuted: true });
  const total = [r.cubes, r.refuted.branches!].map((l) => sumWeights(l.map((c) => c.branching))).reduce(addRational);
  assert.ok(equalRational(total, { num: 1n, den: 15n }));
  for (const c of r.cubes) assert.deepEqual(c.placements.slice(0, base.placements.length), base.placements);
});
