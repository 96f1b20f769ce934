/**
 * The engine's two inner loops for static orders (engine/bits.c, the default, and the bucket scan of
 * engine/search.c, `--loop scan`) walk the same tree in the same order: without a seed they must place the same
 * pieces in the same order (equal node counts, the same first board, equal counts, in every part of a partition).
 * With a seed the bit-set loop permutes slots instead of shuffling buckets, so only the complete counts and the
 * verdicts must agree. Boards cover what takes the bit-set loop's other paths: identical pieces (copies), classes
 * with two orientations in one bucket, hints (a cell with four known sides is compared, not keyed), unbounded
 * boards (one kind), and boards with more than 64 pieces of a kind (several words per mask).
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parsePuzzle } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Puzzle } from "../../core/puzzle.js";
import { createRandom } from "../../core/random.js";
import { verifySolution } from "../../core/verify.js";
import { engineProblem, runEngine, type EngineOptions, type EngineOrder, type EngineOutcome } from "../../worker/engine/index.js";

const ORDERS: readonly EngineOrder[] = ["short", "row", "col", "spiral", "border"];
const SIZES = [[2, 2], [2, 3], [3, 3], [3, 4], [4, 3], [4, 4], [3, 5], [4, 5]] as const;

function boards(n: number): Puzzle[] {
  const rng = createRandom("engine-loops");
  const out: Puzzle[] = [];
  for (let i = 0; i < n; i++) {
    const unbounded = i % 5 === 4;
    const [rows, cols] = unbounded ? [2 + rng.nextInt(2), 2 + rng.nextInt(2)] : SIZES[i % SIZES.length];
    const g = generatePuzzle({ rows, cols, unbounded, borderColors: unbounded ? undefined : 1 + rng.nextInt(2), centerColors: 2 + rng.nextInt(3), seed: 7000 + i });
    let puzzle = g.puzzle;
    if (i % 3 === 1) {
      const cell = rng.nextInt(rows * cols);
      puzzle = { ...puzzle, hints: [{ row: Math.floor(cell / cols), col: cell % cols, ...g.solution.cells[cell]! }] };
    }
    out.push(puzzle);
  }
  return out;
}

const NODE_CAP = 5_000_000;

async function both(p: Puzzle, o: EngineOptions, cap = NODE_CAP): Promise<[EngineOutcome, EngineOutcome]> {
  const text = engineProblem(p, []);
  assert.ok(text !== null);
  const shape = { rows: p.rows, cols: p.cols, pieces: p.pieces.length };
  const opts = { ...o, nodeLimit: cap };
  return [await runEngine(text, shape, { ...opts, loop: "scan" }), await runEngine(text, shape, { ...opts, loop: "bits" })];
}

const solutions = (r: EngineOutcome): number => r.stats.solutions;

function assertSameWalk(p: Puzzle, what: string, scan: EngineOutcome, bits: EngineOutcome): void {
  const at = `${p.name} ${what}`;
  assert.equal(bits.kind, scan.kind, `${at}: verdict`);
  assert.equal(bits.stats.nodes, scan.stats.nodes, `${at}: placements`);
  assert.equal(solutions(bits), solutions(scan), `${at}: solutions`);
  if (scan.kind === "sat" && bits.kind === "sat") {
    assert.deepEqual(bits.board, scan.board, `${at}: the first board`);
    const cells = new Array(p.rows * p.cols).fill(null);
    for (const x of bits.board) cells[x.cell] = { piece: x.piece, rot: x.rot };
    assert.deepEqual(verifySolution(p, { rows: p.rows, cols: p.cols, cells }), { ok: true }, `${at}: verified`);
  }
}

test("engine loops - bit sets and the bucket scan place the same pieces in the same order, count alike, split alike", async () => {
  let compared = 0;
  for (const [i, p] of boards(48).entries()) {
    const order = ORDERS[i % ORDERS.length];
    const first = await both(p, { order });
    assertSameWalk(p, `${order} first`, ...first);
    const count = await both(p, { order, count: true });
    if (count[0].stats.nodes >= NODE_CAP) continue; // too many solutions to count here: the first-board walk was compared
    assertSameWalk(p, `${order} count`, ...count);
    for (const k of [0, 1, 2]) assertSameWalk(p, `${order} part ${k}/3`, ...(await both(p, { order, count: true, part: { k, n: 3 } })));
    if (p.hints.length === 0) assertSameWalk(p, `${order} symmetry`, ...(await both(p, { order, symmetry: true })));
    const seeded = await both(p, { order, count: true, seed: 11 });
    assert.equal(solutions(seeded[1]), solutions(seeded[0]), `${p.name} seeded count`);
    const restarts = await both(p, { order, seed: 5, restartBase: 3 });
    assert.equal(restarts[1].kind, restarts[0].kind, `${p.name} restarts: verdict`);
    compared++;
  }
  assert.ok(compared >= 30, `only ${compared} boards were counted to the end`);
});

test("engine loops - the fixtures' near-unique boards: the same walk to the first board and through the whole tree", async () => {
  for (const rel of ["brendan/pieces_05x05.txt", "brendan/pieces_06x06.txt", "heule2008/em_7_4_9.txt"]) {
    let p: Puzzle;
    try {
      p = parsePuzzle(readFileSync(new URL(`../fixtures/${rel}`, import.meta.url), "utf8"), rel);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    for (const order of ["short", "spiral"] as const) {
      assertSameWalk(p, `${order} first`, ...(await both(p, { order })));
      assertSameWalk(p, `${order} symmetry`, ...(await both(p, { order, symmetry: true })));
    }
  }
});

test("engine loops - more than 64 free pieces of a kind (two to four words per mask): the same walk", async () => {
  for (const [n, colours, words] of [[9, 16, 2], [12, 24, 3], [16, 30, 4]] as const) {
    const g = generatePuzzle({ rows: n, cols: n, unbounded: true, centerColors: colours, seed: 3 });
    // the top row given: the scan starts keyed, and n*n - n free pieces of the one kind need `words` words
    const hints = Array.from({ length: n }, (_, col) => ({ row: 0, col, ...g.solution.cells[col]! }));
    const p = { ...g.puzzle, name: `${g.puzzle.name}-w${words}`, hints };
    assert.equal(Math.ceil((n * n - n) / 64), words);
    const [scan, bits] = await both(p, { order: "row" }, 30_000_000);
    assert.equal(scan.kind, "sat", `${p.name}: found within the cap`);
    assertSameWalk(p, "row first", scan, bits);
  }
});
