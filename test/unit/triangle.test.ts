import { test } from "node:test";
import assert from "node:assert/strict";

import { InvalidPuzzleError } from "../../core/errors.js";
import { generateTriangle, shuffleTriangle } from "../../core/triangle/generate.js";
import { isTriangleText, parseTriangle, readTriangleBoardJSON, triangleBoardToJSON, writeTriangle } from "../../core/triangle/format.js";
import { cellAt, innerJoinCount, placedLabel, triangleNeighbour, type TriangleBoard, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { countTriangle } from "../../core/triangle/search.js";
import { verifyTriangleBoard } from "../../core/triangle/verify.js";
import { bruteCountTriangle } from "../helpers/brute-force.js";

function rejects(text: string, pattern: RegExp): void {
  assert.throws(() => parseTriangle(text, "t.txt"), (err: unknown) => err instanceof InvalidPuzzleError && pattern.test(err.message), pattern.source);
}

const PIECES_2 = "1 1 2 3\n2 1 2 3\n3 4 2 3\n4 1 5 3\n";

test("triangle geometry - side 6 has 36 cells, 45 inner joins and 18 outer edges; joins are symmetric", () => {
  const side = 6;
  let joins = 0, outer = 0;
  for (let cell = 0; cell < 36; cell++) {
    for (let d = 0; d < 3; d++) {
      const nb = triangleNeighbour(side, cell, d);
      if (nb < 0) outer++;
      else {
        joins++;
        assert.equal(triangleNeighbour(side, nb, d), cell, `join of ${cell} in direction ${d}`);
      }
    }
  }
  assert.equal(joins / 2, 45);
  assert.equal(innerJoinCount(6), 45);
  assert.equal(outer, 18);
});

test("triangle format - a puzzle reads back equal from its canonical text, hints and frame included", () => {
  const { puzzle, solution } = generateTriangle({ side: 4, labels: 3, seed: 5, rotate: true, frame: 0 });
  // A hint is legal only where it fits the frame: one of the planted solution's placements.
  const at = solution.cells[cellAt(2, 3)]!;
  const valid: TrianglePuzzle = { ...puzzle, hints: [{ cell: cellAt(2, 3), piece: at.piece, rot: at.rot }] };
  const text = writeTriangle(valid);
  assert.ok(isTriangleText(text));
  const back = parseTriangle(text, "x.txt");
  assert.deepEqual({ ...back, hints: back.hints.map(({ cell, piece, rot }) => ({ cell, piece, rot })) }, valid);
});

test("triangle format - bad input is rejected with file:line and the problem", () => {
  rejects("", /^t\.txt: empty file/);
  rejects("6 6\n", /^t\.txt:1: expected the header `triangle N`/);
  rejects("triangle 0\n", /^t\.txt:1: side 0 is outside 1\.\.32/);
  rejects("triangle 2\n1 1 2\n", /^t\.txt:2: expected a piece `ID H R F` \(4 fields\), got 3 fields/);
  rejects("triangle 2\n1 1 2 x\n", /^t\.txt:2: F label "x" is not an integer/);
  rejects("triangle 2\n1 1 2 3\n1 1 2 3\n", /^t\.txt:3: duplicate piece id 1 \(first on line 2\)/);
  rejects("triangle 2\n1 1 2 3\n", /^t\.txt: a triangle of side 2 needs 4 pieces, found 1/);
  rejects(`triangle 2\n${PIECES_2}hint 1 3 1\n`, /^t\.txt:6: hint position 3 is outside 0\.\.2/);
  rejects(`triangle 2\n${PIECES_2}hint 0 0 9\n`, /^t\.txt:6: hint names unknown piece 9/);
  rejects(`triangle 2\n${PIECES_2}hint 0 0 1 1\n`, /^t\.txt:6: hint rotation must be 0/);
  rejects(`triangle 2\n${PIECES_2}hint 0 0 1\nhint 0 0 2\n`, /^t\.txt:7: a second hint on \(row 0, pos 0\)/);
  rejects(`triangle 2\n${PIECES_2}hint 0 0 1\nhint 1 0 1\n`, /^t\.txt:7: piece 1 is hinted twice/);
  rejects(`triangle 2\nframe 1\n${PIECES_2}hint 0 0 1\n`, /^t\.txt:7: hint puts label 2 on the outer R edge of \(row 0, pos 0\), the frame needs 1/);
  // (0,0) meets (1,1) across H: piece 1 shows H 1, piece 3 shows H 4.
  rejects(`triangle 2\n${PIECES_2}hint 0 0 1\nhint 1 1 3\n`, /^t\.txt:7: hint on \(row 1, pos 1\) does not match the hint on \(row 0, pos 0\) \(line 6\) across their H edge/);
  rejects(`triangle 2\n1 1 2 3\nrotate\n2 1 2 3\n3 4 2 3\n4 1 5 3\n`, /^t\.txt:3: `rotate` must come before the pieces/);
});

test("triangle verifier - the planted solution verifies; a swapped, rotated, duplicated or framed-wrong board does not", () => {
  const { puzzle, solution } = generateTriangle({ side: 5, labels: 4, seed: 11, frame: 0 });
  assert.deepEqual(verifyTriangleBoard(puzzle, solution), { ok: true });
  const cells = [...solution.cells];
  const swap = (a: number, b: number): TriangleBoard => {
    const c = [...cells];
    [c[a], c[b]] = [c[b], c[a]];
    return { side: 5, cells: c };
  };
  const swapped = verifyTriangleBoard(puzzle, swap(cellAt(2, 1), cellAt(3, 3)));
  assert.ok(!swapped.ok && swapped.violations.some((v) => v.kind === "mismatch"));
  const rotated = verifyTriangleBoard(puzzle, { side: 5, cells: cells.map((c, i) => (i === 7 ? { ...c!, rot: 1 } : c)) });
  assert.ok(!rotated.ok && rotated.violations[0].kind === "rotation");
  const dup = verifyTriangleBoard(puzzle, { side: 5, cells: cells.map((c, i) => (i === 7 ? cells[8] : c)) });
  assert.ok(!dup.ok && dup.violations.some((v) => v.kind === "duplicate") && dup.violations.some((v) => v.kind === "missing"));
  // An interior piece on the apex shows an inner label on the outer edges.
  const framed = verifyTriangleBoard(puzzle, swap(0, cellAt(2, 2)));
  assert.ok(!framed.ok && framed.violations.some((v) => v.kind === "frame"));
  const json = triangleBoardToJSON(solution, puzzle);
  assert.deepEqual(readTriangleBoardJSON(JSON.stringify({ board: json }), puzzle, "b.json"), solution);
  assert.throws(() => readTriangleBoardJSON("[[1]]", puzzle, "b.json"), /b\.json: expected a board of 5 rows/);
});

test("triangle search - counts equal the brute-force counter on random tiny boards, with and without rotation and frame", () => {
  let checked = 0;
  for (let seed = 1; seed <= 40; seed++) {
    for (const rotate of [false, true]) {
      for (const frame of [null, 0]) {
        // Side 3 with rotation leaves 9! * 3^9 tries to the brute force: too slow for a unit test.
        const side = rotate ? 2 : 2 + (seed % 2);
        const { puzzle } = generateTriangle({ side, labels: 1 + (seed % 3) + (side === 3 ? 1 : 0), seed, rotate, frame });
        const want = bruteCountTriangle(puzzle);
        assert.equal(countTriangle(puzzle).count, want, puzzle.name);
        checked++;
      }
    }
  }
  assert.ok(checked >= 120);
});

test("triangle search - every board listed verifies, none twice; parts add up; limit and stop give lower bounds", () => {
  const { puzzle } = generateTriangle({ side: 4, labels: 2, seed: 3 });
  const full = countTriangle(puzzle);
  assert.ok(full.complete && full.count > 50, `${full.count}`);
  const seen = new Set<string>();
  const listed = countTriangle(puzzle, {
    onBoard: (b) => {
      assert.deepEqual(verifyTriangleBoard(puzzle, b), { ok: true });
      seen.add(JSON.stringify(b.cells.map((c) => puzzle.pieces[c!.piece].edges.join(",") + "/" + c!.rot)));
    },
  });
  assert.equal(listed.count, full.count);
  assert.equal(seen.size, full.count);
  for (const n of [2, 3, 7]) {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += countTriangle(puzzle, { part: { k, n } }).count;
    assert.equal(sum, full.count, `${n} parts`);
  }
  assert.deepEqual(countTriangle(puzzle, { limit: 5 }), { ...countTriangle(puzzle, { limit: 5 }), count: 5, complete: false, reason: "limit" });
  const stopped = countTriangle(generateTriangle({ side: 6, labels: 3, seed: 1 }).puzzle, { shouldStop: () => true });
  assert.equal(stopped.complete, false);
  assert.equal(stopped.reason, "stopped");
});

test("triangle search - hints cut the count to the boards that show them; a fully hinted board counts once", () => {
  const { puzzle, solution } = generateTriangle({ side: 3, labels: 2, seed: 9 });
  const hints = [cellAt(0, 0), cellAt(2, 2)].map((cell) => ({ cell, piece: solution.cells[cell]!.piece, rot: 0 }));
  const hinted = { ...puzzle, hints };
  const got = countTriangle(hinted).count;
  assert.equal(got, bruteCountTriangle(hinted));
  assert.ok(got >= 1 && got <= countTriangle(puzzle).count);
  const all = { ...puzzle, hints: solution.cells.map((c, cell) => ({ cell, piece: c!.piece, rot: 0 })) };
  const boards: TriangleBoard[] = [];
  assert.equal(countTriangle(all, { onBoard: (b) => boards.push(b) }).count, 1);
  assert.deepEqual(verifyTriangleBoard(all, boards[0]), { ok: true });
});

test("triangle shuffle - pieces in a new order (turned only with rotation), hints showing the same labels, the same count", () => {
  for (const rotate of [false, true]) {
    const { puzzle, solution } = generateTriangle({ side: 3, labels: 2, seed: 4, rotate });
    const cell = cellAt(1, 1);
    const hinted: TrianglePuzzle = { ...puzzle, hints: [{ cell, ...solution.cells[cell]! }] };
    const shuffled = shuffleTriangle(hinted, 7);
    assert.deepEqual(shuffled.pieces.map((p) => p.id), puzzle.pieces.map((_, i) => i + 1), "ids renumbered in the new order");
    assert.equal(shuffled.name, `${puzzle.name}-shuffled-s7`);
    assert.deepEqual(shuffleTriangle(hinted, 7), shuffled, "deterministic per seed");
    if (!rotate) assert.deepEqual(shuffled.pieces.map((p) => p.edges).sort(), puzzle.pieces.map((p) => p.edges).sort(), "no piece turned");
    const [before, after] = [hinted.hints[0], shuffled.hints[0]];
    for (let d = 0; d < 3; d++) {
      assert.equal(placedLabel(shuffled.pieces[after.piece].edges, after.rot, d), placedLabel(hinted.pieces[before.piece].edges, before.rot, d));
    }
    assert.equal(countTriangle(shuffled).count, countTriangle(hinted).count, `rotate ${rotate}`);
    assert.deepEqual(parseTriangle(writeTriangle(shuffled), "s.txt").hints.map((h) => h.cell), [cell]);
  }
});
