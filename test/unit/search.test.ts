import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parsePuzzle, readBrendanSolution } from "../../core/formats/index.js";
import type { Board, Edges, Placement, Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { InvalidOptionError } from "../../core/errors.js";
import { searchPlacements } from "../../core/cubes/search.js";

const FIX = new URL("../fixtures/", import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIX), "utf8");
const brendan = (size: string): Puzzle => parsePuzzle(read(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
const planted = (size: string, p: Puzzle): Board => readBrendanSolution(read(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, p);
const firstCells = (b: Board, n: number): Placement[] =>
  Array.from({ length: n }, (_, cell) => ({ cell, piece: b.cells[cell]!.piece, rot: b.cells[cell]!.rot }));

test("placement search - solves brendan 6x6 outright in every cell order", () => {
  const p = brendan("06x06");
  for (const cellOrder of ["row-major", "most-constrained", "spiral", "frame-first"] as const) {
    const r = searchPlacements(p, { cellOrder });
    assert.equal(r.kind, "sat", cellOrder);
    if (r.kind === "sat") assert.deepEqual(verifySolution(p, r.board), { ok: true });
  }
});

test("placement search - finds the planted 6x6 and 8x8 solutions and proves them unique below their top rows", () => {
  for (const [size, rows] of [["06x06", 2], ["08x08", 1]] as const) {
    const p = brendan(size);
    const sol = planted(size, p);
    const fixed = firstCells(sol, rows * p.cols);
    const r = searchPlacements(p, { fixed, findAll: true });
    assert.equal(r.kind, "sat", size);
    if (r.kind !== "sat") continue;
    assert.deepEqual(r.board, sol, size);
    assert.equal(r.solutions, 1);
    assert.ok(r.complete);
    assert.ok(r.nodes > 1000);
  }
});

test("placement search - counts 65 solutions of the 6x6 with its top-left corner fixed, 2 with its top row", () => {
  const p = brendan("06x06");
  const sol = planted("06x06", p);
  const r = searchPlacements(p, { fixed: firstCells(sol, 1), findAll: true });
  assert.ok(r.kind === "sat" && r.complete);
  if (r.kind === "sat") assert.equal(r.solutions, 65);
  const six = searchPlacements(p, { fixed: firstCells(sol, 6), findAll: true });
  assert.ok(six.kind === "sat" && six.solutions === 2 && six.complete);
});

test("placement search - proves a modified 8x8 unsat below its top row", () => {
  const p0 = brendan("08x08");
  const sol = planted("08x08", p0);
  // Swap two sides of the inner piece at (4,4): the colour counts stay even, the planted solution breaks.
  const victim = sol.cells[4 * 8 + 4]!.piece;
  const pieces = p0.pieces.map((pc, i) => {
    if (i !== victim) return pc;
    const [n, e, s, w] = pc.edges;
    assert.notEqual(n, e);
    return { ...pc, edges: [e, n, s, w] as Edges };
  });
  const p: Puzzle = { ...p0, pieces };
  for (const pruning of ["none", "neighbours"] as const) {
    const r = searchPlacements(p, { fixed: firstCells(sol, 8), pruning });
    assert.equal(r.kind, "unsat", pruning);
    assert.ok(r.nodes > 1000);
  }
});

test("placement search - proves unsat when a colour count is odd (brendan 5x5, one side recoloured)", () => {
  const p0 = brendan("05x05");
  const inner = p0.pieces.findIndex((pc) => !pc.edges.includes(0));
  const pieces = p0.pieces.map((pc, i) => (i === inner ? { ...pc, edges: [pc.edges[0] === 1 ? 2 : 1, pc.edges[1], pc.edges[2], pc.edges[3]] as Edges } : pc));
  const p: Puzzle = { ...p0, pieces };
  for (const cellOrder of ["row-major", "most-constrained"] as const) {
    const r = searchPlacements(p, { cellOrder });
    assert.equal(r.kind, "unsat", cellOrder);
  }
});

test("placement search - solves the shuffled Heule em_7_3_6", () => {
  const p = parsePuzzle(read("heule2008/em_7_3_6.txt"), "em_7_3_6.txt");
  const r = searchPlacements(p, { cellOrder: "most-constrained" });
  assert.equal(r.kind, "sat");
  if (r.kind === "sat") assert.deepEqual(verifySolution(p, r.board), { ok: true });
});

test("placement search - the node limit gives unknown", () => {
  const p = brendan("08x08");
  const r = searchPlacements(p, { nodeLimit: 5000 });
  assert.deepEqual(r, { kind: "unknown", nodes: 5000 });
  const m = searchPlacements(p, { nodeLimit: 300, cellOrder: "most-constrained" });
  assert.deepEqual(m, { kind: "unknown", nodes: 300 });
});

test("placement search - hints and fixed placements are kept; conflicting ones are unsat at once", () => {
  const p0 = brendan("06x06");
  const sol = planted("06x06", p0);
  const hints = [7, 20, 35].map((cell) => ({ row: Math.floor(cell / 6), col: cell % 6, ...sol.cells[cell]! }));
  const p: Puzzle = { ...p0, hints };
  const r = searchPlacements(p, { fixed: [{ cell: 9, ...sol.cells[9]! }, { cell: 7, ...sol.cells[7]! }] });
  assert.equal(r.kind, "sat");
  if (r.kind === "sat") {
    assert.deepEqual(verifySolution(p, r.board), { ok: true });
    assert.deepEqual(r.board.cells[9], sol.cells[9]);
  }
  // The piece of hint (1,1) fixed again elsewhere.
  assert.deepEqual(searchPlacements(p, { fixed: [{ cell: 10, ...sol.cells[7]! }] }), { kind: "unsat", nodes: 0 });
  // A corner piece on an inner cell.
  assert.deepEqual(searchPlacements(p, { fixed: [{ cell: 14, ...sol.cells[0]! }] }), { kind: "unsat", nodes: 0 });
  // A wrong rotation next to a hint.
  const turned = { ...sol.cells[8]!, rot: (sol.cells[8]!.rot + 2) % 4 };
  assert.deepEqual(searchPlacements(p, { fixed: [{ cell: 8, ...turned }] }), { kind: "unsat", nodes: 0 });
});

test("placement search - bad options are named", () => {
  const p = brendan("04x04");
  assert.throws(() => searchPlacements(p, { nodeLimit: -1 }), InvalidOptionError);
  assert.throws(() => searchPlacements(p, { findAll: true, limit: 0 }), /limit/);
  assert.throws(() => searchPlacements(p, { cellOrder: "zigzag" as never }), /cellOrder/);
});
