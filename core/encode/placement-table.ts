/**
 * The placements of the cubist-placement encoding as a table, for the proof-producing search (engine/prove.c):
 * each placement's cell, unit and variable, and the colours it shows. A search over exactly these placements
 * refutes a cube in steps that unit propagation on the formula can check (docs/operations.md "Certificates").
 * The numbering is the encoder's own (same model, order and direction), so the variables are the formula's.
 */

import type { Board, Puzzle } from "../puzzle.js";
import type { VarMap } from "./formula.js";
import type { EncodeOptions } from "./options.js";
import { buildPlacementModel } from "./placement-model.js";
import { numberPlacements } from "./placement-numbering.js";
import { resolvePlacementOptions } from "./placement.js";
import { createPlacementVarMap } from "./placement-varmap.js";

export interface PlacementTable {
  readonly rows: number;
  readonly cols: number;
  /** Copies of each unit (identical pieces merged into one unit when the encoding merges them). */
  readonly copies: readonly number[];
  /** Per placement: cell, unit, variable, and the colours N E S W (-1 where the side has no inner diamond). */
  readonly cell: Int32Array;
  readonly unit: Int32Array;
  readonly lit: Int32Array;
  readonly side: Int32Array;
  /** The formula has the support clauses (a colour on a diamond needs a placement showing it on each side). */
  readonly support: boolean;
  /** The hints' placement variables (unit clauses of the formula). */
  readonly hintLits: readonly number[];
  /** The board whose placement variables are `lits` (the encoder's decoding: copies of merged units handed out). */
  decode(lits: Iterable<number>): Board;
}

/** The placement table of `puzzle` under cubist-placement with `options` (as `encode` resolves them). */
export function placementTable(puzzle: Puzzle, options?: EncodeOptions): PlacementTable {
  const opts = resolvePlacementOptions(options);
  const model = buildPlacementModel(puzzle, opts.identical);
  const num = numberPlacements(model, opts.order, opts.reverseOrder);
  const varMap: VarMap = createPlacementVarMap(model, num, num.mainVars, puzzle.hints);
  return {
    rows: puzzle.rows,
    cols: puzzle.cols,
    copies: model.copies.map((c) => c.length),
    cell: model.plCell,
    unit: model.plUnit,
    lit: num.p,
    side: model.side,
    support: opts.support,
    hintLits: puzzle.hints.map((h) => varMap.placementLiterals({ cell: h.row * puzzle.cols + h.col, piece: h.piece, rot: h.rot })[0]),
    decode(lits: Iterable<number>): Board {
      const set = new Set(lits);
      return varMap.decode((v) => set.has(v));
    },
  };
}
