import { test } from "node:test";
import assert from "node:assert/strict";

import { InvalidPuzzleError } from "../../core/errors.js";
import { checkModel } from "../../core/cnf/check-model.js";
import { clauseList } from "../../core/cnf/cnf.js";
import { createRandom } from "../../core/random.js";
import { blockingClause, decodeSudoku, encodeSudoku } from "../../core/sudoku/encode.js";
import { oneLine, parseSudoku, writeSudoku } from "../../core/sudoku/format.js";
import { renderSudoku } from "../../core/sudoku/render.js";
import { generateSudoku } from "../../core/sudoku/generate.js";
import type { Sudoku } from "../../core/sudoku/sudoku.js";
import { verifySudoku } from "../../core/sudoku/verify.js";

const PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
const SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

/** Every solution of a small Sudoku by plain backtracking (the test's own reference). */
function solutions(s: Sudoku): Sudoku[] {
  const N = s.size, n = s.box, cells = [...s.cells], out: Sudoku[] = [];
  const ok = (i: number, d: number): boolean => {
    const r = Math.floor(i / N), c = i % N;
    for (let k = 0; k < N; k++) {
      if (cells[r * N + k] === d || cells[k * N + c] === d) return false;
      const br = Math.floor(r / n) * n + Math.floor(k / n), bc = Math.floor(c / n) * n + (k % n);
      if (cells[br * N + bc] === d) return false;
    }
    return true;
  };
  const go = (i: number): void => {
    if (i === N * N) return void out.push({ ...s, cells: [...cells] });
    if (cells[i] !== 0) return go(i + 1);
    for (let d = 1; d <= N; d++) {
      if (!ok(i, d)) continue;
      cells[i] = d;
      go(i + 1);
      cells[i] = 0;
    }
  };
  go(0);
  return out;
}

function modelOf(g: Sudoku): Uint8Array {
  const model = new Uint8Array(g.size ** 3 + 1);
  g.cells.forEach((d, cell) => {
    if (d !== 0) model[cell * g.size + d] = 1;
  });
  return model;
}

test("sudoku format - the one-line form, a grid with box rules, and the writer read back the same", () => {
  const one = parseSudoku(`# name: classic\n${PUZZLE}\n`, "p.sudoku");
  assert.equal(one.size, 9);
  assert.equal(one.name, "classic");
  assert.equal(oneLine(one), PUZZLE);
  assert.deepEqual(parseSudoku(writeSudoku(one), "w").cells, one.cells);
  assert.deepEqual(parseSudoku(renderSudoku(one), "r").cells, one.cells);
  const grid = "5 3 0 | 0 7 0 | 0 0 0\r\n" + PUZZLE.slice(9).match(/.{9}/g)!.map((r) => r.replace(/\./g, "0")).join("\n");
  assert.deepEqual(parseSudoku(grid, "g").cells, one.cells);
});

test("sudoku format - 16x16 with letters and 25x25 as numbers", () => {
  const row16 = "123456789ABCDEFG";
  const s16 = parseSudoku(Array.from({ length: 16 }, (_, i) => (i === 0 ? row16 : ".".repeat(16))).join("\n"), "s16");
  assert.equal(s16.box, 4);
  assert.deepEqual(s16.cells.slice(0, 16), Array.from({ length: 16 }, (_, i) => i + 1));
  const row25 = Array.from({ length: 25 }, (_, i) => String(i + 1)).join(" ");
  const s25 = parseSudoku(Array.from({ length: 25 }, (_, i) => (i === 3 ? row25 : Array(25).fill("0").join(" "))).join("\n"), "s25");
  assert.equal(s25.size, 25);
  assert.equal(s25.cells[3 * 25 + 24], 25);
});

test("sudoku format - bad files name file:line", () => {
  const fails = (text: string, pattern: RegExp): void => {
    assert.throws(() => parseSudoku(text, "b.sudoku"), (e: unknown) => e instanceof InvalidPuzzleError && pattern.test(e.message));
  };
  fails("12345678\n", /^b\.sudoku:1: a row of 8 cells/);
  fails("123456789\n12345678x\n", /^b\.sudoku:2: "x" is not a digit 1\.\.9/);
  fails("1234\n12..3\n", /^b\.sudoku:2: a row of 5 cells, the first row has 4/);
  fails("1234\n....\n", /^b\.sudoku: 2 rows, a 4x4 Sudoku has 4/);
  fails(`${PUZZLE}\n${PUZZLE}\n`, /^b\.sudoku:2: a second puzzle/);
  fails("1234\n....\n....\n....\n....\n", /^b\.sudoku:5: more than 4 rows/);
  fails("# only a comment\n", /^b\.sudoku: no rows/);
  fails("1A34\n", /^b\.sudoku:1: "A" is not a digit 1\.\.4/);
});

test("sudoku verify - the known solution passes; a swap, a blank and a changed given are named", () => {
  const puzzle = parseSudoku(PUZZLE, "p"), solution = parseSudoku(SOLUTION, "s");
  assert.deepEqual(verifySudoku(puzzle, solution), { ok: true });
  const swapped = [...solution.cells];
  [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
  const r = verifySudoku(puzzle, { ...solution, cells: swapped });
  assert.ok(!r.ok && r.violations.some((v) => /row 1, column 1 holds 3, the puzzle gives 5/.test(v)) && r.violations.some((v) => /column 1 holds 3 twice/.test(v)));
  const blank = [...solution.cells];
  blank[80] = 0;
  const b = verifySudoku(puzzle, { ...solution, cells: blank });
  assert.ok(!b.ok && b.violations.includes("row 9, column 9 is blank"));
});

test("sudoku encode - the encoding's models are exactly the verifier's solutions (4x4, against random grids)", () => {
  const empty: Sudoku = { box: 2, size: 4, cells: Array(16).fill(0) };
  const all = solutions(empty);
  assert.equal(all.length, 288);
  for (const redundant of [false, true]) {
    const cnf = encodeSudoku(empty, { redundant });
    for (const g of all) assert.ok(checkModel(cnf, modelOf(g)).ok);
    const random = createRandom(5);
    for (let i = 0; i < 2000; i++) {
      // A solution with one to three cells changed, or random digits: the encoding and the verifier agree.
      const cells: number[] = i % 2 === 0 ? [...all[random.nextInt(all.length)].cells] : Array.from({ length: 16 }, () => 1 + random.nextInt(4));
      for (let k = random.nextInt(3); k >= 0 && i % 2 === 0; k--) cells[random.nextInt(16)] = 1 + random.nextInt(4);
      const g: Sudoku = { ...empty, cells };
      assert.equal(checkModel(cnf, modelOf(g)).ok, verifySudoku(empty, g).ok, `grid ${cells.join("")}`);
    }
  }
});

test("sudoku encode - givens are units, decoding reads each cell's digit, and the blocking clause excludes the solution", () => {
  const puzzle = parseSudoku(PUZZLE, "p"), solution = parseSudoku(SOLUTION, "s");
  const cnf = encodeSudoku(puzzle);
  assert.equal(cnf.numVars, 729);
  const clauses = clauseList(cnf);
  assert.equal(clauses.filter((c) => c.length === 1).length, 30);
  assert.equal(clauses.length, 81 + 81 * 36 + 27 * 9 * 36 + 30);
  assert.equal(encodeSudoku(puzzle, { redundant: true }).clauses.count, clauses.length + 27 * 9);
  assert.ok(checkModel(cnf, modelOf(solution)).ok);
  assert.deepEqual(decodeSudoku(puzzle, modelOf(solution)).cells, solution.cells);
  const block = blockingClause(puzzle, solution);
  assert.equal(block.length, 51);
  assert.ok(block.every((l) => !(modelOf(solution)[-l] === 0)));
});

test("sudoku render - box rules, and givens in bold with color", () => {
  const puzzle = parseSudoku(PUZZLE, "p"), solution = parseSudoku(SOLUTION, "s");
  const text = renderSudoku(solution);
  assert.equal(text.split("\n")[0], "5 3 4 | 6 7 8 | 9 1 2");
  assert.equal(text.split("\n")[3], "------+-------+------");
  assert.ok(renderSudoku(solution, { givens: puzzle, color: true }).startsWith("\x1b[1m5\x1b[0m \x1b[1m3\x1b[0m 4"));
});

test("sudoku generate - the full grid is a solution for every box side, and the givens are a subset of it", () => {
  for (let box = 2; box <= 5; box++) {
    const full = generateSudoku(box, box ** 4, box);
    const empty: Sudoku = { ...full, cells: full.cells.map(() => 0) };
    assert.deepEqual(verifySudoku(empty, full), { ok: true });
    const some = generateSudoku(box, 5, box);
    assert.equal(some.cells.filter((d) => d !== 0).length, 5);
    assert.deepEqual(verifySudoku(some, full), { ok: true }, "the same seed keeps cells of the same grid");
  }
});
