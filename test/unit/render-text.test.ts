import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import type { Board, Puzzle } from "../../core/puzzle.js";
import { renderText } from "../../core/render/text.js";
import { InvalidOptionError } from "../../core/errors.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

/** The 4x4 solution with the diagonal cleared. */
function diagonalCleared(board: Board): Board {
  return { ...board, cells: board.cells.map((c, i) => (i % (board.cols + 1) === 0 ? null : c)) };
}

// eslint-disable-next-line no-control-regex -- terminal escapes are what it strips
const stripAnsi = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, "");

test("render text - a solved 4x4 board as a numbered grid", () => {
  const { puzzle, board } = brendan("04x04");
  assert.equal(
    renderText(puzzle, board),
    [
      "+------+------+------+------+",
      "|  0   |  0   |  0   |  0   |",
      "|0  4 2|2 12 2|2 10 2|2  2 0|",
      "|  2   |  5   |  4   |  1   |",
      "+------+------+------+------+",
      "|  2   |  5   |  4   |  1   |",
      "|0 11 5|5 16 4|4 15 4|4  9 0|",
      "|  1   |  3   |  3   |  2   |",
      "+------+------+------+------+",
      "|  1   |  3   |  3   |  2   |",
      "|0  7 4|4 14 5|5 13 3|3  6 0|",
      "|  1   |  3   |  5   |  1   |",
      "+------+------+------+------+",
      "|  1   |  3   |  5   |  1   |",
      "|0  1 1|1  5 1|1  8 2|2  3 0|",
      "|  0   |  0   |  0   |  0   |",
      "+------+------+------+------+",
      "",
    ].join("\n"),
  );
});

test("render text - a partial board with letter labels shows empty cells as dots", () => {
  const { puzzle, board } = brendan("04x04");
  assert.equal(
    renderText(puzzle, diagonalCleared(board), { labels: "letter" }),
    [
      "+------+------+------+------+",
      "|......|  a   |  a   |  a   |",
      "|......|c 12 c|c 10 c|c  2 a|",
      "|......|  f   |  e   |  b   |",
      "+------+------+------+------+",
      "|  c   |......|  e   |  b   |",
      "|a 11 f|......|e 15 e|e  9 a|",
      "|  b   |......|  d   |  c   |",
      "+------+------+------+------+",
      "|  b   |  d   |......|  c   |",
      "|a  7 e|e 14 f|......|d  6 a|",
      "|  b   |  d   |......|  b   |",
      "+------+------+------+------+",
      "|  b   |  d   |  f   |......|",
      "|a  1 b|b  5 b|b  8 c|......|",
      "|  a   |  a   |  a   |......|",
      "+------+------+------+------+",
      "",
    ].join("\n"),
  );
});

test("render text - compact layout is one line per row of id/rot", () => {
  const { puzzle, board } = brendan("04x04");
  assert.equal(
    renderText(puzzle, diagonalCleared(board), { layout: "compact" }),
    ["   . 12/0 10/0  2/0", "11/3    . 15/2  9/1", " 7/3 14/2    .  6/1", " 1/2  5/2  8/2    .", ""].join("\n"),
  );
});

test("render text - a 16x16 grid fits 200 columns; auto switches to compact when it does not fit", () => {
  const { puzzle, board } = brendan("16x16");
  const grid = renderText(puzzle, board).split("\n");
  assert.equal(grid.length, 16 * 4 + 1 + 1);
  assert.ok(grid.every((l) => l.length <= 200));
  assert.equal(grid[0].length, 161);
  const narrow = renderText(puzzle, board, { maxWidth: 120 }).split("\n");
  assert.equal(narrow.length, 16 + 1);
  assert.match(narrow[0], /^ *\d+\/[0-3]( +\d+\/[0-3]){15}$/);
  assert.deepEqual(renderText(puzzle, board, { layout: "grid", maxWidth: 10 }).split("\n"), grid);
});

test("render text - ANSI colour wraps each label and changes nothing else", () => {
  const { puzzle, board } = brendan("04x04");
  const plain = renderText(puzzle, board);
  const coloured = renderText(puzzle, board, { color: true });
  assert.notEqual(coloured, plain);
  assert.equal(stripAnsi(coloured), plain);
  // Colour 0 is the palette grey #9a9a9a = rgb(154,154,154), with black text.
  assert.ok(coloured.includes("\x1b[30;48;2;154;154;154m0\x1b[0m"));
  assert.equal(renderText(puzzle, board, { color: true }), coloured, "deterministic");
});

test("render text - an out-of-range piece shows question marks; bad options are refused", () => {
  const { puzzle, board } = brendan("04x04");
  const bad: Board = { ...board, cells: board.cells.map((c, i) => (i === 0 ? { piece: 99, rot: 0 } : c)) };
  const lines = renderText(puzzle, bad).split("\n");
  assert.equal(lines[1].slice(0, 8), "|  ?   |");
  assert.equal(lines[2].slice(0, 8), "|?  ? ?|");
  assert.match(renderText(puzzle, bad, { layout: "compact" }), /^ +\?\/0 /);
  assert.throws(() => renderText(puzzle, board, { layout: "wide" as "grid" }), InvalidOptionError);
  const many: Puzzle = { ...puzzle, pieces: puzzle.pieces.map((p, i) => (i === 0 ? { ...p, edges: [0, 0, 52, 1] } : p)) };
  assert.throws(() => renderText(many, board, { labels: "letter" }), /colour 52 has no letter/);
});

test("render text - mismatched edges of a score board are drawn with x, matched ones as usual", () => {
  const { puzzle, board } = brendan("04x04");
  // Swap the two middle cells of row 1: their joins with the neighbours break (the rim stays grey).
  const cells = [...board.cells];
  [cells[5], cells[6]] = [cells[6], cells[5]];
  const text = renderText(puzzle, { ...board, cells }, { layout: "grid" });
  const lines = text.trimEnd().split("\n");
  assert.ok(lines[6].includes("x"), "row 1's middle line has an x border");
  assert.ok(!lines[2].includes("x") && !lines[14].includes("x"), "untouched rows keep plain borders");
  assert.match(lines[4], /x{3,}/, "the rule between rows 0 and 1 marks the broken joins");
  assert.equal(renderText(puzzle, board, { layout: "grid" }).includes("x"), false, "a solution has no x");
});
