/**
 * The VarMap of the cubist-placement encoding.
 *
 * - decode: each cell gets the unit and rotation of its first true placement (null when none). A unit of
 *   several identical pieces (`identical: "merged"`) hands out its copies: first each hint's own piece to
 *   its hint cell, then the remaining copies in increasing piece index to its other cells in increasing cell
 *   order. A copy's rotation is the placement's rotation less the copy's offset from the representative, so
 *   the copy shows the placed edges.
 * - placementLiterals: p of the placement, x(unit, cell) when it is a separate variable, and y(k, c) for
 *   every inner diamond of the cell with the colour the placement shows there. The last two follow from p
 *   by unit propagation; they are listed so that a solution's placements give every true variable apart
 *   from auxiliaries.
 */

import { InvalidOptionError } from "../errors.js";
import { rotatedEdge, type Board, type Hint, type Placement } from "../puzzle.js";
import type { VarMap } from "./formula.js";
import type { PlacementModel } from "./placement-model.js";
import type { PlacementNumbering } from "./placement-numbering.js";
import { checkPlacementRange } from "./varmap.js";

const SIDES = ["N", "E", "S", "W"] as const;

/** Creates the VarMap of a placement model and its numbering; `numVars` includes auxiliaries. */
export function createPlacementVarMap(model: PlacementModel, num: PlacementNumbering, numVars: number, hints: readonly Hint[]): VarMap {
  const { layout, cellStart, plUnit, plRot, side, copies, unitOf, offset } = model;
  const { cells, cols, cellDia, diaClass, colourIndex, classColours, diaCells } = layout;
  const pieces = layout.puzzle.pieces;
  const cellName = (cell: number): string => `(${Math.floor(cell / cols)},${cell % cols})`;
  const yVar = (k: number, colour: number): number => {
    const idx = colour < colourIndex[diaClass[k]].length ? colourIndex[diaClass[k]][colour] : -1;
    return idx < 0 ? 0 : num.yBase[k] + num.yStep * idx;
  };

  let reverse: Int32Array | undefined;
  /** Entry v: pl + 1 for a p, -(1 + unit * cells + cell) for a separate x, 0 otherwise (y or auxiliary). */
  function reverseMap(): Int32Array {
    if (reverse) return reverse;
    const rev = new Int32Array(numVars + 1);
    for (let i = 0; i < num.x.length; i++) if (num.x[i] !== 0) rev[num.x[i]] = -(1 + i);
    for (let pl = 0; pl < model.count; pl++) rev[num.p[pl]] = pl + 1;
    reverse = rev;
    return rev;
  }
  function describeY(v: number): string | undefined {
    for (let k = 0; k < model.diamonds; k++) {
      const list = classColours[diaClass[k]];
      const idx = (v - num.yBase[k]) * num.yStep;
      if (idx >= 0 && idx < list.length) {
        const a = diaCells[2 * k], b = diaCells[2 * k + 1];
        return `y(diamond ${k} ${cellName(a)}|${cellName(b)}, colour ${list[idx]})`;
      }
    }
    return undefined;
  }

  return {
    decode(value: (v: number) => boolean): Board {
      const unitAt = new Int32Array(cells).fill(-1);
      const rotAt = new Int8Array(cells);
      for (let cell = 0; cell < cells; cell++) {
        for (let pl = cellStart[cell]; pl < cellStart[cell + 1]; pl++) {
          if (value(num.p[pl])) {
            unitAt[cell] = plUnit[pl];
            rotAt[cell] = plRot[pl];
            break;
          }
        }
      }
      const out: Array<{ piece: number; rot: number } | null> = new Array(cells).fill(null);
      const used = new Uint8Array(pieces.length);
      const give = (cell: number, piece: number): void => {
        used[piece] = 1;
        out[cell] = { piece, rot: (rotAt[cell] - offset[piece] + 4) & 3 };
      };
      for (const h of hints) {
        const cell = h.row * cols + h.col;
        if (cell >= 0 && cell < cells && unitAt[cell] === unitOf[h.piece] && !used[h.piece] && out[cell] === null) give(cell, h.piece);
      }
      const nextCopy = new Int32Array(copies.length);
      for (let cell = 0; cell < cells; cell++) {
        const u = unitAt[cell];
        if (u < 0 || out[cell] !== null) continue;
        const list = copies[u];
        while (nextCopy[u] < list.length && used[list[nextCopy[u]]]) nextCopy[u]++;
        // More cells than copies is not a solution; the verifier reports the duplicate.
        give(cell, nextCopy[u] < list.length ? list[nextCopy[u]] : list[0]);
      }
      return { rows: layout.rows, cols, cells: out };
    },

    placementLiterals(placement: Placement): number[] {
      checkPlacementRange(placement, layout.rows, cols, pieces.length);
      const { cell, piece, rot } = placement;
      const edges = pieces[piece].edges;
      const id = pieces[piece].id;
      const u = unitOf[piece];
      const xv = num.x[u * cells + cell];
      if (xv === 0) {
        throw new InvalidOptionError("placement", `piece ${id} cannot go on cell ${cellName(cell)}: wrong piece class for the cell`);
      }
      for (let d = 0; d < 4; d++) {
        const k = cellDia[cell * 4 + d];
        const colour = rotatedEdge(edges, rot, d);
        if (k < 0 && colour !== 0) {
          throw new InvalidOptionError("placement", `piece ${id} with rotation ${rot} shows colour ${colour}, not grey, on the rim at ${SIDES[d]} of cell ${cellName(cell)}`);
        }
        if (k >= 0 && layout.bounded && colour === 0) {
          throw new InvalidOptionError("placement", `piece ${id} with rotation ${rot} shows grey at ${SIDES[d]} of cell ${cellName(cell)}, which is not on the rim`);
        }
      }
      const repRot = (rot + offset[piece]) & 3;
      const rep = pieces[copies[u][0]].edges;
      for (let pl = cellStart[cell]; pl < cellStart[cell + 1]; pl++) {
        if (plUnit[pl] !== u) continue;
        let same = true;
        for (let d = 0; d < 4 && same; d++) same = rotatedEdge(rep, plRot[pl], d) === rotatedEdge(rep, repRot, d);
        if (!same) continue;
        const lits = [num.p[pl]];
        if (xv !== num.p[pl]) lits.push(xv);
        for (let d = 0; d < 4; d++) {
          const c = side[4 * pl + d];
          if (c < 0) continue;
          const y = yVar(cellDia[cell * 4 + d], c);
          if (y === 0) throw new Error(`unreachable: placement shows colour ${c} outside its diamond's class`);
          lits.push(y);
        }
        return lits;
      }
      throw new InvalidOptionError("placement", `piece ${id} with rotation ${rot} does not fit cell ${cellName(cell)}`);
    },

    describe(v: number): string {
      if (!Number.isInteger(v) || v < 1 || v > numVars) return `unknown variable ${v}`;
      const e = reverseMap()[v];
      const unitName = (u: number): string => copies[u].length === 1
        ? `piece ${pieces[copies[u][0]].id}`
        : `pieces ${copies[u].map((i) => pieces[i].id).join("/")}`;
      if (e > 0) {
        const pl = e - 1;
        return `p(${unitName(plUnit[pl])} rot ${plRot[pl]}, cell ${cellName(model.plCell[pl])})`;
      }
      if (e < 0) {
        const i = -e - 1;
        return `x(${unitName(Math.floor(i / cells))}, cell ${cellName(i % cells)})`;
      }
      if (v <= num.mainVars) return describeY(v) ?? `unknown variable ${v}`;
      return `aux ${v}`;
    },
  };
}
