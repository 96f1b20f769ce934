/**
 * The triangle cube splitter (core/triangle/cubes.ts): cubes, refuted branches and boards partition the space with
 * weights that sum exactly to what was split, checked against the independent brute-force boards
 * (test/helpers/brute-force.ts): every board lies in exactly one cube or split board, and the cubes' own counts (the
 * placement search with the cube fixed) add up to the whole count.
 */
import { test } from "node:test";
import assert from "node:assert/strict";

import { equalRational, sumWeights, weightOf } from "../../core/cubes/weight.js";
import type { Cube } from "../../core/cubes/types.js";
import { resplitTriangleCube, splitTriangleCubes, triangleWithCube } from "../../core/triangle/cubes.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import { placedLabel, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { countTriangle } from "../../core/triangle/search.js";
import { verifyTriangleBoard } from "../../core/triangle/verify.js";
import { bruteBoardsTriangle } from "../helpers/brute-force.js";

function shows(puzzle: TrianglePuzzle, board: number[][], cube: Cube): boolean {
  return cube.placements.every((p) => [0, 1, 2].every((d) => board[p.cell][d] === placedLabel(puzzle.pieces[p.piece].edges, p.rot, d)));
}

function cases(): TrianglePuzzle[] {
  const out: TrianglePuzzle[] = [];
  for (let seed = 1; seed <= 12; seed++) {
    const rotate = seed % 4 === 0;
    const frame = seed % 3 === 0 ? 0 : null;
    const side = rotate ? 2 : 3;
    out.push(generateTriangle({ side, labels: 1 + (seed % 2), seed, rotate, frame }).puzzle);
  }
  return out;
}

test("triangle cubes - weights of cubes, boards and refuted branches sum exactly to 1; every board lies in exactly one part", () => {
  let checked = 0;
  for (const puzzle of cases()) {
    const boards = bruteBoardsTriangle(puzzle);
    for (const target of [1, 4, 16, 200]) {
      const r = splitTriangleCubes(puzzle, { targetCubes: target });
      const parts: Cube[] = [...r.cubes, ...r.solutions];
      for (const c of parts) assert.ok(Math.abs(c.weight - weightOf(c.branching)) < 1e-15);
      const exact = sumWeights(parts.map((c) => c.branching));
      // The refuted weight is kept as a double: what the parts leave, to rounding.
      assert.ok(Math.abs(1 - Number(exact.num) / Number(exact.den) - r.refuted.weight) < 1e-12, `${puzzle.name} target ${target}`);
      if (r.refuted.count === 0) assert.ok(equalRational(exact, { num: 1n, den: 1n }), `${puzzle.name}: no refuted branch, the parts must sum to 1`);
      for (const b of boards) assert.equal(parts.filter((c) => shows(puzzle, b, c)).length, 1, `${puzzle.name}: a board in ${parts.filter((c) => shows(puzzle, b, c)).length} parts`);
      for (const s of r.solutions) assert.deepEqual(verifyTriangleBoard(puzzle, s.board), { ok: true });
      // The cubes' own counts (the search with the cube fixed) and the split's boards add up to the brute force.
      let sum = r.solutions.length;
      for (const c of r.cubes) {
        const fixed = triangleWithCube(puzzle, c.placements);
        assert.ok(fixed, "a cube of the splitter holds together");
        sum += countTriangle(fixed).count;
      }
      assert.equal(sum, boards.length, `${puzzle.name} target ${target}`);
      checked++;
    }
  }
  assert.ok(checked >= 48);
});

test("triangle cubes - re-split children sum exactly to their cube; splitting to the end leaves only the boards", () => {
  const { puzzle } = generateTriangle({ side: 4, labels: 4, seed: 4 });
  const want = countTriangle(puzzle).count;
  assert.ok(want > 100, `${want}`);
  const first = splitTriangleCubes(puzzle, { targetCubes: 8 });
  let open = [...first.cubes];
  let found = first.solutions.length;
  let rounds = 0;
  while (open.length > 0) {
    const next: Cube[] = [];
    for (const cube of open) {
      const r = resplitTriangleCube(puzzle, cube, { depth: 1 + (rounds % 2) });
      for (const c of [...r.cubes, ...r.solutions]) assert.deepEqual(c.placements.slice(0, cube.placements.length), cube.placements);
      const children = sumWeights([...r.cubes, ...r.solutions].map((c) => c.branching));
      const left = weightOf(cube.branching) - Number(children.num) / Number(children.den);
      assert.ok(Math.abs(left - r.refuted.weight) < 1e-12, `cube weight ${weightOf(cube.branching)}, children leave ${left}, refuted ${r.refuted.weight}`);
      found += r.solutions.length;
      next.push(...r.cubes);
    }
    open = next;
    rounds++;
  }
  assert.equal(found, want);
  const whole = splitTriangleCubes(puzzle, { targetCubes: Number.POSITIVE_INFINITY });
  assert.deepEqual([whole.cubes.length, whole.solutions.length], [0, want]);
});

test("triangle cubes - a cube whose placements do not hold together is refused; hints are kept", () => {
  const { puzzle, solution } = generateTriangle({ side: 3, labels: 2, seed: 9 });
  const hinted = { ...puzzle, hints: [{ cell: 0, piece: solution.cells[0]!.piece, rot: 0 }] };
  const r = splitTriangleCubes(hinted, { targetCubes: 50 });
  for (const c of [...r.cubes, ...r.solutions]) assert.ok(!c.placements.some((p) => p.cell === 0 || p.piece === hinted.hints[0].piece));
  assert.equal(triangleWithCube(puzzle, [{ cell: 0, piece: 0, rot: 0 }, { cell: 0, piece: 1, rot: 0 }]), null);
  assert.equal(triangleWithCube(puzzle, [{ cell: 9, piece: 0, rot: 0 }]), null);
  assert.equal(triangleWithCube(puzzle, [{ cell: 0, piece: 0, rot: 1 }]), null, "rotation without `rotate`");
  assert.throws(() => splitTriangleCubes(puzzle, { targetCubes: 4, base: { placements: [{ cell: 0, piece: 0, rot: 0 }, { cell: 1, piece: 0, rot: 0 }], branching: [2, 2], weight: 0.25 } }), /base/);
});

test("triangle search - maxBoards hands over that many boards and counts the rest", () => {
  const { puzzle } = generateTriangle({ side: 4, labels: 2, seed: 3 });
  const full = countTriangle(puzzle).count;
  for (const max of [0, 1, 7, full + 5]) {
    let handed = 0;
    const r = countTriangle(puzzle, { maxBoards: max, onBoard: (b) => { handed++; assert.deepEqual(verifyTriangleBoard(puzzle, b), { ok: true }); } });
    assert.deepEqual([r.count, r.complete, handed], [full, true, Math.min(max, full)]);
  }
});
