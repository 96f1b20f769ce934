import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import { parseE2Hints, parsePuzzle, withHints } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { rotateEdges, type Board, type Edges, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { InvalidOptionError, InvalidPuzzleError } from "../../core/errors.js";
import {
  cellOrder,
  encode,
  encodingNames,
  variableOrders,
  ClauseBuffer,
  type EncodeOptions,
  type Formula,
} from "../../core/encode/index.js";
import { addCentreClauses, centrePattern, CLAUSES_PER_TYPE } from "../../core/encode/center-types.js";

/** The paper's encodings; their variables are all determined by the placements (cubist-placement has counter
 * variables too, and is covered by encode-own.test.ts). */
const HEULE_ENCODINGS = encodingNames.filter((n) => n.startsWith("heule-"));

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

/** The assignment of a complete board: the placement literals of every cell true, everything else false. */
function assignmentOf(formula: Formula, board: Board): Set<number> {
  const trueVars = new Set<number>();
  board.cells.forEach((c, cell) => {
    assert.ok(c, `cell ${cell} is empty`);
    for (const lit of formula.varMap.placementLiterals({ cell, piece: c.piece, rot: c.rot })) {
      assert.ok(lit > 0, "placement literals of a solution are positive");
      trueVars.add(lit);
    }
  });
  return trueVars;
}

/** The first clause the assignment falsifies, described, or undefined when all are satisfied. */
function firstFalsified(formula: Formula, trueVars: Set<number>): string | undefined {
  let bad: string | undefined;
  formula.clauses.forEach((lits) => {
    if (bad !== undefined) return;
    for (const l of lits) if (l > 0 ? trueVars.has(l) : !trueVars.has(-l)) return;
    bad = Array.from(lits, (l) => (l < 0 ? "¬" : "") + formula.varMap.describe(Math.abs(l))).join(" ∨ ") || "(empty clause)";
  });
  return bad;
}

const SHAPES: Record<number, Edges> = {
  1: [0, 0, 0, 0],
  2: [0, 0, 1, 0],
  3: [0, 0, 1, 1],
  4: [0, 1, 0, 1],
  5: [0, 0, 1, 2],
  6: [0, 1, 0, 2],
  7: [0, 1, 2, 3],
};

test("centre types - each of the seven types is recognised in every rotation", () => {
  for (const [type, shape] of Object.entries(SHAPES)) {
    for (let r = 0; r < 4; r++) assert.equal(centrePattern(rotateEdges(shape, r) as [number, number, number, number]).type, Number(type));
  }
});

test("centre types - the clauses hold exactly when the four diamonds show a rotation of the piece", () => {
  // x = 1; diamond j has colours 0..K-1 as variables 2 + j*K + c. One extra colour the piece lacks.
  for (const [type, shape] of Object.entries(SHAPES)) {
    for (let r = 0; r < 4; r++) {
      const edges = rotateEdges(shape, r);
      const K = new Set(edges).size + 1;
      const cb = new ClauseBuffer(64);
      const y = Int32Array.from([0, 1, 2, 3], (j) => 2 + j * K);
      const added = addCentreClauses(cb, 1, y, centrePattern(edges as [number, number, number, number]));
      assert.equal(added, CLAUSES_PER_TYPE[Number(type)]);
      assert.equal(cb.count, added);
      const rotations = new Set([0, 1, 2, 3].map((t) => rotateEdges(edges, t).join(",")));
      for (let code = 0; code < K ** 4; code++) {
        const colours = [code % K, Math.floor(code / K) % K, Math.floor(code / K ** 2) % K, Math.floor(code / K ** 3)];
        const value = (v: number): boolean => v === 1 || (v >= 2 && colours[Math.floor((v - 2) / K)] === (v - 2) % K);
        let sat = true;
        cb.forEach((lits) => {
          if (!Array.from(lits).some((l) => (l > 0 ? value(l) : !value(-l)))) sat = false;
        });
        assert.equal(sat, rotations.has(colours.join(",")), `type ${type} ${edges.join("")} diamonds ${colours.join("")}`);
      }
    }
  }
});

const OPTION_SETS: EncodeOptions[] = [
  {},
  { order: "spiral", cornerPairs: true },
  { order: "row-major" },
  { order: "column-major", cornerPairs: true },
  { order: "diagonal" },
];

test("heule encodings - the planted solutions of the brendan 4x4, 5x5, 6x6 puzzles satisfy every clause", () => {
  for (const size of ["04x04", "05x05", "06x06"]) {
    const { puzzle, board } = brendan(size);
    assert.ok(verifySolution(puzzle, board).ok);
    for (const name of HEULE_ENCODINGS) {
      for (const options of OPTION_SETS) {
        const f = encode(name, puzzle, options);
        const trueVars = assignmentOf(f, board);
        assert.equal(firstFalsified(f, trueVars), undefined, `${size} ${name} ${JSON.stringify(options)}`);
      }
    }
  }
});

test("heule encodings - decoding the solution's assignment gives back a valid board with the same pieces", () => {
  for (const size of ["04x04", "05x05", "06x06", "08x08"]) {
    const { puzzle, board } = brendan(size);
    for (const options of OPTION_SETS) {
      const f = encode("heule-compact", puzzle, options);
      const trueVars = assignmentOf(f, board);
      const decoded = f.varMap.decode((v) => trueVars.has(v));
      assert.ok(verifySolution(puzzle, decoded).ok, `${size} ${JSON.stringify(options)}`);
      decoded.cells.forEach((c, cell) => {
        const want = board.cells[cell]!;
        assert.equal(c!.piece, want.piece);
        // A rotationally symmetric piece may decode to another rotation showing the same edges.
        assert.deepEqual(rotateEdges(puzzle.pieces[c!.piece].edges, c!.rot), rotateEdges(puzzle.pieces[want.piece].edges, want.rot));
      });
    }
  }
});

test("heule encodings - unbounded and rectangular generated puzzles: planted solution satisfies, decodes back", () => {
  const cases = [
    { rows: 3, cols: 3, centerColors: 3, seed: 1, unbounded: true },
    { rows: 3, cols: 5, centerColors: 4, seed: 2, unbounded: true },
    { rows: 3, cols: 5, borderColors: 2, centerColors: 3, seed: 3 },
    { rows: 4, cols: 7, borderColors: 3, centerColors: 2, seed: 4 },
    { rows: 2, cols: 2, borderColors: 2, centerColors: 1, seed: 5 },
    { rows: 2, cols: 5, borderColors: 2, centerColors: 2, seed: 6 },
  ];
  for (const c of cases) {
    const { puzzle, solution } = generatePuzzle(c);
    for (const name of HEULE_ENCODINGS) {
      for (const options of OPTION_SETS) {
        const f = encode(name, puzzle, options);
        const trueVars = assignmentOf(f, solution);
        assert.equal(firstFalsified(f, trueVars), undefined, `${puzzle.name} ${name} ${JSON.stringify(options)}`);
        assert.ok(verifySolution(puzzle, f.varMap.decode((v) => trueVars.has(v))).ok);
      }
    }
  }
});

test("heule encodings - unbounded puzzles get one rim diamond per outer side, every cell a centre cell", () => {
  const { puzzle } = generatePuzzle({ rows: 3, cols: 4, centerColors: 3, seed: 9, unbounded: true });
  const colours = new Set(puzzle.pieces.flatMap((p) => p.edges)).size;
  const f = encode("heule-compact", puzzle);
  const inner = 3 * 3 + 4 * 2;
  const rim = 2 * (3 + 4);
  assert.equal(f.numVars, 12 * 12 + (inner + rim) * colours);
  const ex = encode("heule-explicit", puzzle);
  assert.equal(ex.sections.explicit, 12 * (12 * 11) / 2);
});

test("heule encodings - the variable count and section sizes do not depend on the order", () => {
  const { puzzle } = brendan("06x06");
  const base = encode("heule-all", puzzle, { cornerPairs: true });
  for (const order of variableOrders) {
    const f = encode("heule-all", puzzle, { order, cornerPairs: true });
    assert.equal(f.numVars, base.numVars, order);
    assert.deepEqual(f.sections, base.sections, order);
    const described = new Set<string>();
    for (let v = 1; v <= f.numVars; v++) described.add(f.varMap.describe(v));
    assert.equal(described.size, f.numVars, `${order}: every variable has its own description`);
  }
});

test("heule encodings - sections sum to the clause count and absent sections are 0", () => {
  const { puzzle } = brendan("05x05");
  const compact = encode("heule-compact", puzzle);
  const all = encode("heule-all", puzzle, { cornerPairs: true });
  for (const f of [compact, all]) {
    const sum = Object.values(f.sections).reduce((a, b) => a + b, 0);
    assert.equal(sum, f.clauses.count);
  }
  assert.deepEqual(
    { fb: compact.sections.fbcolors, ex: compact.sections.explicit, cp: compact.sections.cornerPairs, h: compact.sections.hints },
    { fb: 0, ex: 0, cp: 0, h: 0 },
  );
  assert.equal(all.sections.compact, compact.sections.compact);
  assert.ok(all.sections.fbcolors > 0 && all.sections.explicit > 0 && all.sections.cornerPairs > 0);
  assert.equal(encode("heule-fbcolors", puzzle).sections.fbcolors, all.sections.fbcolors);
  assert.equal(encode("heule-explicit", puzzle).sections.explicit, all.sections.explicit);
});

test("heule encodings - the paper numbering puts x variables piece by piece, then diamonds in Figure 2 order", () => {
  const { puzzle } = brendan("04x04");
  const f = encode("heule-compact", puzzle);
  // Piece 0 is a corner piece: its x variables are 1..4 on the corners TL, TR, BL, BR.
  const corners = [0, 3, 12, 15];
  const cornerPiece = puzzle.pieces.findIndex((p) => p.edges.filter((c) => c === 0).length === 2);
  assert.equal(cornerPiece, 0);
  corners.forEach((cell, i) => assert.equal(f.varMap.describe(i + 1), `x(piece 1, cell (${Math.floor(cell / 4)},${cell % 4}))`));
  // The first y variable is diamond 0, between (0,0) and (0,1).
  const xCount = 4 * 4 + 8 * 8 + 4 * 4;
  assert.match(f.varMap.describe(xCount + 1), /^y\(diamond 0 \(0,0\)\|\(0,1\), colour \d+\)$/);
});

test("heule encodings - hints become unit clauses of the placement literals, each literal once", () => {
  const { puzzle, board } = brendan("05x05");
  const hinted: Puzzle = {
    ...puzzle,
    hints: [0, 1, 6].map((cell) => ({ row: Math.floor(cell / 5), col: cell % 5, piece: board.cells[cell]!.piece, rot: board.cells[cell]!.rot })),
  };
  const f = encode("heule-compact", hinted);
  const base = encode("heule-compact", puzzle);
  const lits = new Set([0, 1, 6].flatMap((cell) => f.varMap.placementLiterals({ cell, ...board.cells[cell]! })));
  // (0,0)-(0,1) and (0,1)-(1,1) are shared diamonds: their colour units appear once.
  assert.equal(lits.size, 3 + 2 + 3 + 4 - 2);
  assert.equal(f.sections.hints, lits.size);
  assert.equal(f.clauses.count, base.clauses.count + lits.size);
  const units: number[] = [];
  f.clauses.forEach((c) => { if (c.length === 1) units.push(c[0]); });
  assert.deepEqual(new Set(units), lits);
  assert.equal(firstFalsified(f, assignmentOf(f, board)), undefined);
});

test("heule encodings - Eternity II with its five hints: 25 hint units with the placed colours of e2_hints.txt", () => {
  const pieces = parsePuzzle(fixture("eternity2/e2_pieces.txt"), "e2_pieces.txt");
  const text = fixture("eternity2/e2_hints.txt");
  const puzzle = withHints(pieces, parseE2Hints(text, "e2_hints.txt", pieces));
  const f = encode("heule-compact", puzzle);
  assert.equal(f.sections.hints, 5 * 5);
  const placed = text.split("\n").filter((l) => /^\d/.test(l)).map((l) => l.split(/\s+/).slice(6, 10).map(Number));
  puzzle.hints.forEach((h, i) => {
    const lits = f.varMap.placementLiterals({ cell: h.row * 16 + h.col, piece: h.piece, rot: h.rot });
    assert.equal(f.varMap.describe(lits[0]), `x(piece ${puzzle.pieces[h.piece].id}, cell (${h.row},${h.col}))`);
    const colours = lits.slice(1).map((l) => Number(/colour (\d+)\)$/.exec(f.varMap.describe(l))![1]));
    assert.deepEqual(colours, placed[i]);
  });
});

test("heule encodings - placementLiterals rejects pieces on the wrong class of cell and grey off the rim", () => {
  const { puzzle, board } = brendan("04x04");
  const f = encode("heule-all", puzzle);
  const corner = board.cells[0]!;
  const centrePiece = board.cells[5]!.piece;
  assert.throws(() => f.varMap.placementLiterals({ cell: 5, piece: corner.piece, rot: 0 }), InvalidOptionError);
  assert.throws(() => f.varMap.placementLiterals({ cell: 0, piece: centrePiece, rot: 0 }), InvalidOptionError);
  assert.throws(() => f.varMap.placementLiterals({ cell: 0, piece: corner.piece, rot: (corner.rot + 1) & 3 }), /rim|cannot have/);
  assert.throws(() => f.varMap.placementLiterals({ cell: 16, piece: 0, rot: 0 }), InvalidOptionError);
  assert.throws(() => f.varMap.placementLiterals({ cell: 0, piece: 0, rot: 4 }), InvalidOptionError);
  assert.equal(f.varMap.placementLiterals({ cell: 0, ...corner }).length, 3);
  assert.equal(f.varMap.placementLiterals({ cell: 1, ...board.cells[1]! }).length, 4);
  assert.equal(f.varMap.placementLiterals({ cell: 5, ...board.cells[5]! }).length, 5);
});

test("heule encodings - decode leaves cells without a true x variable empty", () => {
  const { puzzle } = brendan("04x04");
  const f = encode("heule-compact", puzzle);
  const decoded = f.varMap.decode(() => false);
  assert.equal(decoded.cells.length, 16);
  assert.ok(decoded.cells.every((c) => c === null));
});

test("corner pairs - blocks exactly the clockwise colour pairs no centre piece has", () => {
  // 3x3 unbounded, all pieces the same ABCD: the only clockwise corners are AB, BC, CD, DA.
  const piece: Edges = [1, 2, 3, 4];
  const puzzle: Puzzle = { rows: 3, cols: 3, pieces: Array.from({ length: 9 }, (_, i) => ({ id: i + 1, edges: piece })), hints: [] };
  const f = encode("heule-compact", puzzle, { cornerPairs: true });
  // 9 cells x 4 corners x (16 pairs - 4 allowed).
  assert.equal(f.sections.cornerPairs, 9 * 4 * 12);
  // Every corner pair clause is binary and negative.
  let pairs = 0;
  const tail: Int32Array[] = [];
  f.clauses.forEach((c) => tail.push(c.slice()));
  for (const c of tail.slice(f.clauses.count - f.sections.cornerPairs)) {
    assert.equal(c.length, 2);
    assert.ok(c[0] < 0 && c[1] < 0);
    pairs++;
    const m = [f.varMap.describe(-c[0]), f.varMap.describe(-c[1])].map((s) => Number(/colour (\d+)\)$/.exec(s)![1]));
    assert.ok(!["1,2", "2,3", "3,4", "4,1"].includes(m.join(",")), `allowed pair ${m} blocked`);
  }
  assert.equal(pairs, f.sections.cornerPairs);
});

test("corner pairs - a bounded board's corner and border cells use their own catalogues", () => {
  const { puzzle, board } = brendan("05x05");
  const f = encode("heule-compact", puzzle, { cornerPairs: true });
  assert.ok(f.sections.cornerPairs > 0);
  assert.equal(firstFalsified(f, assignmentOf(f, board)), undefined);
});

test("cell orders - each is a permutation; spiral runs from the centre to the rim", () => {
  for (const [rows, cols] of [[4, 4], [5, 5], [6, 12], [3, 7]]) {
    for (const name of ["row-major", "column-major", "diagonal", "spiral"] as const) {
      const order = cellOrder(name, rows, cols);
      assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: rows * cols }, (_, i) => i));
    }
  }
  assert.deepEqual(cellOrder("spiral", 4, 4).slice(0, 4), [6, 10, 9, 5]);
  assert.equal(cellOrder("spiral", 5, 5)[0], 12);
  const last = cellOrder("spiral", 6, 6).slice(-20);
  assert.ok(last.every((c) => c < 6 || c >= 30 || c % 6 === 0 || c % 6 === 5), "the rim comes last");
  assert.deepEqual(cellOrder("column-major", 2, 3), [0, 3, 1, 4, 2, 5]);
  assert.deepEqual(cellOrder("diagonal", 2, 3), [0, 1, 3, 2, 4, 5]);
});

test("encode options - unknown names and values are InvalidOptionError", () => {
  const { puzzle } = brendan("04x04");
  assert.throws(() => encode("heule-nothing", puzzle), InvalidOptionError);
  assert.throws(() => encode("heule-all", puzzle, { order: "zigzag" as never }), InvalidOptionError);
  assert.throws(() => encode("heule-all", puzzle, { cornerPairs: "yes" as never }), InvalidOptionError);
});

test("heule encodings - a puzzle whose pieces do not fit the classes is InvalidPuzzleError", () => {
  const { puzzle } = brendan("04x04");
  const noCorner: Puzzle = { ...puzzle, pieces: puzzle.pieces.map((p, i) => (i === 0 ? { ...p, edges: [0, 5, 5, 5] as Edges } : p)) };
  assert.throws(() => encode("heule-compact", noCorner), InvalidPuzzleError);
  const offBoard: Puzzle = { ...puzzle, hints: [{ row: 0, col: 4, piece: 0, rot: 0 }] };
  assert.throws(() => encode("heule-compact", offBoard), InvalidPuzzleError);
});
