import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { readBrendan, readBrendanSolution } from "../../core/formats/brendan.js";
import { generatePuzzle } from "../../core/generate.js";
import { neighbour, rotatedEdge, type Board, type Edges, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { dimacsChunks, encode, encodingNames, type EncodeOptions, type Formula } from "../../core/encode/index.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

function brendan(size: string): { puzzle: Puzzle; board: Board } {
  const puzzle = readBrendan(fixture(`brendan/pieces_${size}.txt`), `pieces_${size}.txt`);
  const board = readBrendanSolution(fixture(`brendan/solutions_${size}.txt`), `solutions_${size}.txt`, puzzle);
  return { puzzle, board };
}

type Result = { sat: true; value: (v: number) => boolean } | { sat: false };

/** Runs kissat on the formula (plus extra unit clauses); exit 10 = SAT with `v` lines, 20 = UNSAT. */
function kissat(formula: Formula, extra: number[][] = []): Result {
  const dir = mkdtempSync(join(tmpdir(), "cubist-encode-"));
  try {
    const file = join(dir, "f.cnf");
    writeFileSync(file, Buffer.concat([...dimacsChunks(formula, extra)]));
    const run = spawnSync("kissat", ["-q", file], { encoding: "utf8", maxBuffer: 1 << 26 });
    assert.ok(run.error === undefined, `kissat could not run: ${String(run.error)}`);
    if (run.status === 20) return { sat: false };
    assert.equal(run.status, 10, `kissat exit ${run.status}: ${run.stderr}`);
    const model = new Set<number>();
    for (const line of run.stdout.split("\n")) {
      if (!line.startsWith("v")) continue;
      for (const tok of line.slice(1).trim().split(/\s+/)) if (Number(tok) > 0) model.add(Number(tok));
    }
    return { sat: true, value: (v) => model.has(v) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A few-line edge check independent of the verifier: every inner edge matches, each piece used once. */
function edgesMatch(puzzle: Puzzle, board: Board): boolean {
  const used = new Set<number>();
  for (let cell = 0; cell < board.cells.length; cell++) {
    const c = board.cells[cell];
    if (!c || used.has(c.piece)) return false;
    used.add(c.piece);
    for (const d of [1, 2]) {
      const n = neighbour(puzzle, cell, d);
      const o = n >= 0 ? board.cells[n] : null;
      if (n >= 0 && (!o || rotatedEdge(puzzle.pieces[c.piece].edges, c.rot, d) !== rotatedEdge(puzzle.pieces[o.piece].edges, o.rot, d ^ 2))) return false;
    }
  }
  return used.size === puzzle.pieces.length;
}

function solveAndCheck(puzzle: Puzzle, name: string, options: EncodeOptions = {}): Board {
  const f = encode(name, puzzle, options);
  const r = kissat(f);
  assert.ok(r.sat, `${puzzle.name} ${name}: expected SAT`);
  const board = f.varMap.decode(r.value);
  assert.ok(edgesMatch(puzzle, board), `${puzzle.name} ${name}: decoded board has a mismatch`);
  const verdict = verifySolution(puzzle, board);
  assert.ok(verdict.ok, `${puzzle.name} ${name}: ${verdict.ok ? "" : verdict.violations[0].message}`);
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

test("kissat - every encoding of the brendan 4x4 and 5x5 puzzles is SAT and decodes to a solution", () => {
  for (const size of ["04x04", "05x05"]) {
    const { puzzle } = brendan(size);
    for (const name of encodingNames) solveAndCheck(puzzle, name);
  }
});

test("kissat - the brendan 5x5 puzzle solves under each order, with and without corner pairs", () => {
  // (6x6 takes seconds per run: kept out of the unit tests.)
  const { puzzle } = brendan("05x05");
  for (const order of ["paper", "spiral", "row-major", "column-major", "diagonal"] as const) {
    for (const cornerPairs of [false, true]) solveAndCheck(puzzle, "heule-all", { order, cornerPairs });
  }
});

test("kissat - one recoloured side makes the puzzle UNSAT in every encoding", () => {
  const small = oneColourChanged(brendan("04x04").puzzle);
  for (const name of encodingNames) {
    for (const cornerPairs of [false, true]) assert.equal(kissat(encode(name, small, { cornerPairs })).sat, false, `${small.name} ${name}`);
  }
  // 5x5 only with the strongest clauses (the compact proof takes over a second).
  assert.equal(kissat(encode("heule-all", oneColourChanged(brendan("05x05").puzzle), { cornerPairs: true })).sat, false);
});

test("kissat - unbounded and rectangular puzzles solve and decode", () => {
  const cases = [
    { rows: 3, cols: 3, centerColors: 3, seed: 11, unbounded: true },
    { rows: 3, cols: 4, centerColors: 4, seed: 12, unbounded: true },
    { rows: 4, cols: 6, borderColors: 2, centerColors: 3, seed: 13 },
    { rows: 3, cols: 7, borderColors: 3, centerColors: 3, seed: 14 },
    { rows: 2, cols: 5, borderColors: 2, centerColors: 2, seed: 16 },
  ];
  for (const c of cases) {
    const { puzzle } = generatePuzzle(c);
    for (const name of ["heule-compact", "heule-all"]) solveAndCheck(puzzle, name, { order: "spiral", cornerPairs: true });
  }
});

test("kissat - an unbounded puzzle with a piece whose colour appears nowhere else is UNSAT", () => {
  const { puzzle } = generatePuzzle({ rows: 3, cols: 3, centerColors: 3, seed: 15, unbounded: true });
  // Every cell of a 3x3 board has at least two inner sides, and a lone colour matches no neighbour.
  const lone = Math.max(...puzzle.pieces.flatMap((p) => [...p.edges])) + 1;
  const changed: Puzzle = { ...puzzle, pieces: puzzle.pieces.map((p, j) => (j === 4 ? { ...p, edges: [lone, lone, lone, lone] as Edges } : p)) };
  for (const name of encodingNames) assert.equal(kissat(encode(name, changed)).sat, false, name);
});

test("kissat - hints and cube units are respected", () => {
  const { puzzle, board } = brendan("05x05");
  const cells = [0, 7, 12];
  const hinted: Puzzle = {
    ...puzzle,
    hints: cells.map((cell) => ({ row: Math.floor(cell / 5), col: cell % 5, ...board.cells[cell]! })),
  };
  const solved = solveAndCheck(hinted, "heule-all");
  for (const cell of cells) assert.deepEqual(solved.cells[cell]!.piece, board.cells[cell]!.piece);

  // A cube: the solution's placement of cell 18 as extra unit clauses.
  const f = encode("heule-all", puzzle);
  const cube = f.varMap.placementLiterals({ cell: 18, ...board.cells[18]! }).map((l) => [l]);
  const r = kissat(f, cube);
  assert.ok(r.sat);
  assert.equal(f.varMap.decode(r.value).cells[18]!.piece, board.cells[18]!.piece);
  // Two different corner pieces both on cell 0 cannot hold.
  const xOn = (cell: number, piece: number): number => {
    for (let rot = 0; rot < 4; rot++) {
      try {
        return f.varMap.placementLiterals({ cell, piece, rot })[0];
      } catch {
        // not the rim rotation of this cell
      }
    }
    throw new Error(`piece ${piece} does not fit cell ${cell}`);
  };
  assert.equal(kissat(f, [[xOn(0, board.cells[0]!.piece)], [xOn(0, board.cells[4]!.piece)]]).sat, false);
});
