import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  boardToJSON,
  detectFormat,
  formatNames,
  parseE2Hints,
  parsePuzzle,
  declaredPuzzleName,
  readBoardJSON,
  readBrendanSolution,
  readCanonical,
  readReferenceBoards,
  withHints,
  writeCanonical,
} from "../../core/formats/index.js";
import { InvalidPuzzleError } from "../../core/errors.js";
import { isBounded, rimSides, rotatedEdge, type Board, type Puzzle } from "../../core/puzzle.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));
const read = (path: string): string => readFileSync(FIXTURES + path, "utf8");
const load = (path: string): Puzzle => parsePuzzle(read(path), path);

/** Edge-matching problems of a board (empty list = full valid solution). Small on purpose: the real verifier lives elsewhere. */
function violations(puzzle: Puzzle, board: Board): string[] {
  const out: string[] = [];
  const { rows, cols } = puzzle;
  const used = new Set<number>();
  const placed = (cell: number, d: number): number => {
    const c = board.cells[cell]!;
    return rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d);
  };
  for (let cell = 0; cell < rows * cols; cell++) {
    const c = board.cells[cell];
    if (c === null) { out.push(`cell ${cell} empty`); continue; }
    if (used.has(c.piece)) out.push(`piece ${c.piece} used twice`);
    used.add(c.piece);
  }
  if (out.length > 0) return out;
  const bounded = isBounded(puzzle);
  for (let cell = 0; cell < rows * cols; cell++) {
    const r = Math.floor(cell / cols), col = cell % cols;
    if (col + 1 < cols && placed(cell, 1) !== placed(cell + 1, 3)) out.push(`mismatch E of cell ${cell}`);
    if (r + 1 < rows && placed(cell, 2) !== placed(cell + cols, 0)) out.push(`mismatch S of cell ${cell}`);
    if (bounded) {
      const rim = rimSides(puzzle, cell);
      for (let d = 0; d < 4; d++) if (rim[d] !== (placed(cell, d) === 0)) out.push(`rim wrong at cell ${cell} side ${d}`);
    }
  }
  for (const h of puzzle.hints) {
    const c = board.cells[h.row * cols + h.col];
    if (!c || c.piece !== h.piece || c.rot !== h.rot) out.push(`hint at ${h.row},${h.col} not respected`);
  }
  return out;
}

/** Matched inner edges of a full board (the E2 "score"). */
function score(puzzle: Puzzle, board: Board): number {
  let n = 0;
  const { rows, cols } = puzzle;
  const at = (cell: number, d: number): number => {
    const c = board.cells[cell]!;
    return rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d);
  };
  for (let cell = 0; cell < rows * cols; cell++) {
    if (cell % cols + 1 < cols && at(cell, 1) === at(cell + 1, 3)) n++;
    if (Math.floor(cell / cols) + 1 < rows && at(cell, 2) === at(cell + cols, 0)) n++;
  }
  return n;
}

test("heule format - every em benchmark parses as an NxN board", () => {
  for (const name of ["em_7_3_6", "em_7_4_8", "em_7_4_9", "em_8_4_5", "em_9_3_5", "em_11_3_4", "em_12_2_4", "em_14_7_3"]) {
    const n = Number(name.split("_")[1]);
    const p = load(`heule2008/${name}.txt`);
    assert.equal(detectFormat(read(`heule2008/${name}.txt`), name), "heule");
    assert.equal(p.rows, n, name);
    assert.equal(p.cols, n, name);
    assert.equal(p.pieces.length, n * n);
    assert.deepEqual(p.pieces.map((x) => x.id), p.pieces.map((_, i) => i + 1));
    assert.equal(p.hints.length, 0);
    assert.equal(p.name, name);
  }
});

test("heule format - the em files keep their colour counts (N, B frame, C centre colours)", () => {
  const p = load("heule2008/em_7_3_6.txt");
  const colours = new Set(p.pieces.flatMap((x) => x.edges.filter((c) => c !== 0)));
  assert.equal(colours.size, 3 + 6);
  assert.deepEqual(p.pieces[0].edges, [0, 8, 7, 0]);
});

test("clue puzzles - canonical and heule files give the same sizes", () => {
  const sizes: Record<string, [number, number]> = { clue1: [6, 6], clue2: [6, 12], clue3: [6, 6], clue4: [6, 12] };
  for (const [name, [rows, cols]] of Object.entries(sizes)) {
    for (const file of [`clues/${name}.txt`, `clues/heule_${name}.txt`]) {
      const p = load(file);
      assert.equal(p.rows, rows, file);
      assert.equal(p.cols, cols, file);
      assert.equal(p.pieces.length, rows * cols, file);
    }
  }
});

test("brendan format - pieces parse with W = columns and H = rows", () => {
  for (const [size, n] of [["04x04", 4], ["05x05", 5], ["06x06", 6], ["08x08", 8], ["10x10", 10], ["16x16", 16]] as const) {
    const file = `brendan/pieces_${size}.txt`;
    assert.equal(detectFormat(read(file), file), "brendan");
    const p = load(file);
    assert.equal(p.rows, n);
    assert.equal(p.cols, n);
    assert.equal(p.pieces[0].id, 1);
  }
});

test("brendan format - every fixture solution is a valid placement", () => {
  for (const size of ["04x04", "05x05", "06x06", "08x08", "10x10", "16x16"]) {
    const p = load(`brendan/pieces_${size}.txt`);
    const board = readBrendanSolution(read(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, p);
    assert.deepEqual(violations(p, board), [], size);
  }
});

test("brendan format - a solution row counts from the bottom", () => {
  const p = load("brendan/pieces_04x04.txt");
  // Line 2 of solutions_04x04.txt is `0 0 2`: piece 0 at x 0, y 0 = bottom-left, rot 2.
  const board = readBrendanSolution(read("brendan/solutions_04x04.txt"), "s", p);
  assert.deepEqual(board.cells[3 * 4 + 0], { piece: 0, rot: 2 });
});

test("brendan format - a solution for another size names the header line", () => {
  const p = load("brendan/pieces_04x04.txt");
  assert.throws(() => readBrendanSolution(read("brendan/solutions_05x05.txt"), "s.txt", p),
    (e: unknown) => e instanceof InvalidPuzzleError && e.line === 1 && /5x5/.test(e.reason));
});

test("eternity2 - the official set with its hint file is 16x16 with 5 hints", () => {
  const e2 = load("eternity2/e2_pieces.txt");
  assert.equal(e2.rows, 16);
  assert.equal(e2.cols, 16);
  assert.deepEqual(e2.pieces.map((x) => x.id), e2.pieces.map((_, i) => i + 1));
  const hints = parseE2Hints(read("eternity2/e2_hints.txt"), "e2_hints.txt", e2);
  const withE2 = withHints(e2, hints);
  assert.equal(withE2.hints.length, 5);
  // Piece 139 at I8 (row 9, col 8 1-based) with rot 2.
  assert.deepEqual(withE2.hints[0], { row: 8, col: 7, piece: 138, rot: 2 });
});

test("eternity2 - a hint whose placed colours disagree with the piece names the line", () => {
  const e2 = load("eternity2/e2_pieces.txt");
  const text = "# header\n139 I8 9 8 135 2 8 9 9 13\n";
  assert.throws(() => parseE2Hints(text, "h.txt", e2),
    (e: unknown) => e instanceof InvalidPuzzleError && e.line === 2 && /placed W colour 13/.test(e.reason));
});

test("eternity2 - reference boards are complete, score as stated, and are not solutions", () => {
  const e2 = withHints(load("eternity2/e2_pieces.txt"),
    parseE2Hints(read("eternity2/e2_hints.txt"), "e2_hints.txt", load("eternity2/e2_pieces.txt")));
  const boards = readReferenceBoards(read("eternity2/e2_reference_boards.txt"), "refs.txt", e2);
  assert.equal(boards.length, 19);
  assert.equal(boards[0].name, "Joshua_Blackwood_470");
  for (const b of boards) {
    assert.ok(b.board.cells.every((c) => c !== null), b.name);
    assert.equal(score(e2, b.board), b.score, b.name);
    assert.notDeepEqual(violations(e2, b.board), [], b.name);
    assert.deepEqual(b.board.cells[8 * 16 + 7], { piece: 138, rot: 2 });
  }
});

test("eternity2 - a malformed reference board names its line", () => {
  const e2 = load("eternity2/e2_pieces.txt");
  const rows = read("eternity2/e2_reference_boards.txt").split("\n").filter((l) => /^\s*\d/.test(l)).slice(0, 16);
  const good = ["## test score=1/480", ...rows].join("\n");
  assert.equal(readReferenceBoards(good, "r.txt", e2).length, 1);
  const short = ["# c", "## test", rows[0], rows[1].replace(/\s*\S+$/, ""), ...rows.slice(2)].join("\n");
  assert.throws(() => readReferenceBoards(short, "r.txt", e2),
    (e: unknown) => e instanceof InvalidPuzzleError && e.line === 4 && /15 cells, expected 16/.test(e.reason));
  const twice = ["## test", rows[0].replace(/^\s*\d+\//, "2/"), ...rows.slice(1)].join("\n");
  assert.throws(() => readReferenceBoards(twice, "r.txt", e2), /piece 2 is used twice on board test/);
});

test("auto detection - the rules pick each format and name the line when none fits", () => {
  assert.deepEqual([...formatNames], ["canonical", "heule", "brendan"]);
  assert.equal(detectFormat("# c\n2 2\n1 0 1 1 0\n", "x"), "canonical");
  assert.equal(detectFormat("2 2\nhint 0 0 1 0\n", "x"), "canonical");
  assert.equal(detectFormat("1 0 1 1 0\n", "x"), "canonical");
  assert.equal(detectFormat("0\n0 1 1 0\n", "x"), "heule");
  assert.equal(detectFormat("2 2\n0 1 1 0\n", "x"), "brendan");
  assert.throws(() => detectFormat("2 2\n1 2 3\n", "x.txt"),
    (e: unknown) => e instanceof InvalidPuzzleError && e.line === 2 && /cannot detect/.test(e.reason));
});

test("auto detection - a file that is no puzzle (package.json) is named as such, not read as a Heule hint count", () => {
  assert.throws(() => parsePuzzle('{\n  "name": "cubist",\n  "version": "0.1.0"\n}\n', "package.json"), (e: unknown) =>
    e instanceof InvalidPuzzleError && e.file === "package.json" && e.line === 1 &&
    /^not a puzzle in any known format: its first data line "\{" is none of /.test(e.reason) && /docs\/formats\.md/.test(e.reason));
  assert.throws(() => detectFormat("# notes\nrows: 6\n", "notes.md"), /notes\.md:2: not a puzzle in any known format: its first data line "rows: 6"/);
});

const TWO_BY_TWO = "# name: tiny\n2 2\n1 0 1 1 0\n2 0 0 1 1\n3 1 1 0 0\n4 1 0 0 1\n";

test("puzzle names - every format takes a `# name:` line, else the file's base name; declaredPuzzleName reads it raw", () => {
  const heule = "# name: Heule two\n0\n1 1 0 0\n0 1 1 0\n1 0 0 1\n0 0 1 1\n";
  const brendan = "# name: Brendan two\n2 2\n1 1 0 0\n0 1 1 0\n1 0 0 1\n0 0 1 1\n";
  assert.equal(parsePuzzle(heule, "dir/h.txt").name, "Heule two");
  assert.equal(parsePuzzle(brendan, "dir/b.txt").name, "Brendan two");
  assert.equal(parsePuzzle(TWO_BY_TWO, "dir/c.txt").name, "tiny");
  assert.equal(parsePuzzle(heule.replace(/^# name: .*\n/, "# a comment\n"), "dir/h.txt").name, "h");
  assert.equal(declaredPuzzleName(TWO_BY_TWO), "tiny");
  assert.equal(declaredPuzzleName("# name: tri\ntriangle 1\n1 0 0 0\n"), "tri");
  assert.equal(declaredPuzzleName("2 2\n"), undefined);
  assert.equal(declaredPuzzleName("# name:   \n2 2\n"), undefined, "an empty name is none");
});

test("canonical format - hints use 0-based cells, file ids and clockwise rotations", () => {
  const p = readCanonical(TWO_BY_TWO + "hint 1 1 4 0  # trailing comment\nhint 0 1 2 0\n", "t.txt");
  assert.equal(p.name, "tiny");
  assert.deepEqual(p.hints, [{ row: 1, col: 1, piece: 3, rot: 0 }, { row: 0, col: 1, piece: 1, rot: 0 }]);
});

test("canonical format - file ids are kept, not renumbered", () => {
  const p = readCanonical("2 2\n10 0 1 1 0\n20 0 0 1 1\n30 1 1 0 0\n40 1 0 0 1\nhint 0 0 10 0\n", "t.txt");
  assert.deepEqual(p.pieces.map((x) => x.id), [10, 20, 30, 40]);
  assert.equal(p.hints[0].piece, 0);
});

test("canonical format - writeCanonical round-trips pieces, ids, hints and name", () => {
  const e2 = load("eternity2/e2_pieces.txt");
  const withE2 = withHints(e2, parseE2Hints(read("eternity2/e2_hints.txt"), "h", e2));
  for (const p of [withE2, load("clues/clue2.txt"), load("heule2008/em_7_3_6.txt"), readCanonical(TWO_BY_TWO + "hint 1 1 4 0\n", "t")]) {
    const text = writeCanonical(p);
    assert.match(text, /^# name: /);
    assert.deepEqual(readCanonical(text, "other-label.txt"), p);
  }
});

test("heule format - hints are 1-based and the rim fixes the rotation of border pieces", () => {
  // The 3x3 puzzle of test/fixtures/bad, in Heule's format, with two hints.
  const pieces = ["4 3 3 3", "3 1 0 2", "0 0 2 2", "2 0 0 1", "1 0 0 1", "3 2 0 1", "3 1 0 1", "2 0 2 4", "2 1 0 0"];
  const text = ["2", "2 2 1 3", "1 2 2 0", ...pieces].join("\r\n") + "\r\n";
  const p = parsePuzzle(text, "h.txt", "heule");
  assert.equal(p.rows, 3);
  // Centre hint: rotation as given. Border hint: rotation 0 in the file, 2 is the only one that fits the top rim.
  assert.deepEqual(p.hints, [{ row: 1, col: 1, piece: 0, rot: 3 }, { row: 0, col: 1, piece: 1, rot: 2 }]);
});

test("heule format - an unbounded square file parses, a non-square one is rejected", () => {
  const sq = parsePuzzle("0\n1 2 3 4\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", "u.txt", "heule");
  assert.equal(sq.rows, 2);
  assert.throws(() => parsePuzzle("0\n1 2 3 4\n1 2 3 4\n1 2 3 4\n", "u.txt", "heule"),
    (e: unknown) => e instanceof InvalidPuzzleError && e.line === 0 && /not a square/.test(e.reason));
});

test("board json - boardToJSON and readBoardJSON round-trip with user-facing ids", () => {
  const p = load("brendan/pieces_06x06.txt");
  const board = readBrendanSolution(read("brendan/solutions_06x06.txt"), "s", p);
  const json = boardToJSON(board, p);
  assert.equal(json.length, 6);
  assert.equal(json[0].length, 6);
  const c = board.cells[0]!;
  assert.deepEqual(json[0][0], [p.pieces[c.piece].id, c.rot]);
  assert.deepEqual(readBoardJSON(JSON.stringify(json), p), board);
  assert.deepEqual(readBoardJSON({ board: json }, p), board);
});

test("board json - unknown ids, bad rotations and wrong sizes are rejected", () => {
  const p = readCanonical(TWO_BY_TWO, "t");
  const ok = [[[1, 0], [2, 0]], [[3, 0], null]];
  assert.equal(readBoardJSON(ok, p).cells[3], null);
  assert.throws(() => readBoardJSON([[[9, 0], null], [null, null]], p), /unknown piece 9/);
  assert.throws(() => readBoardJSON([[[1, 4], null], [null, null]], p), /rotation 4/);
  assert.throws(() => readBoardJSON([[null, null]], p), /1 rows/);
  assert.throws(() => readBoardJSON([[[1, 0], [1, 1]], [null, null]], p), /used twice/);
  assert.throws(() => readBoardJSON("{", p), /not valid JSON/);
});
