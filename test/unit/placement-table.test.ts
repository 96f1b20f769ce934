/**
 * The prover's placement table (core/encode/placement-table.ts) speaks of the formula's own variables: every
 * placement's variable is the one the encoder's VarMap gives for it, in every variable order, with identical
 * pieces merged; its colours are the ones the placement shows; and its decoding is the encoder's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { encode, variableOrders } from "../../core/encode/index.js";
import { placementTable } from "../../core/encode/placement-table.js";
import { generatePuzzle } from "../../core/generate.js";
import { rotatedEdge, type Puzzle } from "../../core/puzzle.js";

function puzzles(): Puzzle[] {
  const out: Puzzle[] = [];
  // Few colours: many identical pieces, so merged units with several copies.
  for (let seed = 1; seed <= 4; seed++) out.push(generatePuzzle({ rows: 3 + (seed % 2), cols: 4, borderColors: 1 + (seed % 2), centerColors: 2, seed }).puzzle);
  const { puzzle, solution } = generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 3, seed: 9 });
  const c = solution.cells[5]!;
  out.push({ ...puzzle, hints: [{ row: 1, col: 1, piece: c.piece, rot: c.rot }] });
  return out;
}

test("placement table - each placement's variable and colours are the encoder's, in every variable order", () => {
  for (const puzzle of puzzles()) {
    for (const order of variableOrders) {
      const formula = encode("cubist-placement", puzzle, { order });
      const table = placementTable(puzzle, { order });
      assert.equal(table.copies.reduce((a, b) => a + b, 0), puzzle.pieces.length);
      const seen = new Set<number>();
      for (let piece = 0; piece < puzzle.pieces.length; piece++) {
        for (let cell = 0; cell < puzzle.rows * puzzle.cols; cell++) {
          for (let rot = 0; rot < 4; rot++) {
            let lits: number[];
            try {
              lits = formula.varMap.placementLiterals({ cell, piece, rot });
            } catch {
              continue; // the piece does not fit the cell that way
            }
            const i = table.lit.indexOf(lits[0]);
            assert.ok(i >= 0, `order ${order}: the placement variable ${lits[0]} is in the table`);
            assert.equal(table.cell[i], cell);
            for (let d = 0; d < 4; d++) {
              if (table.side[4 * i + d] >= 0) assert.equal(table.side[4 * i + d], rotatedEdge(puzzle.pieces[piece].edges, rot, d));
            }
            seen.add(i);
          }
        }
      }
      assert.equal(seen.size, table.lit.length, `order ${order}: every table row is some placement`);
      for (const h of puzzle.hints) {
        assert.ok(table.hintLits.includes(formula.varMap.placementLiterals({ cell: h.row * puzzle.cols + h.col, piece: h.piece, rot: h.rot })[0]));
      }
    }
  }
});

test("placement table - decoding placement variables gives the encoder's board", () => {
  const { puzzle, solution } = generatePuzzle({ rows: 4, cols: 5, borderColors: 2, centerColors: 2, seed: 3 });
  const formula = encode("cubist-placement", puzzle);
  const table = placementTable(puzzle);
  const lits = solution.cells.map((c, cell) => formula.varMap.placementLiterals({ cell, piece: c!.piece, rot: c!.rot })[0]);
  const set = new Set(lits);
  assert.deepEqual(table.decode(lits), formula.varMap.decode((v) => set.has(v)));
});
