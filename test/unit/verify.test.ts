import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import type { Board, Edges, Hint, Piece, Puzzle } from "../../core/puzzle.js";
import {
  cellName,
  innerEdgeCount,
  scoreBoard,
  verifyPartial,
  verifySolution,
  type VerifyResult,
  type Violation,
} from "../../core/verify.js";
import { InvalidOptionError } from "../../core/errors.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

/** Independent few-line readers of the Eternity II fixtures (canonical `id N E S W`, `piece/rot` boards). */
function e2Puzzle(): Puzzle {
  const pieces: Piece[] = [];
  for (const line of fixture("eternity2/e2_pieces.txt").split("\n")) {
    const body = line.replace(/#.*/, "").trim();
    if (body === "") continue;
    const [id, n, e, s, w] = body.split(/\s+/).map(Number);
    pieces.push({ id, edges: [n, e, s, w] as Edges });
  }
  assert.equal(pieces.length, 256);
  pieces.forEach((p, i) => assert.equal(p.id, i + 1));
  return { rows: 16, cols: 16, pieces, hints: [], name: "eternity2" };
}

function e2Hints(): Hint[] {
  const hints: Hint[] = [];
  for (const line of fixture("eternity2/e2_hints.txt").split("\n")) {
    const body = line.replace(/#.*/, "").trim();
    if (body === "") continue;
    const f = body.split(/\s+/);
    hints.push({ piece: Number(f[0]) - 1, row: Number(f[2]) - 1, col: Number(f[3]) - 1, rot: Number(f[5]) });
  }
  return hints;
}

interface ReferenceBoard {
  name: string;
  score: number;
  hintsRespected: number;
  board: Board;
}

function e2ReferenceBoards(): ReferenceBoard[] {
  const out: ReferenceBoard[] = [];
  let cells: Array<{ piece: number; rot: number }> = [];
  for (const line of fixture("eternity2/e2_reference_boards.txt").split("\n")) {
    if (line.startsWith("## ")) {
      const [name] = line.slice(3).split(" ");
      cells = [];
      out.push({
        name,
        score: Number(/score=(\d+)\/480/.exec(line)![1]),
        hintsRespected: Number(/hints_respected=(\d)\/5/.exec(line)![1]),
        board: { rows: 16, cols: 16, cells },
      });
    } else if (!line.startsWith("#") && line.trim() !== "") {
      for (const t of line.trim().split(/\s+/)) {
        const [id, rot] = t.split("/").map(Number);
        cells.push({ piece: id - 1, rot });
      }
    }
  }
  return out;
}

function violations(r: VerifyResult): readonly Violation[] {
  return r.ok ? [] : r.violations;
}

function kinds(r: VerifyResult): string[] {
  return [...new Set(violations(r).map((v) => v.kind))];
}

function withCells(board: Board, change: (cells: Array<{ piece: number; rot: number } | null>) => void): Board {
  const cells = [...board.cells];
  change(cells);
  return { ...board, cells };
}

const SIZES = ["04x04", "05x05", "06x06", "08x08", "10x10", "16x16"];

test("verify - the planted brendan solutions pass and score every inner edge", () => {
  for (const size of SIZES) {
    const { puzzle, board } = brendan(size);
    assert.deepEqual(verifySolution(puzzle, board), { ok: true }, size);
    assert.deepEqual(verifyPartial(puzzle, board), { ok: true }, size);
    assert.equal(scoreBoard(puzzle, board), innerEdgeCount(puzzle), size);
  }
});

test("verify - swapping two inner pieces breaks edges and nothing else", () => {
  const { puzzle, board } = brendan("06x06");
  const a = 1 * 6 + 1, b = 3 * 6 + 4;
  const bad = withCells(board, (c) => ([c[a], c[b]] = [c[b], c[a]]));
  const r = verifySolution(puzzle, bad);
  assert.equal(r.ok, false);
  assert.deepEqual(kinds(r), ["edge-mismatch"]);
  for (const v of violations(r)) {
    assert.ok(v.kind === "edge-mismatch");
    assert.ok(v.cells.includes(a) || v.cells.includes(b), v.message);
  }
  assert.equal(scoreBoard(puzzle, bad), innerEdgeCount(puzzle) - violations(r).length);
});

test("verify - a rotated inner piece is named by its mismatched edges", () => {
  const { puzzle, board } = brendan("06x06");
  const cell = 2 * 6 + 3;
  const c = board.cells[cell]!;
  const bad = withCells(board, (cells) => (cells[cell] = { piece: c.piece, rot: (c.rot + 1) % 4 }));
  const r = verifySolution(puzzle, bad);
  assert.deepEqual(kinds(r), ["edge-mismatch"]);
  const first = violations(r)[0];
  assert.ok(first.kind === "edge-mismatch");
  assert.ok(first.cells.includes(cell));
  assert.match(first.message, /^cells \(\d,\d\) and \(\d,\d\) disagree: (east|south) \d+ vs (west|north) \d+$/);
});

test("verify - an edge-mismatch message names both cells, sides and colours", () => {
  const puzzle: Puzzle = {
    rows: 2, cols: 2, hints: [],
    pieces: [
      { id: 1, edges: [1, 2, 3, 4] }, { id: 2, edges: [1, 4, 3, 5] },
      { id: 3, edges: [3, 6, 1, 4] }, { id: 4, edges: [3, 4, 1, 6] },
    ],
  };
  const ok: Board = { rows: 2, cols: 2, cells: [{ piece: 0, rot: 0 }, { piece: 1, rot: 0 }, { piece: 2, rot: 0 }, { piece: 3, rot: 0 }] };
  const r = verifySolution(puzzle, ok);
  assert.equal(r.ok, false);
  assert.deepEqual(violations(r)[0], {
    kind: "edge-mismatch", cells: [0, 1], colours: [2, 5], message: "cells (0,0) and (0,1) disagree: east 2 vs west 5",
  });
  assert.equal(violations(r).length, 1, "the puzzle is unbounded: no rim rule, the other three joins match");
});

test("verify - a duplicated piece reports the duplicate and the missing piece", () => {
  const { puzzle, board } = brendan("06x06");
  const bad = withCells(board, (c) => (c[8] = c[7]));
  const r = verifySolution(puzzle, bad);
  const dup = violations(r).find((v) => v.kind === "duplicate-piece");
  const missing = violations(r).find((v) => v.kind === "missing-piece");
  assert.ok(dup && dup.kind === "duplicate-piece");
  assert.deepEqual(dup.cells, [7, 8]);
  assert.equal(dup.piece, board.cells[7]!.piece);
  assert.match(dup.message, /is placed 2 times, at \(1,1\), \(1,2\)$/);
  assert.ok(missing && missing.kind === "missing-piece");
  assert.equal(missing.piece, board.cells[8]!.piece);
  assert.equal(missing.message, `piece ${puzzle.pieces[board.cells[8]!.piece].id} is not on the board`);
  const order = violations(r).map((v) => v.kind);
  assert.ok(order.indexOf("edge-mismatch") > Math.max(order.indexOf("duplicate-piece"), order.indexOf("missing-piece")));
});

test("verify - an empty cell fails a solution but not a partial board", () => {
  const { puzzle, board } = brendan("05x05");
  const partial = withCells(board, (c) => (c[12] = null));
  const r = verifySolution(puzzle, partial);
  assert.deepEqual(kinds(r), ["empty-cell", "missing-piece"]);
  assert.equal(violations(r)[0].message, "cell (2,2) is empty");
  assert.deepEqual(verifyPartial(puzzle, partial), { ok: true });
  assert.equal(scoreBoard(puzzle, partial), innerEdgeCount(puzzle) - 4);
  const empty: Board = { rows: 5, cols: 5, cells: new Array(25).fill(null) };
  assert.deepEqual(verifyPartial(puzzle, empty), { ok: true });
  assert.equal(scoreBoard(puzzle, empty), 0);
  const holes: Board = { rows: 5, cols: 5, cells: new Array(25) };
  assert.deepEqual(verifyPartial(puzzle, holes), { ok: true }, "a sparse array counts as empty cells");
  assert.equal(violations(verifySolution(puzzle, holes)).filter((v) => v.kind === "empty-cell").length, 25);
});

test("verify - grey inside the board and colour on the rim are reported (bounded puzzle)", () => {
  const { puzzle, board } = brendan("06x06");
  // Swap a border piece (top row) with an inner piece: grey goes inside, colour goes to the rim.
  const border = 2, inner = 2 * 6 + 2;
  const bad = withCells(board, (c) => ([c[border], c[inner]] = [c[inner], c[border]]));
  const r = verifySolution(puzzle, bad);
  const k = kinds(r);
  assert.ok(k.includes("rim-not-grey") && k.includes("grey-inside"), k.join());
  assert.ok(violations(r).some((v) => v.kind === "rim-not-grey" && v.cell === border && v.side === 0));
  assert.ok(violations(r).some((v) => v.kind === "grey-inside" && v.cell === inner));
  // Kinds come in check order.
  assert.ok(k.indexOf("edge-mismatch") < k.indexOf("rim-not-grey") && k.indexOf("rim-not-grey") < k.indexOf("grey-inside"));

  // A partial board: the border piece alone in the middle is wrong even with no neighbours.
  const lonely = withCells({ ...board, cells: new Array(36).fill(null) }, (c) => (c[inner] = board.cells[border]));
  const p = verifyPartial(puzzle, lonely);
  assert.deepEqual(kinds(p), ["grey-inside"]);
  assert.match(violations(p)[0].message, /^cell \(2,2\) has grey on its (north|east|south|west) side, inside the board$/);
});

test("verify - an unbounded puzzle has no rim rule", () => {
  // A 2x2 set without grey: every join matches, the rim colours are arbitrary.
  const puzzle: Puzzle = {
    rows: 2, cols: 2, hints: [],
    pieces: [
      { id: 1, edges: [1, 2, 3, 4] }, { id: 2, edges: [5, 6, 7, 2] },
      { id: 3, edges: [3, 8, 9, 1] }, { id: 4, edges: [7, 1, 2, 8] },
    ],
  };
  const board: Board = { rows: 2, cols: 2, cells: [{ piece: 0, rot: 0 }, { piece: 1, rot: 0 }, { piece: 2, rot: 0 }, { piece: 3, rot: 0 }] };
  assert.deepEqual(verifySolution(puzzle, board), { ok: true });
  assert.equal(scoreBoard(puzzle, board), 4);
});

test("verify - a hint needs the same piece with the same rotation", () => {
  const { puzzle, board } = brendan("06x06");
  const cell = 3 * 6 + 2;
  const c = board.cells[cell]!;
  const good: Puzzle = { ...puzzle, hints: [{ row: 3, col: 2, piece: c.piece, rot: c.rot }] };
  assert.deepEqual(verifySolution(good, board), { ok: true });
  const wrongRot: Puzzle = { ...puzzle, hints: [{ row: 3, col: 2, piece: c.piece, rot: (c.rot + 2) % 4 }] };
  const r = verifySolution(wrongRot, board);
  assert.deepEqual(kinds(r), ["hint-violated"]);
  const v = violations(r)[0];
  assert.ok(v.kind === "hint-violated" && v.cell === cell);
  const id = puzzle.pieces[c.piece].id;
  assert.equal(v.message, `hint cell (3,2) holds piece ${id} rot ${c.rot}, wants piece ${id} rot ${(c.rot + 2) % 4}`);
  const other = board.cells[cell + 1]!;
  const wrongPiece: Puzzle = { ...puzzle, hints: [{ row: 3, col: 2, piece: other.piece, rot: other.rot }] };
  assert.deepEqual(kinds(verifySolution(wrongPiece, board)), ["hint-violated"]);
  // Partial boards: an empty hint cell is allowed, a wrong piece there is not.
  const partial = withCells(board, (cells) => (cells[cell] = null));
  assert.deepEqual(verifyPartial(wrongRot, partial), { ok: true });
  assert.deepEqual(kinds(verifyPartial(wrongRot, board)), ["hint-violated"]);
});

test("verify - a board of the wrong size is reported alone", () => {
  const { puzzle } = brendan("05x05");
  const { board } = brendan("04x04");
  const r = verifySolution(puzzle, board);
  assert.equal(violations(r).length, 1);
  const v = violations(r)[0];
  assert.ok(v.kind === "size-mismatch");
  assert.deepEqual(v.expected, { rows: 5, cols: 5, cells: 25 });
  assert.deepEqual(v.actual, { rows: 4, cols: 4, cells: 16 });
  assert.equal(v.message, "board is 4x4 with 16 cells, the puzzle is 5x5 (25 cells)");
  const short: Board = { rows: 5, cols: 5, cells: board.cells };
  assert.deepEqual(kinds(verifyPartial(puzzle, short)), ["size-mismatch"]);
  assert.throws(() => scoreBoard(puzzle, board), InvalidOptionError);
});

test("verify - rotation 4 and a piece index out of range are reported", () => {
  const { puzzle, board } = brendan("04x04");
  const c5 = board.cells[5]!;
  const rot4 = withCells(board, (c) => (c[5] = { piece: c5.piece, rot: 4 }));
  const r = verifySolution(puzzle, rot4);
  assert.equal(violations(r)[0].kind, "rot-out-of-range");
  assert.equal(violations(r)[0].message, "cell (1,1) has rotation 4, outside 0..3");
  assert.ok(violations(r).every((v) => v.kind === "rot-out-of-range"), "the bad cell's edges are not judged");
  const neg = withCells(board, (c) => (c[5] = { piece: c5.piece, rot: -1 }));
  assert.deepEqual(kinds(verifySolution(puzzle, neg)), ["rot-out-of-range"]);

  const range = withCells(board, (c) => (c[5] = { piece: 16, rot: 0 }));
  const q = verifySolution(puzzle, range);
  assert.deepEqual(kinds(q), ["piece-out-of-range", "missing-piece"]);
  assert.equal(violations(q)[0].message, "cell (1,1) holds piece index 16, outside 0..15");
  assert.deepEqual(kinds(verifyPartial(puzzle, range)), ["piece-out-of-range"]);
});

test("verify - cells are named (row,col) from the top-left", () => {
  assert.equal(cellName({ cols: 16 }, 135), "(8,7)");
  assert.equal(innerEdgeCount({ rows: 16, cols: 16 }), 480);
  assert.equal(innerEdgeCount({ rows: 6, cols: 12 }), 126);
});

test("verify - the 19 Eternity II reference boards are permutations with a grey rim and their stated scores", () => {
  const puzzle = e2Puzzle();
  const hints = e2Hints();
  assert.equal(hints.length, 5);
  const boards = e2ReferenceBoards();
  assert.equal(boards.length, 19);
  for (const ref of boards) {
    const score = scoreBoard(puzzle, ref.board);
    assert.equal(score, ref.score, ref.name);
    const r = verifySolution(puzzle, ref.board);
    assert.deepEqual(kinds(r), ["edge-mismatch"], ref.name);
    assert.equal(violations(r).length, 480 - ref.score, ref.name);
    // With the official hints: only the unrespected hints are added.
    const withHints: Puzzle = { ...puzzle, hints };
    const h = violations(verifySolution(withHints, ref.board)).filter((v) => v.kind === "hint-violated");
    assert.equal(h.length, 5 - ref.hintsRespected, ref.name);
    assert.ok(!h.some((v) => v.kind === "hint-violated" && v.hint.piece === 138), `${ref.name}: starter 139 at I8 rot 2`);
  }
});

test("verify - a wrong rotation convention would not reproduce the Eternity II scores", () => {
  // Counter-clockwise turns (placed[d] = listed[(d + rot) mod 4]) on the same boards: scores collapse.
  const puzzle = e2Puzzle();
  const [first] = e2ReferenceBoards();
  const flipped = withCells(first.board, (cells) => {
    for (let i = 0; i < cells.length; i++) cells[i] = { piece: cells[i]!.piece, rot: (4 - cells[i]!.rot) % 4 };
  });
  assert.ok(scoreBoard(puzzle, flipped) < first.score - 100);
});
