/**
 * The compact translation (Heule 2008, sections 3 and 4), section `compact`:
 *   (1) every cell holds at least one piece of its class;
 *   (2) every piece is on at least one cell of its class;
 *   (3) two equivalent pieces (one a rotation of the other) are never on the same cell: per cell, a binary
 *       clause for every pair of equivalent pieces of the cell's class;
 *   (4) every diamond has exactly one colour of its class: one at-least-one clause and the pairwise
 *       at-most-one clauses (C(n,2) binary clauses for n colours);
 *   4.1 a corner (border) piece on a cell fixes the colours of the cell's two (three) diamonds: one binary
 *       clause per diamond;
 *   4.2 a centre piece on a cell: the clauses of its type (center-types.ts).
 * Exactly one piece per cell and one cell per piece follow implicitly (the paper's argument): the diamonds
 * fix a cell's piece up to equivalence, (3) excludes equivalent twins, and the classes are equally large.
 */

import { equivalentPieces, rotatedEdge } from "../puzzle.js";
import { addCentreClauses, centrePattern, type CentrePattern } from "./center-types.js";
import type { ClauseBuffer } from "./formula.js";
import { CENTER, DIA_CENTER, type EncodingLayout } from "./layout.js";
import type { Numbering } from "./numbering.js";

/** Centre patterns of all centre pieces (undefined for corner/border pieces), colours as centre-class indices. */
export function centrePatterns(layout: EncodingLayout): Array<CentrePattern | undefined> {
  const idx = layout.colourIndex[DIA_CENTER];
  return layout.puzzle.pieces.map((p, i) => {
    if (layout.pieceClass[i] !== CENTER) return undefined;
    const e = p.edges;
    return centrePattern([idx[e[0]], idx[e[1]], idx[e[2]], idx[e[3]]]);
  });
}

/** Groups of two or more equivalent pieces within each class. */
export function equivalenceGroups(layout: EncodingLayout): number[][] {
  const groups: number[][] = [];
  const pieces = layout.puzzle.pieces;
  for (const list of layout.classPieces) {
    const byKey = new Map<string, number[]>();
    for (const p of list) {
      const e = pieces[p].edges;
      // Canonical key: the lexicographically smallest rotation.
      let key = "";
      for (let r = 0; r < 4; r++) {
        const k = `${e[r]},${e[(r + 1) & 3]},${e[(r + 2) & 3]},${e[(r + 3) & 3]}`;
        if (key === "" || k < key) key = k;
      }
      const g = byKey.get(key);
      if (g) g.push(p);
      else byKey.set(key, [p]);
    }
    for (const g of byKey.values()) {
      if (g.length > 1) {
        for (let i = 1; i < g.length; i++) {
          if (!equivalentPieces(pieces[g[0]].edges, pieces[g[i]].edges)) throw new Error("unreachable: key mismatch");
        }
        groups.push(g);
      }
    }
  }
  return groups;
}

/** Adds the compact translation; returns the number of clauses added. */
export function addCompact(cb: ClauseBuffer, layout: EncodingLayout, num: Numbering): number {
  const start = cb.count;
  const { cells, classCells, classPieces, pieceClass, cellClass, cellDia, diaClass, classColours, colourIndex } = layout;
  const { x, yBase } = num;
  const pieces = layout.puzzle.pieces;

  // (1) and (2).
  for (let k = 0; k < 3; k++) {
    for (const cell of classCells[k]) cb.add(classPieces[k].map((p) => x[p * cells + cell]));
  }
  for (let p = 0; p < cells; p++) cb.add(classCells[pieceClass[p]].map((cell) => x[p * cells + cell]));

  // (3).
  for (const g of equivalenceGroups(layout)) {
    const list = classCells[pieceClass[g[0]]];
    for (let i = 0; i < g.length; i++) {
      for (let l = i + 1; l < g.length; l++) {
        for (const cell of list) cb.add2(-x[g[i] * cells + cell], -x[g[l] * cells + cell]);
      }
    }
  }

  // (4).
  const alo: number[] = [];
  for (let k = 0; k < layout.diamonds; k++) {
    const n = classColours[diaClass[k]].length;
    const base = yBase[k];
    alo.length = n;
    for (let i = 0; i < n; i++) alo[i] = base + i;
    cb.add(alo);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) cb.add2(-(base + i), -(base + j));
  }

  // 4.1 and 4.2. Every centre cell has four diamonds (bounded: inner ones; unbounded: rim diamonds fill the gaps).
  for (let c = 0; c < cells; c++) {
    if (cellClass[c] !== CENTER) continue;
    for (let d = 0; d < 4; d++) if (cellDia[c * 4 + d] < 0) throw new Error("unreachable: centre cell without diamond");
  }
  const patterns = centrePatterns(layout);
  const y4 = new Int32Array(4);
  for (let p = 0; p < cells; p++) {
    const pat = patterns[p];
    const edges = pieces[p].edges;
    for (const cell of classCells[pieceClass[p]]) {
      const xv = x[p * cells + cell];
      if (pat) {
        for (let d = 0; d < 4; d++) y4[d] = yBase[cellDia[cell * 4 + d]];
        addCentreClauses(cb, xv, y4, pat);
      } else {
        const r = layout.rimRotation(p, cell);
        for (let d = 0; d < 4; d++) {
          const k = cellDia[cell * 4 + d];
          if (k < 0) continue;
          cb.add2(-xv, yBase[k] + colourIndex[diaClass[k]][rotatedEdge(edges, r, d)]);
        }
      }
    }
  }
  return cb.count - start;
}
