/**
 * The VarMap of the Heule encodings: decoding a model to a board, the literals of a placement, and
 * variable descriptions.
 *
 * Rotation recovery: the encodings have no rotation variables. A corner or border piece's rotation is the
 * one that puts its grey sides on the cell's rim. A centre piece's rotation is the r in 0..3 for which the
 * most of the cell's diamonds carry the colour the piece shows there after r turns (all four in a model);
 * ties (rotationally symmetric pieces) go to the smallest r.
 */

import { InvalidOptionError } from "../errors.js";
import { rotatedEdge, type Board, type Placement } from "../puzzle.js";
import type { VarMap } from "./formula.js";
import { CENTER, type EncodingLayout } from "./layout.js";
import type { Numbering } from "./numbering.js";

const SIDES = ["N", "E", "S", "W"] as const;

/** Creates the VarMap of a layout and its numbering. */
/** Throws InvalidOptionError unless the placement names a cell of the board, a piece index and a rotation 0..3. */
export function checkPlacementRange(placement: Placement, rows: number, cols: number, pieceCount: number): void {
  const { cell, piece, rot } = placement;
  if (!Number.isInteger(cell) || cell < 0 || cell >= rows * cols) {
    throw new InvalidOptionError("placement", `cell ${cell} is not on the ${rows}x${cols} board`);
  }
  if (!Number.isInteger(piece) || piece < 0 || piece >= pieceCount) {
    throw new InvalidOptionError("placement", `piece index ${piece} is not in 0..${pieceCount - 1}`);
  }
  if (!Number.isInteger(rot) || rot < 0 || rot > 3) {
    throw new InvalidOptionError("placement", `rotation ${rot} is not in 0..3`);
  }
}

export function createHeuleVarMap(layout: EncodingLayout, num: Numbering): VarMap {
  const { cells, cols, cellClass, classPieces, cellDia, diaClass, colourIndex, classColours, diaCells } = layout;
  const { x, yBase } = num;
  const pieces = layout.puzzle.pieces;

  /** y(k, colour), or 0 when the colour is not in the diamond's class. */
  const yVar = (k: number, colour: number): number => {
    const idx = colour < colourIndex[diaClass[k]].length ? colourIndex[diaClass[k]][colour] : -1;
    return idx < 0 ? 0 : yBase[k] + idx;
  };
  const cellName = (cell: number): string => `(${Math.floor(cell / cols)},${cell % cols})`;

  function decodeRotation(value: (v: number) => boolean, piece: number, cell: number): number {
    if (layout.bounded && cellClass[cell] !== CENTER) {
      const r = layout.rimRotation(piece, cell);
      if (r >= 0) return r;
    }
    let best = 0, bestScore = -1;
    for (let r = 0; r < 4; r++) {
      let score = 0;
      for (let d = 0; d < 4; d++) {
        const k = cellDia[cell * 4 + d];
        if (k < 0) continue;
        const v = yVar(k, rotatedEdge(pieces[piece].edges, r, d));
        if (v !== 0 && value(v)) score++;
      }
      if (score > bestScore) {
        best = r;
        bestScore = score;
      }
    }
    return best;
  }

  let reverse: Int32Array | undefined;
  function reverseMap(): Int32Array {
    if (reverse) return reverse;
    // Entry v: >= 0 is an x index (piece*cells+cell); < 0 is -(k+1) for a y of diamond k.
    const rev = new Int32Array(num.numVars + 1);
    for (let i = 0; i < x.length; i++) if (x[i] !== 0) rev[x[i]] = i;
    for (let k = 0; k < yBase.length; k++) {
      const n = classColours[diaClass[k]].length;
      for (let i = 0; i < n; i++) rev[yBase[k] + i] = -(k + 1);
    }
    reverse = rev;
    return rev;
  }

  return {
    decode(value: (v: number) => boolean): Board {
      const out: Array<{ piece: number; rot: number } | null> = new Array(cells).fill(null);
      for (let cell = 0; cell < cells; cell++) {
        for (const p of classPieces[cellClass[cell]]) {
          const v = x[p * cells + cell];
          if (v !== 0 && value(v)) {
            out[cell] = { piece: p, rot: decodeRotation(value, p, cell) };
            break;
          }
        }
      }
      return { rows: layout.rows, cols, cells: out };
    },

    placementLiterals(placement: Placement): number[] {
      checkPlacementRange(placement, layout.rows, cols, pieces.length);
      const { cell, piece, rot } = placement;
      const xv = x[piece * cells + cell];
      const id = pieces[piece].id;
      if (xv === 0) {
        throw new InvalidOptionError("placement", `piece ${id} cannot go on cell ${cellName(cell)}: wrong piece class for the cell`);
      }
      const lits = [xv];
      for (let d = 0; d < 4; d++) {
        const colour = rotatedEdge(pieces[piece].edges, rot, d);
        const k = cellDia[cell * 4 + d];
        if (k < 0) {
          if (colour !== 0) {
            throw new InvalidOptionError("placement", `piece ${id} with rotation ${rot} shows colour ${colour}, not grey, on the rim at ${SIDES[d]} of cell ${cellName(cell)}`);
          }
          continue;
        }
        const y = yVar(k, colour);
        if (y === 0) {
          throw new InvalidOptionError("placement", `piece ${id} with rotation ${rot} shows colour ${colour} at ${SIDES[d]} of cell ${cellName(cell)}, which that edge cannot have`);
        }
        lits.push(y);
      }
      return lits;
    },

    describe(v: number): string {
      if (!Number.isInteger(v) || v < 1 || v > num.numVars) return `unknown variable ${v}`;
      const e = reverseMap()[v];
      if (e >= 0) {
        const p = Math.floor(e / cells);
        return `x(piece ${pieces[p].id}, cell ${cellName(e % cells)})`;
      }
      const k = -e - 1;
      const a = diaCells[2 * k], b = diaCells[2 * k + 1];
      const colour = classColours[diaClass[k]][v - yBase[k]];
      const where = b >= 0 ? `${cellName(a)}|${cellName(b)}` : `${cellName(a)} rim`;
      return `y(diamond ${k} ${where}, colour ${colour})`;
    },
  };
}
