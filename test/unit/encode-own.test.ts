import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import { parseE2Hints, parsePuzzle, withHints } from "../../core/formats/index.js";
import { generatePuzzle, shufflePuzzle } from "../../core/generate.js";
import { rotateEdges, type Board, type Edges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { InvalidOptionError } from "../../core/errors.js";
import { ClauseBuffer, DEFAULT_ENCODING, encode, type EncodeOptions } from "../../core/encode/index.js";
import { addPairwiseAmo, addSequentialAtMost } from "../../core/encode/cardinality.js";
import { clausesOf, completeAssignment, dpll, falsified, fittingBoards, shown } from "../helpers/formula-check.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");
const NAME = "cubist-placement";

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

const OPTION_SETS: EncodeOptions[] = [
  {},
  { identical: "copies", pieceAmo: "sequential" },
  { identical: "ordered", order: "spiral" },
  { identical: "merged", order: "paper" },
  { identical: "merged", pieceAmo: "sequential", reverseOrder: true, cornerPairs: true },
  { support: false, cornerPairs: true, order: "column-major" },
];

test("cardinality - at most k of n: the sequential counter admits exactly the assignments with at most k true", () => {
  for (let n = 1; n <= 6; n++) {
    for (let k = 1; k <= 3; k++) {
      const cb = new ClauseBuffer(64);
      let next = n + 1;
      const xs = Array.from({ length: n }, (_, i) => i + 1);
      addSequentialAtMost(cb, xs, k, () => next++);
      const clauses: number[][] = [];
      cb.forEach((c) => clauses.push(Array.from(c)));
      for (let mask = 0; mask < 1 << n; mask++) {
        const units = xs.map((x, i) => ((mask >> i) & 1 ? x : -x));
        const ones = units.filter((u) => u > 0).length;
        assert.equal(dpll(next - 1, clauses, units) !== null, ones <= k, `n=${n} k=${k} mask=${mask}`);
      }
    }
  }
  const cb = new ClauseBuffer(64);
  addPairwiseAmo(cb, [1, 2, 3, 4]);
  assert.equal(cb.count, 6);
});

test("cubist-placement - is the default encoding", () => {
  assert.equal(DEFAULT_ENCODING, NAME);
});

test("cubist-placement - a 2x2 puzzle: one placement per corner piece and cell, and the section sizes", () => {
  // Four different corner pieces with border colours 1..3.
  const pieces: Edges[] = [[0, 1, 2, 0], [0, 0, 2, 3], [1, 0, 0, 3], [3, 2, 0, 0]];
  const puzzle: Puzzle = { rows: 2, cols: 2, pieces: pieces.map((edges, i) => ({ id: i + 1, edges })), hints: [] };
  const f = encode(NAME, puzzle);
  const colours = 3, diamonds = 4;
  assert.equal(f.numVars, 16 + diamonds * colours, "16 placements (= x), 4 diamonds x 3 colours");
  assert.deepEqual(f.sections, {
    cells: 4, // at-least-one per cell; no two pieces show the same colours
    pieces: 4 + 4 * 6, // at-least-one + pairwise at-most-one over the four corners
    colours: diamonds * (1 + 3),
    match: 16 * 2,
    support: diamonds * 2 * colours,
    symmetry: 0,
    cornerPairs: 0,
    hints: 0,
  });
  assert.equal(Object.values(f.sections).reduce((a, b) => a + b, 0), f.clauses.count);
  assert.equal(f.encoding, NAME);
});

test("cubist-placement - rotationally symmetric centre pieces get one placement per distinct orientation", () => {
  // Unbounded 2x2: ABAB has 2 orientations, AAAA one, ABCD four.
  const pieces: Edges[] = [[1, 2, 1, 2], [1, 1, 1, 1], [1, 2, 3, 4], [2, 2, 2, 2]];
  const puzzle: Puzzle = { rows: 2, cols: 2, pieces: pieces.map((edges, i) => ({ id: i + 1, edges })), hints: [] };
  const f = encode(NAME, puzzle);
  const p = new Set<number>();
  const x = new Set<number>();
  for (let v = 1; v <= f.numVars; v++) {
    const d = f.varMap.describe(v);
    if (d.startsWith("p(")) p.add(v);
    if (d.startsWith("x(")) x.add(v);
  }
  assert.equal(p.size, 4 * (2 + 1 + 4 + 1));
  assert.equal(x.size, 4 * 2, "a separate x only for the pieces with several orientations");
  // Both ABAB rotations that show the same edges name the same placement.
  assert.deepEqual(f.varMap.placementLiterals({ cell: 0, piece: 0, rot: 1 }), f.varMap.placementLiterals({ cell: 0, piece: 0, rot: 3 }));
  assert.equal(f.varMap.placementLiterals({ cell: 3, piece: 1, rot: 2 }).length, 1 + 2, "p and the two inner diamonds");
});

test("cubist-placement - every fitting board of tiny puzzles: its placement units are satisfiable iff it is a solution", () => {
  const puzzles: Puzzle[] = [
    generatePuzzle({ rows: 2, cols: 2, borderColors: 2, centerColors: 1, seed: 5 }).puzzle,
    generatePuzzle({ rows: 2, cols: 3, borderColors: 2, centerColors: 2, seed: 6 }).puzzle,
    generatePuzzle({ rows: 3, cols: 3, borderColors: 2, centerColors: 2, seed: 7 }).puzzle,
    generatePuzzle({ rows: 2, cols: 2, centerColors: 2, seed: 8, unbounded: true }).puzzle,
  ];
  let twinsSeen = 0;
  for (const puzzle of puzzles) {
    const solutions = new Set<string>();
    for (const options of OPTION_SETS) {
      const f = encode(NAME, puzzle, options);
      const clauses = clausesOf(f);
      const satShown = new Set<string>();
      const solShown = new Set<string>();
      let boards = 0;
      for (const board of fittingBoards(puzzle, f)) {
        boards++;
        const units = board.cells.flatMap((c, cell) => f.varMap.placementLiterals({ cell, piece: c!.piece, rot: c!.rot }));
        const ok = verifySolution(puzzle, board).ok;
        const model = dpll(f.numVars, clauses, units);
        if (ok) solShown.add(shown(puzzle, board));
        if (model) {
          assert.ok(ok, `${puzzle.name} ${JSON.stringify(options)}: a non-solution is satisfiable`);
          satShown.add(shown(puzzle, board));
          const decoded = f.varMap.decode((v) => model[v] === 1);
          assert.ok(verifySolution(puzzle, decoded).ok);
          assert.equal(shown(puzzle, decoded), shown(puzzle, board));
        }
        // Copies and merged units accept every solution; ordered ones only the copies in increasing cells.
        if (options.identical !== "ordered") {
          assert.equal(model !== null, ok, `${puzzle.name} ${JSON.stringify(options)}: a solution is unsatisfiable`);
        }
      }
      assert.ok(boards > 0);
      // Up to identical-piece swaps, the satisfiable boards are the solutions.
      assert.deepEqual(satShown, solShown, `${puzzle.name} ${JSON.stringify(options)}`);
      assert.ok(solShown.size > 0, `${puzzle.name} has a solution`);
      for (const s of solShown) solutions.add(s);
      // And a model of the whole formula decodes to a solution.
      const any = dpll(f.numVars, clauses);
      assert.ok(any);
      assert.ok(solutions.has(shown(puzzle, f.varMap.decode((v) => any[v] === 1))));
    }
    const counts = new Map<string, number>();
    for (const p of puzzle.pieces) {
      const key = [0, 1, 2, 3].map((r) => rotateEdges(p.edges, r).join(",")).sort()[0];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    if ([...counts.values()].some((c) => c > 1)) twinsSeen++;
  }
  assert.ok(twinsSeen >= 2, "the tiny puzzles include identical pieces");
});

test("cubist-placement - the brendan 4x4, 5x5, 6x6 solutions satisfy every clause under every option set", () => {
  for (const size of ["04x04", "05x05", "06x06"]) {
    const { puzzle, board } = brendan(size);
    for (const options of OPTION_SETS) {
      const f = encode(NAME, puzzle, options);
      const value = completeAssignment(f, board);
      assert.ok(value, `${size} ${JSON.stringify(options)}: propagation conflicts`);
      assert.equal(falsified(f, value), undefined, `${size} ${JSON.stringify(options)}`);
      // Round trip: the assignment decodes to the same board (up to equal orientations).
      const decoded = f.varMap.decode((v) => value[v] === 1);
      assert.ok(verifySolution(puzzle, decoded).ok);
      assert.equal(shown(puzzle, decoded), shown(puzzle, board));
    }
  }
});

test("cubist-placement - merged identical pieces decode to distinct copies, hinted copies on their hint cells", () => {
  const { puzzle, solution } = generatePuzzle({ rows: 4, cols: 5, borderColors: 1, centerColors: 1, seed: 3 });
  // One border colour and one centre colour: all border pieces are identical, all centre pieces too.
  const last = solution.cells.length - 2;
  const hinted: Puzzle = { ...puzzle, hints: [{ row: Math.floor(last / 5), col: last % 5, ...solution.cells[last]! }] };
  for (const identical of ["merged", "ordered"] as const) {
    const f = encode(NAME, hinted, { identical });
    const model = dpll(f.numVars, clausesOf(f));
    assert.ok(model, identical);
    const board = f.varMap.decode((v) => model[v] === 1);
    const verdict = verifySolution(hinted, board);
    assert.ok(verdict.ok, `${identical}: ${verdict.ok ? "" : verdict.violations[0].message}`);
    assert.equal(board.cells[last]!.piece, solution.cells[last]!.piece);
  }
  // Merged has fewer placement variables than copies.
  assert.ok(encode(NAME, puzzle, { identical: "merged" }).numVars < encode(NAME, puzzle, { identical: "copies" }).numVars);
});

test("cubist-placement - the ordered mode puts identical copies on increasing cells", () => {
  const { puzzle } = generatePuzzle({ rows: 3, cols: 4, borderColors: 1, centerColors: 1, seed: 4 });
  const f = encode(NAME, puzzle, { identical: "ordered" });
  assert.ok(f.sections.symmetry > 0);
  const model = dpll(f.numVars, clausesOf(f));
  assert.ok(model);
  const board = f.varMap.decode((v) => model[v] === 1);
  const cellOf = new Map<number, number>();
  board.cells.forEach((c, cell) => cellOf.set(c!.piece, cell));
  // All corner pieces are identical here: their cells increase with the piece index.
  const corners = puzzle.pieces.map((p, i) => [p, i] as const).filter(([p]) => p.edges.filter((c) => c === 0).length === 2).map(([, i]) => i);
  const cells = corners.map((i) => cellOf.get(i)!);
  assert.deepEqual(cells, [...cells].sort((a, b) => a - b));
});

test("cubist-placement - hints become unit clauses; placement literals are p, x and the inner colours", () => {
  const { puzzle, board } = brendan("05x05");
  const cells = [0, 1, 6];
  const hinted: Puzzle = {
    ...puzzle,
    hints: cells.map((cell) => ({ row: Math.floor(cell / 5), col: cell % 5, piece: board.cells[cell]!.piece, rot: board.cells[cell]!.rot })),
  };
  const f = encode(NAME, hinted);
  const lits = cells.map((cell) => f.varMap.placementLiterals({ cell, ...board.cells[cell]! }));
  // Corner: p (= x) + 2 colours; border: p + 3; centre: p + x + 4 (or p + 4 for a fully symmetric piece).
  assert.equal(lits[0].length, 3);
  assert.equal(lits[1].length, 4);
  assert.ok(lits[2].length === 6 || lits[2].length === 5);
  assert.match(f.varMap.describe(lits[2][0]), /^p\(piece \d+ rot \d, cell \(1,1\)\)$/);
  const distinct = new Set(lits.flat());
  assert.equal(f.sections.hints, distinct.size, "shared diamonds are written once");
  const units: number[] = [];
  f.clauses.forEach((c) => { if (c.length === 1) units.push(c[0]); });
  for (const l of distinct) assert.ok(units.includes(l));
  const value = completeAssignment(f, board);
  assert.ok(value && falsified(f, value) === undefined);
});

test("cubist-placement - placementLiterals rejects wrong classes, grey off the rim and bad values", () => {
  const { puzzle, board } = brendan("04x04");
  const f = encode(NAME, puzzle);
  const corner = board.cells[0]!;
  const centrePiece = board.cells[5]!.piece;
  const bad: Placement[] = [
    { cell: 5, piece: corner.piece, rot: 0 },
    { cell: 0, piece: centrePiece, rot: 0 },
    { cell: 0, piece: corner.piece, rot: (corner.rot + 1) & 3 },
    { cell: 16, piece: 0, rot: 0 },
    { cell: 0, piece: 0, rot: 4 },
    { cell: 0, piece: 99, rot: 0 },
  ];
  for (const p of bad) assert.throws(() => f.varMap.placementLiterals(p), InvalidOptionError, JSON.stringify(p));
});

test("cubist-placement - unknown option values are InvalidOptionError; sections sum to the clause count", () => {
  const { puzzle } = brendan("04x04");
  assert.throws(() => encode(NAME, puzzle, { identical: "twins" as never }), InvalidOptionError);
  assert.throws(() => encode(NAME, puzzle, { pieceAmo: "ladder" as never }), InvalidOptionError);
  assert.throws(() => encode(NAME, puzzle, { support: "yes" as never }), InvalidOptionError);
  assert.throws(() => encode(NAME, puzzle, { order: "zigzag" as never }), InvalidOptionError);
  for (const options of OPTION_SETS) {
    const f = encode(NAME, puzzle, options);
    assert.equal(Object.values(f.sections).reduce((a, b) => a + b, 0), f.clauses.count, JSON.stringify(options));
  }
  // Every variable has its own description.
  const f = encode(NAME, puzzle, { pieceAmo: "sequential" });
  const seen = new Set<string>();
  for (let v = 1; v <= f.numVars; v++) seen.add(f.varMap.describe(v));
  assert.equal(seen.size, f.numVars);
});

test("cubist-placement - the numbering orders give the same formula up to renaming", () => {
  const { puzzle } = shufflePuzzle(brendan("05x05").puzzle, 7);
  const base = encode(NAME, puzzle, { order: "row-major" });
  for (const order of ["paper", "spiral", "column-major", "diagonal"] as const) {
    for (const reverseOrder of [false, true]) {
      const f = encode(NAME, puzzle, { order, reverseOrder });
      assert.equal(f.numVars, base.numVars);
      assert.deepEqual(f.sections, base.sections);
    }
  }
  // Row-major numbers cell (0,0) first: its placements come before everything else.
  assert.match(base.varMap.describe(1), /cell \(0,0\)\)$/);
  // Reversed, it comes last among the main variables (the counters' auxiliaries follow them).
  const reversed = encode(NAME, puzzle, { order: "row-major", reverseOrder: true, pieceAmo: "pairwise" });
  assert.equal(reversed.numVars, encode(NAME, puzzle, { order: "row-major", pieceAmo: "pairwise" }).numVars);
  assert.match(reversed.varMap.describe(reversed.numVars), /cell \(0,0\)\)$/);
});

test("cubist-placement - Eternity II with its five hints: hint units are the placements' literals", () => {
  const pieces = parsePuzzle(fixture("eternity2/e2_pieces.txt"), "e2_pieces.txt");
  const puzzle = withHints(pieces, parseE2Hints(fixture("eternity2/e2_hints.txt"), "e2_hints.txt", pieces));
  const f = encode(NAME, puzzle);
  assert.equal(f.sections.hints, 5 * 6, "p, x and four colours per hint; the hints share no diamond");
  for (const h of puzzle.hints) {
    const lits = f.varMap.placementLiterals({ cell: h.row * 16 + h.col, piece: h.piece, rot: h.rot });
    assert.equal(f.varMap.describe(lits[0]), `p(piece ${puzzle.pieces[h.piece].id} rot ${h.rot}, cell (${h.row},${h.col}))`);
  }
});
