/**
 * Forbidden corner-pair clauses (seed 000), section `cornerPairs`: redundant binary clauses that let unit
 * propagation rule out colour pairs that no piece has at a corner.
 *
 * A corner of a cell is a pair of clockwise-adjacent sides (d, d+1) that both have a diamond. The pairs a
 * corner can show are the ordered pairs (colour at d, colour at d+1) of every piece that can sit on the cell,
 * in every rotation it can have there: centre cells take their class's pieces in all four rotations (so
 * every corner of every centre cell allows the same pairs: the clockwise-adjacent side pairs of the centre
 * pieces); corner and border cells take their class's pieces in the one rotation that puts grey on the rim,
 * so a border cell's two corners (rim-parallel diamond then inward diamond, and inward then rim-parallel)
 * and a corner cell's inner corner each get their own catalogue, over the colour classes of the two
 * diamonds (border x centre, centre x border, border x border). Corners that touch the rim of a bounded
 * puzzle have no diamond there and get nothing. For every cell corner and every pair (a, b) of colours of
 * the two diamonds' classes that the catalogue lacks: (ȳ(k_d, a) ∨ ȳ(k_d+1, b)).
 */

import { rotatedEdge } from "../puzzle.js";
import type { ClauseBuffer } from "./formula.js";
import { CENTER, type EncodingLayout } from "./layout.js";
import type { Numbering } from "./numbering.js";

/** Adds the forbidden corner-pair clauses; returns the number added. */
export function addCornerPairs(cb: ClauseBuffer, layout: EncodingLayout, num: Numbering): number {
  const start = cb.count;
  const { cells, cellClass, classPieces, cellDia, diaClass, classColours, colourIndex } = layout;
  const pieces = layout.puzzle.pieces;
  const width = Math.max(colourIndex[0].length, colourIndex[1].length);
  const catalogues = new Map<string, Uint8Array>();

  const catalogue = (cell: number, d: number): Uint8Array => {
    const centre = cellClass[cell] === CENTER;
    const rimMask = centre ? 0 : ((cellDia[cell * 4] < 0 ? 1 : 0) | (cellDia[cell * 4 + 1] < 0 ? 2 : 0) |
      (cellDia[cell * 4 + 2] < 0 ? 4 : 0) | (cellDia[cell * 4 + 3] < 0 ? 8 : 0));
    const key = centre ? "centre" : `${cellClass[cell]}:${rimMask}:${d}`;
    let seen = catalogues.get(key);
    if (seen) return seen;
    seen = new Uint8Array(width * width);
    for (const p of classPieces[cellClass[cell]]) {
      const e = pieces[p].edges;
      for (let r = 0; r < 4; r++) {
        if (!centre && r !== layout.rimRotation(p, cell)) continue;
        seen[rotatedEdge(e, r, d) * width + rotatedEdge(e, r, d + 1)] = 1;
      }
    }
    catalogues.set(key, seen);
    return seen;
  };

  for (let cell = 0; cell < cells; cell++) {
    for (let d = 0; d < 4; d++) {
      const k1 = cellDia[cell * 4 + d];
      const k2 = cellDia[cell * 4 + ((d + 1) & 3)];
      if (k1 < 0 || k2 < 0) continue;
      const seen = catalogue(cell, d);
      const c1 = classColours[diaClass[k1]], c2 = classColours[diaClass[k2]];
      const b1 = num.yBase[k1], b2 = num.yBase[k2];
      for (let i = 0; i < c1.length; i++) {
        const row = c1[i] * width;
        for (let j = 0; j < c2.length; j++) if (!seen[row + c2[j]]) cb.add2(-(b1 + i), -(b2 + j));
      }
    }
  }
  return cb.count - start;
}
