/**
 * Variable numbering of the Heule encodings (DIMACS variables 1..numVars, no auxiliary variables):
 * x(piece, cell) for every piece and every cell of its class, and y(diamond, colour) for every diamond and
 * every colour of the diamond's class. The set of variables never depends on the order; only their
 * numbers do (see options.ts for the orders).
 */

import { cellOrder } from "./cell-order.js";
import type { EncodingLayout } from "./layout.js";
import type { VariableOrder } from "./options.js";

/** Variable numbers of one layout. */
export interface Numbering {
  readonly numVars: number;
  /** x(piece, cell) at [piece * cells + cell]; 0 when the piece cannot go there. */
  readonly x: Int32Array;
  /** y(k, colour) = yBase[k] + colourIndex[diaClass[k]][colour]. */
  readonly yBase: Int32Array;
}

/** Numbers the variables of `layout` in `order`. */
export function numberVariables(layout: EncodingLayout, order: VariableOrder): Numbering {
  const { cells, diamonds, diaClass, classColours, classCells, classPieces, pieceClass, cellClass, cellDia } = layout;
  const x = new Int32Array(cells * cells);
  const yBase = new Int32Array(diamonds);
  let next = 1;
  const numberDiamond = (k: number): void => {
    yBase[k] = next;
    next += classColours[diaClass[k]].length;
  };
  if (order === "paper") {
    for (let p = 0; p < cells; p++) {
      for (const cell of classCells[pieceClass[p]]) x[p * cells + cell] = next++;
    }
    for (let k = 0; k < diamonds; k++) numberDiamond(k);
  } else {
    const done = new Uint8Array(diamonds);
    for (const cell of cellOrder(order, layout.rows, layout.cols)) {
      for (const p of classPieces[cellClass[cell]]) x[p * cells + cell] = next++;
      for (let d = 0; d < 4; d++) {
        const k = cellDia[cell * 4 + d];
        if (k >= 0 && !done[k]) {
          done[k] = 1;
          numberDiamond(k);
        }
      }
    }
  }
  return { numVars: next - 1, x, yBase };
}
