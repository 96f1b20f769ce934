/**
 * Centre pieces (Heule 2008, section 4.2 and Figure 3): the clauses that tie x(i, j) to the colours of
 * the four diamonds D0..D3 (N, E, S, W) of cell j, without rotation variables.
 *
 * A centre piece is one of seven types by the cyclic pattern of its colours (read clockwise):
 *   1 AAAA  2 AAAB  3 AABB  4 ABAB  5 AABC  6 ABAC  7 ABCD
 * Positive rotation clauses (only positive y literals): a colour seen once gives the long clause
 * "some diamond has it" (x̄ ∨ y(D0,c) ∨ y(D1,c) ∨ y(D2,c) ∨ y(D3,c)); a colour seen more often gives the
 * ternary clauses "one of these two diamonds has it" for every pair of diamonds that meets every
 * rotation's occurrences. Negative rotation clauses (one positive y literal) say where a colour forces
 * its neighbour. Per x(i, j) (subscripts mod 4):
 *   1: (x̄ ∨ y(Dj,A))                                                         4 clauses
 *   2: long(B); (x̄ ∨ y(Dj,A) ∨ y(Dl,A)) for all 6 pairs j<l                  7
 *   3: (x̄ ∨ y(Dj,A) ∨ y(Dj+2,A)), same for B, j = 0,1                        4
 *   4: (x̄ ∨ y(Dj,A) ∨ y(Dj+1,A)), same for B, j = 0..3                       8
 *   5: long(B), long(C); (x̄ ∨ y(Dj,A) ∨ y(Dj+2,A)) for j = 0..3 (each of the two distinct clauses
 *      twice, see below); (x̄ ∨ ȳ(Dj,B) ∨ y(Dj+1,C)); (x̄ ∨ ȳ(Dj,C) ∨ y(Dj+3,B));
 *      (x̄ ∨ ȳ(Dj,A) ∨ ȳ(Dj+1,A) ∨ y(Dj+3,C)) for j = 0..3                     18
 *   6: long(B), long(C); (x̄ ∨ y(Dj,A) ∨ y(Dj+1,A)); (x̄ ∨ ȳ(Dj,B) ∨ y(Dj+2,C));
 *      (x̄ ∨ ȳ(Dj,C) ∨ y(Dj+2,B)) for j = 0..3                                 14
 *   7: long(A..D); (x̄ ∨ ȳ(Dj,X) ∨ y(Dj+1,next(X))) for X = A..D, j = 0..3      20
 * All positive rotation clauses are used (the paper's choice), so types 5-7 carry their long clauses.
 * Type 5's opposite-pair clauses are emitted once per diamond, i.e. each twice: that is the count behind
 * Table 1 (18 clauses per type-5 x variable; see docs/encodings.md). Duplicates do not change the formula's
 * meaning. With exactly-one colour per diamond these clauses hold iff the diamonds show a rotation of the
 * piece (checked exhaustively by test/unit/encode-heule.test.ts).
 */

import type { ClauseBuffer } from "./formula.js";

/** A centre piece's type and its colours as indices into the centre colour class (A, B, C, D as above). */
export interface CentrePattern {
  readonly type: 1 | 2 | 3 | 4 | 5 | 6 | 7;
  readonly a: number;
  readonly b: number;
  readonly c: number;
  readonly d: number;
}

/** Clauses per x variable of each type (index = type). */
export const CLAUSES_PER_TYPE = [0, 4, 7, 4, 8, 18, 14, 20] as const;

/** Classifies a piece's colours (clockwise, any rotation) already mapped to colour indices. */
export function centrePattern(e: readonly [number, number, number, number]): CentrePattern {
  const distinct = new Set(e).size;
  const at = (i: number): number => e[i & 3];
  if (distinct === 1) return { type: 1, a: e[0], b: e[0], c: e[0], d: e[0] };
  if (distinct === 4) return { type: 7, a: e[0], b: e[1], c: e[2], d: e[3] };
  if (distinct === 2) {
    for (let s = 0; s < 4; s++) {
      if (at(s) !== at(s + 1) && at(s + 1) === at(s + 2) && at(s + 2) === at(s + 3)) {
        return { type: 2, a: at(s + 1), b: at(s), c: at(s + 1), d: at(s + 1) };
      }
    }
    if (e[0] === e[2]) return { type: 4, a: e[0], b: e[1], c: e[0], d: e[1] };
    const s = e[0] === e[1] ? 0 : 1;
    return { type: 3, a: at(s), b: at(s + 2), c: at(s), d: at(s + 2) };
  }
  for (let s = 0; s < 4; s++) {
    if (at(s) === at(s + 2)) return { type: 6, a: at(s), b: at(s + 1), c: at(s + 3), d: at(s) };
  }
  for (let s = 0; s < 4; s++) {
    if (at(s) === at(s + 1)) return { type: 5, a: at(s), b: at(s + 2), c: at(s + 3), d: at(s) };
  }
  throw new Error(`unreachable: no centre type for colours ${e.join(" ")}`);
}

const s4: number[] = [0, 0, 0, 0];
const s5: number[] = [0, 0, 0, 0, 0];

function long(cb: ClauseBuffer, nx: number, y: Int32Array, col: number): void {
  s5[0] = nx;
  s5[1] = y[0] + col;
  s5[2] = y[1] + col;
  s5[3] = y[2] + col;
  s5[4] = y[3] + col;
  cb.add(s5);
}

/**
 * Adds the clauses of `pat` for variable x on a cell whose diamonds have colour bases y[0..3]
 * (y(Dj, colour index i) = y[j] + i). Returns the number of clauses added.
 */
export function addCentreClauses(cb: ClauseBuffer, x: number, y: Int32Array, pat: CentrePattern): number {
  const nx = -x;
  const { a, b, c, d } = pat;
  switch (pat.type) {
    case 1:
      for (let j = 0; j < 4; j++) cb.add2(nx, y[j] + a);
      return 4;
    case 2:
      long(cb, nx, y, b);
      for (let j = 0; j < 4; j++) cb.add3(nx, y[j] + a, y[(j + 1) & 3] + a);
      cb.add3(nx, y[0] + a, y[2] + a);
      cb.add3(nx, y[1] + a, y[3] + a);
      return 7;
    case 3:
      for (let j = 0; j < 2; j++) {
        cb.add3(nx, y[j] + a, y[j + 2] + a);
        cb.add3(nx, y[j] + b, y[j + 2] + b);
      }
      return 4;
    case 4:
      for (let j = 0; j < 4; j++) {
        cb.add3(nx, y[j] + a, y[(j + 1) & 3] + a);
        cb.add3(nx, y[j] + b, y[(j + 1) & 3] + b);
      }
      return 8;
    case 5:
      long(cb, nx, y, b);
      long(cb, nx, y, c);
      for (let j = 0; j < 4; j++) {
        const j1 = (j + 1) & 3, j2 = (j + 2) & 3, j3 = (j + 3) & 3;
        cb.add3(nx, y[j] + a, y[j2] + a);
        cb.add3(nx, -(y[j] + b), y[j1] + c);
        cb.add3(nx, -(y[j] + c), y[j3] + b);
        s4[0] = nx;
        s4[1] = -(y[j] + a);
        s4[2] = -(y[j1] + a);
        s4[3] = y[j3] + c;
        cb.add(s4);
      }
      return 18;
    case 6:
      long(cb, nx, y, b);
      long(cb, nx, y, c);
      for (let j = 0; j < 4; j++) {
        const j1 = (j + 1) & 3, j2 = (j + 2) & 3;
        cb.add3(nx, y[j] + a, y[j1] + a);
        cb.add3(nx, -(y[j] + b), y[j2] + c);
        cb.add3(nx, -(y[j] + c), y[j2] + b);
      }
      return 14;
    case 7:
      long(cb, nx, y, a);
      long(cb, nx, y, b);
      long(cb, nx, y, c);
      long(cb, nx, y, d);
      for (let j = 0; j < 4; j++) {
        const j1 = (j + 1) & 3;
        cb.add3(nx, -(y[j] + a), y[j1] + b);
        cb.add3(nx, -(y[j] + b), y[j1] + c);
        cb.add3(nx, -(y[j] + c), y[j1] + d);
        cb.add3(nx, -(y[j] + d), y[j1] + a);
      }
      return 20;
  }
}
