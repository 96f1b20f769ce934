/**
 * The redundant extensions of the compact translation (Heule 2008, section 5) and the hint units.
 *
 * - fbcolors (5.1, eq. 8): a centre piece on a cell forbids, on each of the cell's diamonds, every centre
 *   colour the piece does not have: (x̄(i,q) ∨ ȳ(k,c)) for c in C_center \ C(p_i). Type-1 pieces (one colour
 *   on all four sides) get none: their compact clauses (x̄ ∨ y(k,A)) plus at-most-one colour per diamond
 *   already give every such fact by unit propagation. That is the convention behind Table 1.
 * - explicit (5.2, eqs. 9-11): a piece is on at most one cell: (x̄(i,j) ∨ x̄(i,l)) for all cells j < l of
 *   the piece's class.
 * - hints: unit clauses, the literals of each hint's placement (x plus its diamond colours), each literal once.
 */

import type { Hint } from "../puzzle.js";
import type { CentrePattern } from "./center-types.js";
import type { ClauseBuffer, VarMap } from "./formula.js";
import { DIA_CENTER, type EncodingLayout } from "./layout.js";
import type { Numbering } from "./numbering.js";

/** Adds the forbidden colour clauses; returns the number added. */
export function addFbColors(
  cb: ClauseBuffer,
  layout: EncodingLayout,
  num: Numbering,
  patterns: ReadonlyArray<CentrePattern | undefined>,
): number {
  const start = cb.count;
  const { cells, classCells, pieceClass, cellDia, diaClass, classColours, colourIndex } = layout;
  const pieces = layout.puzzle.pieces;
  const nCentre = classColours[DIA_CENTER].length;
  const forbidden: number[] = [];
  for (let p = 0; p < cells; p++) {
    const pat = patterns[p];
    if (!pat || pat.type === 1) continue;
    const has = new Uint8Array(nCentre);
    for (const c of pieces[p].edges) has[colourIndex[DIA_CENTER][c]] = 1;
    forbidden.length = 0;
    for (let i = 0; i < nCentre; i++) if (!has[i]) forbidden.push(i);
    for (const cell of classCells[pieceClass[p]]) {
      const nx = -num.x[p * cells + cell];
      for (let d = 0; d < 4; d++) {
        const k = cellDia[cell * 4 + d];
        if (diaClass[k] !== DIA_CENTER) throw new Error("unreachable: centre cell with a border diamond");
        const base = num.yBase[k];
        for (let f = 0; f < forbidden.length; f++) cb.add2(nx, -(base + forbidden[f]));
      }
    }
  }
  return cb.count - start;
}

/** Adds the explicit one-on-one clauses; returns the number added. */
export function addExplicit(cb: ClauseBuffer, layout: EncodingLayout, num: Numbering): number {
  const start = cb.count;
  const { cells, classCells, pieceClass } = layout;
  const x = num.x;
  for (let p = 0; p < cells; p++) {
    const list = classCells[pieceClass[p]];
    const base = p * cells;
    for (let j = 0; j < list.length; j++) {
      const a = -x[base + list[j]];
      for (let l = j + 1; l < list.length; l++) cb.add2(a, -x[base + list[l]]);
    }
  }
  return cb.count - start;
}

/** Adds the hint units; returns the number added. */
export function addHints(cb: ClauseBuffer, layout: EncodingLayout, varMap: VarMap, hints: readonly Hint[]): number {
  const seen = new Set<number>();
  for (const h of hints) {
    for (const lit of varMap.placementLiterals({ cell: h.row * layout.cols + h.col, piece: h.piece, rot: h.rot })) {
      if (seen.has(lit)) continue;
      seen.add(lit);
      cb.add1(lit);
    }
  }
  return seen.size;
}
