import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import { generatePuzzle, shufflePuzzle } from "../../core/generate.js";
import { rotateEdges, type Board, type Edges, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { dimacsChunks, encode, type EncodeOptions, type Formula } from "../../core/encode/index.js";
import { runSolver } from "../../host/solver/index.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");
const NAME = "cubist-placement";

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

type Result = { sat: true; value: (v: number) => boolean } | { sat: false };

/** Real kissat on the formula plus extra clauses, streamed to its stdin. */
async function kissat(formula: Formula, extra: number[][] = []): Promise<Result> {
  const out = await runSolver(dimacsChunks(formula, extra), formula.numVars, { solver: "kissat", timeLimitSec: 120 });
  assert.notEqual(out.kind, "unknown", "kissat gave no answer");
  if (out.kind === "unsat") return { sat: false };
  assert.equal(out.kind, "sat");
  const model = out.kind === "sat" ? out.model : new Uint8Array();
  return { sat: true, value: (v) => model[v] === 1 };
}

async function solveAndCheck(puzzle: Puzzle, options: EncodeOptions = {}): Promise<Board> {
  const f = encode(NAME, puzzle, options);
  const r = await kissat(f);
  assert.ok(r.sat, `${puzzle.name} ${JSON.stringify(options)}: expected SAT`);
  const board = f.varMap.decode(r.value);
  const verdict = verifySolution(puzzle, board);
  assert.ok(verdict.ok, `${puzzle.name} ${JSON.stringify(options)}: ${verdict.ok ? "" : verdict.violations[0].message}`);
  return board;
}

/** The puzzle with one centre-piece side recoloured: that colour and the new one occur an odd number of times. */
function oneColourChanged(puzzle: Puzzle): Puzzle {
  const i = puzzle.pieces.findIndex((p) => !p.edges.includes(0));
  const e = puzzle.pieces[i].edges;
  const other = puzzle.pieces.flatMap((p) => (p.edges.includes(0) ? [] : [...p.edges])).find((c) => c !== e[0])!;
  const edges = [other, e[1], e[2], e[3]] as Edges;
  return { ...puzzle, name: `${puzzle.name}-changed`, pieces: puzzle.pieces.map((p, j) => (j === i ? { ...p, edges } : p)) };
}

const OPTION_SETS: EncodeOptions[] = [
  {},
  { identical: "merged" },
  { identical: "ordered", order: "spiral", cornerPairs: true },
  { identical: "copies", pieceAmo: "sequential", reverseOrder: true },
  { support: false, order: "paper" },
];

// Not the 6x6: Kissat needs 5-9 s on it per option set (a tenth of a second on these two), and it has nothing these
// lack (no identical or symmetric pieces either); that its solution satisfies every clause under every option set is
// checked without a solver (test/unit/encode-own.test.ts).
test("cubist-placement kissat - the brendan 4x4 and 5x5 puzzles (shuffled) solve and decode under every option set", async () => {
  for (const size of ["04x04", "05x05"]) {
    const { puzzle } = shufflePuzzle(brendan(size).puzzle, 2024);
    for (const options of OPTION_SETS) await solveAndCheck(puzzle, options);
  }
});

test("cubist-placement kissat - one recoloured side makes the puzzle UNSAT", async () => {
  for (const size of ["04x04", "05x05"]) {
    const changed = oneColourChanged(brendan(size).puzzle);
    for (const options of OPTION_SETS) assert.equal((await kissat(encode(NAME, changed, options))).sat, false, `${size} ${JSON.stringify(options)}`);
  }
});

test("cubist-placement kissat - unbounded and rectangular puzzles, with identical pieces, solve and decode", async () => {
  const cases = [
    { rows: 3, cols: 3, centerColors: 3, seed: 11, unbounded: true },
    { rows: 3, cols: 4, centerColors: 2, seed: 12, unbounded: true },
    { rows: 4, cols: 6, borderColors: 2, centerColors: 3, seed: 13 },
    { rows: 3, cols: 7, borderColors: 3, centerColors: 3, seed: 14 },
    { rows: 2, cols: 5, borderColors: 2, centerColors: 2, seed: 16 },
    { rows: 5, cols: 4, borderColors: 1, centerColors: 2, seed: 17 },
  ];
  for (const c of cases) {
    const { puzzle } = generatePuzzle(c);
    for (const options of OPTION_SETS) await solveAndCheck(puzzle, options);
  }
});

test("cubist-placement kissat - hints are respected, also by merged identical pieces", async () => {
  const { puzzle, board } = brendan("05x05");
  const cells = [0, 7, 12];
  const hinted: Puzzle = { ...puzzle, hints: cells.map((cell) => ({ row: Math.floor(cell / 5), col: cell % 5, ...board.cells[cell]! })) };
  for (const options of OPTION_SETS) {
    const solved = await solveAndCheck(hinted, options);
    for (const cell of cells) assert.deepEqual(solved.cells[cell], board.cells[cell]);
  }
  // Many identical pieces: hint one copy of a repeated piece onto the planted cell.
  const gen = generatePuzzle({ rows: 5, cols: 5, borderColors: 1, centerColors: 2, seed: 21 });
  const cell = 12;
  const twinHint: Puzzle = { ...gen.puzzle, hints: [{ row: 2, col: 2, ...gen.solution.cells[cell]! }] };
  for (const identical of ["merged", "ordered", "copies"] as const) {
    const solved = await solveAndCheck(twinHint, { identical });
    assert.deepEqual(solved.cells[cell], gen.solution.cells[cell], identical);
  }
});

test("cubist-placement kissat - a cube's units (dimacsChunks extra clauses) are respected", async () => {
  const { puzzle, board } = brendan("05x05");
  for (const options of OPTION_SETS) {
    const f = encode(NAME, puzzle, options);
    // The solution's own placement of cell 18 as a cube: SAT, and the cell keeps it.
    const cube = f.varMap.placementLiterals({ cell: 18, ...board.cells[18]! }).map((l) => [l]);
    const r = await kissat(f, cube);
    assert.ok(r.sat);
    const solved = f.varMap.decode(r.value);
    assert.deepEqual(rotateEdges(puzzle.pieces[solved.cells[18]!.piece].edges, solved.cells[18]!.rot),
      rotateEdges(puzzle.pieces[board.cells[18]!.piece].edges, board.cells[18]!.rot));
    // Only p itself as the cube (one literal) does the same.
    assert.ok((await kissat(f, [[cube[0][0]]])).sat);
    // Two cubes that put the same piece on two cells are UNSAT.
    const piece = board.cells[18]!.piece;
    const twice = [...cube, ...f.varMap.placementLiterals({ cell: 6, piece, rot: 0 }).slice(0, 1).map((l) => [l])];
    assert.equal((await kissat(f, twice)).sat, false);
  }
});
