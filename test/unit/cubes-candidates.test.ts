import { test } from "node:test";
import assert from "node:assert/strict";
import { rotateEdges, type Edges, type Piece, type Puzzle } from "../../core/puzzle.js";
import { buildTables, orientationOf, pieceRotation } from "../../core/cubes/candidates.js";
import { PlacementState } from "../../core/cubes/state.js";
import { searchPlacements } from "../../core/cubes/search.js";
import { splitCubes } from "../../core/cubes/split.js";
import { addRational, equalRational, sumWeights } from "../../core/cubes/weight.js";
import { verifySolution } from "../../core/verify.js";

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random puzzle cut from a random board (so it has a solution), pieces turned and shuffled. */
function randomPuzzle(rows: number, cols: number, colours: number, bounded: boolean, seed: number): Puzzle {
  const r = rng(seed);
  const colour = (): number => 1 + Math.floor(r() * colours);
  const h = Array.from({ length: rows }, () => Array.from({ length: cols + 1 }, colour));
  const v = Array.from({ length: rows + 1 }, () => Array.from({ length: cols }, colour));
  const pieces: Edges[] = [];
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const placed: Edges = [
        bounded && y === 0 ? 0 : v[y][x],
        bounded && x === cols - 1 ? 0 : h[y][x + 1],
        bounded && y === rows - 1 ? 0 : v[y + 1][x],
        bounded && x === 0 ? 0 : h[y][x],
      ];
      pieces.push(rotateEdges(placed, Math.floor(r() * 4)));
    }
  }
  for (let i = pieces.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [pieces[i], pieces[j]] = [pieces[j], pieces[i]];
  }
  return { rows, cols, pieces: pieces.map((edges, i): Piece => ({ id: i + 1, edges })), hints: [] };
}

/**
 * Independent count: plain recursion over cells, pieces and rotations, collecting the distinct boards
 * of placed colours (boards that differ only by swapping identical pieces coincide).
 */
function bruteForceCount(p: Puzzle): number {
  const bounded = p.pieces.some((x) => x.edges.includes(0));
  const n = p.rows * p.cols;
  const placed: Edges[] = [];
  const used = new Array<boolean>(p.pieces.length).fill(false);
  const found = new Set<string>();
  const go = (cell: number): void => {
    if (cell === n) { found.add(placed.map((e) => e.join(",")).join("|")); return; }
    const row = Math.floor(cell / p.cols), col = cell % p.cols;
    const rim = [row === 0, col === p.cols - 1, row === p.rows - 1, col === 0];
    for (let i = 0; i < p.pieces.length; i++) {
      if (used[i]) continue;
      for (let rot = 0; rot < 4; rot++) {
        const e = rotateEdges(p.pieces[i].edges, rot);
        if (bounded && !rim.every((onRim, d) => onRim === (e[d] === 0))) continue;
        if (row > 0 && placed[cell - p.cols][2] !== e[0]) continue;
        if (col > 0 && placed[cell - 1][1] !== e[3]) continue;
        used[i] = true;
        placed[cell] = e;
        go(cell + 1);
        used[i] = false;
      }
    }
  };
  go(0);
  return found.size;
}

test("candidate tables - symmetric pieces give each placed tuple once, identical pieces share a class", () => {
  const pieces: Piece[] = [
    { id: 1, edges: [1, 1, 1, 1] }, // 4-fold symmetric: one orientation
    { id: 2, edges: [1, 2, 1, 2] }, // 2-fold: two orientations
    { id: 3, edges: [2, 1, 2, 1] }, // identical to piece 2, listed turned
    { id: 4, edges: [1, 2, 3, 4] }, // four orientations
  ];
  const t = buildTables({ rows: 2, cols: 2, pieces, hints: [] });
  assert.equal(t.classCount, 3);
  assert.equal(t.orientationCount, 1 + 2 + 4);
  assert.equal(t.classOfPiece[1], t.classOfPiece[2]);
  for (let piece = 0; piece < 4; piece++) {
    for (let rot = 0; rot < 4; rot++) {
      const o = orientationOf(t, piece, rot);
      // The orientation's rotation for this piece gives the same placed colours.
      assert.deepEqual(rotateEdges(pieces[piece].edges, pieceRotation(t, piece, o)), rotateEdges(pieces[piece].edges, rot));
    }
  }
  const s = new PlacementState(t);
  const out = new Int32Array(16);
  assert.equal(s.collect(0, out, 0), 7);
  // Placing one copy of the identical pair keeps the class available, the second one uses it up.
  s.place(0, orientationOf(t, 1, 0));
  assert.equal(s.avail[t.classOfPiece[1]], 1);
  const pr = new Int32Array(4);
  s.assignPieces([0, 3], [orientationOf(t, 1, 0), orientationOf(t, 2, 0)], 2, pr);
  assert.deepEqual([pr[0], pr[2]], [1, 2], "lowest-index unused copy first");
  assert.deepEqual(rotateEdges(pieces[pr[2]].edges, pr[3]), rotateEdges(pieces[2].edges, 0));
});

test("candidate tables - bounded lookups keep grey exactly on the rim", () => {
  const p = randomPuzzle(4, 5, 3, true, 7);
  const t = buildTables(p);
  const s = new PlacementState(t);
  const out = new Int32Array(t.orientationCount);
  for (let cell = 0; cell < 20; cell++) {
    const n = s.collect(cell, out, 0);
    const row = Math.floor(cell / 5), col = cell % 5;
    const rim = [row === 0, col === 4, row === 3, col === 0];
    for (let i = 0; i < n; i++) {
      const k = t.oriClass[out[i]];
      const piece = t.memberList[t.memberStart[k]];
      const e = rotateEdges(p.pieces[piece].edges, pieceRotation(t, piece, out[i]));
      assert.deepEqual(rim, e.map((c) => c === 0), `cell ${cell}`);
    }
    assert.equal(n, s.count(cell, 1 << 30));
  }
});

test("placement state - place and unplace restore every counter", () => {
  const p = randomPuzzle(4, 4, 3, true, 11);
  const t = buildTables(p);
  const s = new PlacementState(t);
  const snapshot = (): string => JSON.stringify([s.board, s.need, s.avail, s.availByMask, s.placedNbr, s.freeCount, s.balance].map((a) => Array.from(a)));
  const before = snapshot();
  const r = searchPlacements(p);
  assert.equal(r.kind, "sat");
  const cells: number[] = [];
  if (r.kind === "sat") {
    for (let cell = 0; cell < 16; cell++) {
      const c = r.board.cells[cell]!;
      s.place(cell, orientationOf(t, c.piece, c.rot));
      cells.push(cell);
      assert.ok(s.check(cell, "full"), "a prefix of a solution passes full pruning");
    }
  }
  for (let d = 0; d < 4; d++) assert.ok(s.balance.every((b) => b >= 0));
  while (cells.length > 0) s.unplace(cells.pop()!);
  assert.equal(snapshot(), before);
});

test("placement state - full pruning refutes a piece that fits nowhere", () => {
  // Unbounded 2x2: A top-left and D bottom-right leave cells 1 and 2, both of which C fits; B fits neither.
  const pieces: Piece[] = [
    { id: 1, edges: [1, 1, 1, 1] }, // A
    { id: 2, edges: [3, 3, 3, 3] }, // B
    { id: 3, edges: [1, 2, 2, 1] }, // C
    { id: 4, edges: [2, 2, 2, 2] }, // D
  ];
  const t = buildTables({ rows: 2, cols: 2, pieces, hints: [] });
  const s = new PlacementState(t);
  s.place(0, orientationOf(t, 0, 0));
  assert.ok(s.check(0, "full"), "cell 3 is still free, so B fits there");
  s.place(3, orientationOf(t, 3, 0));
  assert.ok(s.check(3, "neighbours"));
  assert.ok(s.checkCells());
  assert.equal(s.checkPieces(), false);
  assert.equal(s.check(3, "full"), false);
  assert.equal(searchPlacements({ rows: 2, cols: 2, pieces, hints: [] }, { cellOrder: "most-constrained", pruning: "full" }).kind, "unsat");
});

test("placement state - full pruning refutes when a colour's open sides outnumber its unused half-edges", () => {
  // Unbounded 2x2: A leaves colour 5 facing an empty cell and no unused piece has colour 5.
  const pieces: Piece[] = [
    { id: 1, edges: [1, 5, 1, 5] },
    { id: 2, edges: [1, 1, 1, 1] },
    { id: 3, edges: [1, 1, 1, 1] },
    { id: 4, edges: [1, 1, 1, 1] },
  ];
  const t = buildTables({ rows: 2, cols: 2, pieces, hints: [] });
  const s = new PlacementState(t);
  s.place(0, orientationOf(t, 0, 0));
  assert.equal(s.balance[t.denseColour.get(5)!], -1);
  assert.equal(s.check(0, "full"), false);
  assert.ok(s.check(0, "none"));
});

test("placement search and split - solution counts match brute force on random puzzles with duplicates", () => {
  const cases: Array<[number, number, number, boolean, number]> = [
    [2, 2, 2, false, 1], [2, 3, 2, false, 2], [3, 3, 2, true, 3], [3, 3, 1, true, 4], [3, 4, 2, true, 5],
    [2, 3, 3, false, 6], [4, 4, 2, true, 9], [4, 4, 3, true, 10],
  ];
  for (const [rows, cols, colours, bounded, seed] of cases) {
    const p = randomPuzzle(rows, cols, colours, bounded, seed);
    const expected = bruteForceCount(p);
    const label = `${rows}x${cols} c${colours} ${bounded ? "bounded" : "unbounded"} seed ${seed}`;
    assert.ok(expected > 0, label);
    for (const cellOrder of ["row-major", "most-constrained", "spiral", "frame-first"] as const) {
      for (const pruning of ["none", "neighbours", "full"] as const) {
        const r = searchPlacements(p, { findAll: true, cellOrder, pruning });
        assert.equal(r.kind, "sat", label);
        if (r.kind !== "sat") continue;
        assert.equal(r.solutions, expected, `${label} ${cellOrder} ${pruning}`);
        assert.ok(r.complete);
        assert.deepEqual(verifySolution(p, r.board), { ok: true });
        const capped = searchPlacements(p, { findAll: true, limit: 1, cellOrder, pruning });
        assert.ok(capped.kind === "sat" && capped.solutions === 1 && (expected === 1 || !capped.complete));
      }
    }
    // A split to the end meets every solution exactly once.
    const split = splitCubes(p, { targetCubes: Number.POSITIVE_INFINITY, recordRefuted: true });
    assert.equal(split.solutions.length, expected, label);
    const total = [split.cubes, split.refuted.branches!, split.solutions]
      .map((l) => sumWeights(l.map((c) => c.branching)))
      .reduce(addRational, { num: 0n, den: 1n });
    assert.ok(equalRational(total, { num: 1n, den: 1n }), label);
  }
});
