/**
 * Variable numbering of the cubist-placement encoding.
 *
 * Variables: p(placement) for every placement of the model; x(unit, cell) "the unit stands on the cell" for
 * every unit that can stand there (the same variable as p when the unit has one placement on the cell);
 * y(k, c) for every inner diamond k and every colour c of its class. Auxiliary variables of the
 * at-most-one / at-most-m counters (options `pieceAmo: "sequential"`, `identical: "merged"`) are numbered
 * after these by the clause writer (`allocate`).
 *
 * Orders: `paper` numbers unit by unit (each over the cells of its class in the paper's order: x, then the
 * unit's placements there), then the diamonds in Figure 2 order. The other orders number cell by cell in
 * the named order of cells (cell-order.ts): the cell's units ascending (x, then its placements), then the
 * colours of each of its diamonds (N, E, S, W) not numbered yet. `reverse` mirrors the numbering of the
 * main variables (v becomes main + 1 - v): CDCL solvers break the ties of their initial decision order by
 * variable index, some from the top.
 */

import { cellOrder } from "./cell-order.js";
import type { VariableOrder } from "./options.js";
import type { PlacementModel } from "./placement-model.js";

/** Variable numbers of one placement model. */
export interface PlacementNumbering {
  /** Variables of the main (non-auxiliary) kinds: p, x, y are all in 1..mainVars. */
  readonly mainVars: number;
  /** p of each placement. */
  readonly p: Int32Array;
  /** x(unit, cell) at [unit * cells + cell]; 0 when the unit cannot stand there. */
  readonly x: Int32Array;
  /** y(k, c) = yBase[k] + colourIndex[diaClass[k]][c] (reversed numberings: yBase[k] - index). */
  readonly yBase: Int32Array;
  /** +1, or -1 when reversed: y(k, c) = yBase[k] + yStep * index. */
  readonly yStep: number;
}

/** Numbers the main variables of `model` in `order`. */
export function numberPlacements(model: PlacementModel, order: VariableOrder, reverse: boolean): PlacementNumbering {
  const { layout, units, cellStart, plUnit } = model;
  const { cells, diaClass, classColours, classCells, cellDia } = layout;
  const p = new Int32Array(model.count);
  const x = new Int32Array(units * cells);
  const yBase = new Int32Array(model.diamonds);
  let next = 1;

  /** Numbers x and the placements of unit u on cell c (placements lo..hi-1). */
  const numberUnitCell = (u: number, cell: number, lo: number, hi: number): void => {
    if (hi - lo === 1) {
      p[lo] = next++;
      x[u * cells + cell] = p[lo];
      return;
    }
    x[u * cells + cell] = next++;
    for (let i = lo; i < hi; i++) p[i] = next++;
  };
  /** Calls fn(u, lo, hi) for every unit's run of placements on the cell. */
  const forUnitRuns = (cell: number, fn: (u: number, lo: number, hi: number) => void): void => {
    let lo = cellStart[cell];
    const end = cellStart[cell + 1];
    while (lo < end) {
      let hi = lo + 1;
      while (hi < end && plUnit[hi] === plUnit[lo]) hi++;
      fn(plUnit[lo], lo, hi);
      lo = hi;
    }
  };
  const numberDiamond = (k: number): void => {
    yBase[k] = next;
    next += classColours[diaClass[k]].length;
  };

  if (order === "paper") {
    const runs: Array<Array<[number, number, number]>> = Array.from({ length: units }, () => []);
    const paperCells = classCells.flat();
    for (const cell of paperCells) forUnitRuns(cell, (u, lo, hi) => runs[u].push([cell, lo, hi]));
    for (let u = 0; u < units; u++) for (const [cell, lo, hi] of runs[u]) numberUnitCell(u, cell, lo, hi);
    for (let k = 0; k < model.diamonds; k++) numberDiamond(k);
  } else {
    const done = new Uint8Array(model.diamonds);
    for (const cell of cellOrder(order, layout.rows, layout.cols)) {
      forUnitRuns(cell, (u, lo, hi) => numberUnitCell(u, cell, lo, hi));
      for (let d = 0; d < 4; d++) {
        const k = cellDia[cell * 4 + d];
        if (k >= 0 && k < model.diamonds && !done[k]) {
          done[k] = 1;
          numberDiamond(k);
        }
      }
    }
  }
  const mainVars = next - 1;
  if (!reverse) return { mainVars, p, x, yBase, yStep: 1 };
  const flip = (a: Int32Array): void => { for (let i = 0; i < a.length; i++) if (a[i] !== 0) a[i] = mainVars + 1 - a[i]; };
  flip(p);
  flip(x);
  flip(yBase);
  return { mainVars, p, x, yBase, yStep: -1 };
}
