/**
 * Counting cross-checks (issue 12): on a few hundred random tiny boards, square and triangle, the engine path (the
 * native C engine's --count for squares, the triangle placement search) and the SAT path (real Kissat, blocking
 * clauses on the placement variables, one call per solution, every model verified) give the same count, and on the
 * boards small enough for it so does the independent brute-force counter (test/helpers/brute-force.ts).
 * Boards with more than CAP solutions are left out of the SAT path (it costs one Kissat run per solution).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generatePuzzle } from "../../core/generate.js";
import type { Puzzle } from "../../core/puzzle.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { countTriangle } from "../../core/triangle/search.js";
import { countBySat, squareBlockingProblem, triangleBlockingProblem } from "../../cli/count-sat.js";
import { countLocal } from "../../cli/solve-all.js";
import { bruteCountSquare, bruteCountTriangle } from "../helpers/brute-force.js";

const CAP = 12;

/** Runs `fn` over `items`, two at a time (one solver process each). */
async function pool<T>(items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all([lane(), lane()]);
}

function squareBoards(): Puzzle[] {
  const out: Puzzle[] = [];
  for (let seed = 1; out.length < 160 && seed < 2000; seed++) {
    const shape = seed % 4;
    const { puzzle } = shape === 0
      ? generatePuzzle({ rows: 2, cols: 2, centerColors: 3 + (seed % 3), unbounded: true, seed })
      : generatePuzzle({ rows: shape === 1 ? 2 : 3, cols: 3, borderColors: 2 + (seed % 2), centerColors: 2 + (seed % 3), seed });
    out.push(puzzle);
  }
  return out;
}

function triangleBoards(): TrianglePuzzle[] {
  const out: TrianglePuzzle[] = [];
  for (let seed = 1; out.length < 160; seed++) {
    const rotate = seed % 3 === 0;
    const side = rotate ? 2 + (seed % 2) : 2 + (seed % 3);
    out.push(generateTriangle({ side, labels: side + (seed % 3), seed, rotate, frame: seed % 2 === 0 ? 0 : null }).puzzle);
  }
  return out;
}

test("counting cross-check - squares: the C engine, Kissat with blocking clauses and the brute force agree", async () => {
  let compared = 0, brute = 0;
  await pool(squareBoards(), async (puzzle) => {
    const engine = await countLocal(puzzle, { threads: 1 });
    assert.ok(engine.complete, puzzle.name);
    // Unbounded boards try every piece in every rotation everywhere: only 2x2 is quick enough for the brute force.
    if (puzzle.rows * puzzle.cols <= 6 || puzzle.pieces.some((p) => p.edges.includes(0))) {
      assert.equal(bruteCountSquare(puzzle), engine.count, `${puzzle.name}: brute force`);
      brute++;
    }
    if (engine.count > CAP) return;
    const sat = await countBySat(squareBlockingProblem(puzzle));
    assert.deepEqual([sat.count, sat.complete, sat.calls], [engine.count, true, engine.count + 1], `${puzzle.name}: SAT path`);
    compared++;
  });
  assert.ok(compared >= 100, `${compared} boards compared on the SAT path`);
  assert.ok(brute >= 150, `${brute} boards brute-forced`);
});

test("counting cross-check - triangles: the placement search, Kissat with blocking clauses and the brute force agree", async () => {
  let compared = 0, brute = 0;
  await pool(triangleBoards(), async (puzzle) => {
    const engine = countTriangle(puzzle);
    assert.ok(engine.complete, puzzle.name);
    if (puzzle.side <= 2 || (puzzle.side === 3 && !puzzle.rotate)) {
      assert.equal(bruteCountTriangle(puzzle), engine.count, `${puzzle.name}: brute force`);
      brute++;
    }
    if (engine.count > CAP) return;
    const sat = await countBySat(triangleBlockingProblem(puzzle));
    assert.deepEqual([sat.count, sat.complete, sat.calls], [engine.count, true, engine.count + 1], `${puzzle.name}: SAT path`);
    compared++;
  });
  assert.ok(compared >= 100, `${compared} boards compared on the SAT path`);
  assert.ok(brute >= 75, `${brute} boards brute-forced`);
});
