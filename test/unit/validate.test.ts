import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { parsePuzzle, type FormatOption } from "../../core/formats/index.js";
import { InvalidPuzzleError } from "../../core/errors.js";
import type { Puzzle } from "../../core/puzzle.js";
import { colourParityProblems, validatePuzzle } from "../../core/validate.js";

const BAD = fileURLToPath(new URL("../fixtures/bad/", import.meta.url));

/** One malformed fixture per error kind: file, format, expected line, fragment of the reason. */
const CASES: Array<[string, FormatOption, number, string]> = [
  ["empty.txt", "auto", 0, "empty file"],
  ["undetectable.txt", "auto", 2, "not a puzzle in any known format"],
  ["brendan-missing-header.txt", "brendan", 1, "missing header"],
  ["canonical-missing-header.txt", "canonical", 2, "missing header"],
  ["too-small.txt", "auto", 2, "rows must be at least 2"],
  ["too-large.txt", "auto", 2, "rows 65 exceeds the limit of 64"],
  ["field-count.txt", "auto", 4, "(5 fields), found 4"],
  ["non-integer-colour.txt", "auto", 4, "colour 'x', which is not an integer"],
  ["negative-colour.txt", "auto", 4, "negative colour -1"],
  ["colour-limit.txt", "auto", 4, "colour 1001, above the limit of 1000"],
  ["grey-opposite.txt", "auto", 4, "piece 2 has grey on opposite sides (N and S)"],
  ["three-greys.txt", "auto", 4, "piece 2 has 3 grey sides"],
  ["duplicate-id.txt", "auto", 5, "duplicate piece id 2 (first on line 4)"],
  ["piece-count.txt", "auto", 0, "8 pieces do not fit a 3x3 board"],
  ["corner-count.txt", "auto", 0, "found 3 corner pieces"],
  ["border-count.txt", "auto", 0, "found 3 border pieces"],
  ["heule-no-rectangle.txt", "auto", 0, "no rectangular board fits 7 pieces"],
  ["heule-hint-off-board.txt", "auto", 2, "hint at (row 4, col 1) is off the 3x3 board"],
  ["hint-off-board.txt", "auto", 12, "hint at (row 3, col 0) is off the 3x3 board"],
  ["hint-unknown-piece.txt", "auto", 12, "unknown piece 42"],
  ["hint-bad-rotation.txt", "auto", 12, "rotation 4, expected 0..3"],
  ["hint-wrong-cell.txt", "auto", 12, "puts border piece 2 on corner cell"],
  ["hint-grey-off-rim.txt", "auto", 12, "puts grey off the rim (E)"],
  ["hint-non-grey-on-rim.txt", "auto", 12, "puts non-grey colour 3 on the rim (N)"],
  ["hint-piece-twice.txt", "auto", 13, "piece 1 is used by two hints (also line 12)"],
  ["hint-same-cell.txt", "auto", 13, "two hints on cell (row 1, col 1) (also line 12)"],
  ["hint-contradiction.txt", "auto", 13, "contradict"],
];

for (const [file, format, line, fragment] of CASES) {
  test(`validation - ${file} is rejected at line ${line} with "${fragment}"`, () => {
    const text = readFileSync(BAD + file, "utf8");
    assert.throws(
      () => parsePuzzle(text, file, format),
      (e: unknown) => {
        assert.ok(e instanceof InvalidPuzzleError, `expected InvalidPuzzleError, got ${String(e)}`);
        assert.equal(e.file, file);
        assert.equal(e.line, line, e.message);
        assert.ok(e.reason.includes(fragment), `"${e.reason}" lacks "${fragment}"`);
        // One line, lowercase start, file:line prefix.
        assert.ok(!e.message.includes("\n"));
        assert.match(e.reason, /^[a-z0-9]/);
        assert.equal(e.message, line > 0 ? `${file}:${line}: ${e.reason}` : `${file}: ${e.reason}`);
        return true;
      },
    );
  });
}

test("validation - the base puzzle of the bad fixtures is valid without its defect", () => {
  const text = readFileSync(BAD + "hint-contradiction.txt", "utf8").replace("hint 1 1 1 0", "hint 1 1 1 3");
  const p = parsePuzzle(text, "fixed.txt");
  assert.equal(p.hints.length, 2);
});

const unbounded: Puzzle = {
  rows: 2, cols: 2, hints: [],
  pieces: [1, 2, 3, 4].map((id) => ({ id, edges: [1, 2, 3, 4] as const })),
};

test("validation - a puzzle without grey is unbounded and valid with any hint rotation", () => {
  validatePuzzle(unbounded);
  validatePuzzle({ ...unbounded, hints: [{ row: 0, col: 0, piece: 0, rot: 3 }] });
});

test("validation - a puzzle built in code reports line 0 and the default label", () => {
  assert.throws(
    () => validatePuzzle({ ...unbounded, pieces: unbounded.pieces.slice(0, 3) }),
    (e: unknown) => e instanceof InvalidPuzzleError && e.file === "<puzzle>" && e.line === 0 && /3 pieces/.test(e.reason),
  );
  assert.throws(
    () => validatePuzzle({ ...unbounded, pieces: [...unbounded.pieces.slice(0, 3), { id: 4, edges: [1, 2, 3.5, 4] }] }, "code"),
    /piece 4 has colour 3.5, which is not an integer/,
  );
});

test("validation - a colour count mismatch is valid but reported by colourParityProblems", () => {
  // A 2x2 board of corners: colours 1 and 2 appear 3 and 1 times (odd), so it cannot be solved.
  const p: Puzzle = {
    rows: 2, cols: 2, hints: [],
    pieces: [
      { id: 1, edges: [0, 1, 1, 0] }, { id: 2, edges: [0, 0, 1, 2] },
      { id: 3, edges: [1, 1, 0, 0] }, { id: 4, edges: [1, 0, 0, 1] },
    ],
  };
  validatePuzzle(p);
  assert.deepEqual(colourParityProblems(p), [{ colour: 1, count: 7 }, { colour: 2, count: 1 }]);
  assert.deepEqual(colourParityProblems(unbounded), []);
});

test("validation - every real fixture has no colour parity problem", () => {
  const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
  for (const f of ["heule2008/em_7_3_6.txt", "clues/clue1.txt", "clues/heule_clue4.txt", "eternity2/e2_pieces.txt", "brendan/pieces_16x16.txt"]) {
    assert.deepEqual(colourParityProblems(parsePuzzle(readFileSync(fixtures + f, "utf8"), f)), [], f);
  }
});
