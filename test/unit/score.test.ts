/**
 * core/score.ts: the checker and scorer of best boards (partial boards and boards with mismatches).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { generatePuzzle } from "../../core/generate.js";
import type { Placement } from "../../core/puzzle.js";
import { acceptScored, betterScored } from "../../core/score.js";
import { innerEdgeCount } from "../../core/verify.js";

const { puzzle, solution } = generatePuzzle({ rows: 4, cols: 5, borderColors: 2, centerColors: 3, seed: 5 });
const placements: Placement[] = solution.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: c!.rot }));

test("a solution scores every inner edge; a partial one only the edges between placed cells", () => {
  const full = acceptScored(puzzle, placements);
  assert.ok(full.ok);
  assert.equal(full.scored.score, innerEdgeCount(puzzle));
  assert.deepEqual(full.scored.mismatches, []);
  const firstRow = acceptScored(puzzle, placements.slice(0, 5));
  assert.ok(firstRow.ok);
  assert.equal(firstRow.scored.score, 4);
  assert.equal(firstRow.scored.placed, 5);
});

test("swapping two inner pieces costs their mismatches, and the mismatches are named", () => {
  const inner = placements.filter((p) => [6, 8].includes(p.cell));
  const swapped = placements.map((p) => p.cell === 6 ? { ...inner[1], cell: 6 } : p.cell === 8 ? { ...inner[0], cell: 8 } : p);
  const a = acceptScored(puzzle, swapped);
  assert.ok(a.ok);
  assert.equal(a.scored.score, innerEdgeCount(puzzle) - a.scored.mismatches.length);
  for (const [x, y] of a.scored.mismatches) assert.ok(y === x + 1 || y === x + 5, `${x}-${y} is an east or south join`);
});

test("refused: a piece twice, a cell twice, a cell off the board, grey inside, a broken hint", () => {
  const twice = placements.map((p) => p.cell === 7 ? { ...p, piece: placements[6].piece } : p);
  assert.match(refusal(acceptScored(puzzle, twice)), /piece/);
  assert.match(refusal(acceptScored(puzzle, [...placements.slice(0, 3), placements[2]])), /twice/);
  assert.match(refusal(acceptScored(puzzle, [{ cell: 20, piece: 0, rot: 0 }])), /off the board/);
  const cornerInside = placements.map((p) => p.cell === 6 ? { ...placements[0], cell: 6 } : p.cell === 0 ? { ...placements[6], cell: 0 } : p);
  assert.match(refusal(acceptScored(puzzle, cornerInside)), /grey|rim/);
  const hinted = { ...puzzle, hints: [{ row: 1, col: 1, piece: placements[6].piece, rot: placements[6].rot }] };
  const moved = placements.map((p) => p.cell === 6 ? { ...p, rot: (p.rot + 1) & 3 } : p);
  assert.match(refusal(acceptScored(hinted, moved)), /hint/);
});

test("better: a higher score, then more cells", () => {
  const a = acceptScored(puzzle, placements.slice(0, 5));
  const b = acceptScored(puzzle, placements.slice(0, 6));
  assert.ok(a.ok && b.ok);
  assert.ok(betterScored(null, a.scored));
  assert.ok(betterScored(a.scored, b.scored) === (b.scored.score > a.scored.score || b.scored.placed > a.scored.placed));
  assert.ok(!betterScored(b.scored, a.scored));
});

function refusal(a: ReturnType<typeof acceptScored>): string {
  assert.ok(!a.ok, "refused");
  return a.reason;
}
