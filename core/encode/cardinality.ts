/**
 * Cardinality constraints over literals, written into a ClauseBuffer.
 *
 * - pairwise at-most-one: (¬a ∨ ¬b) for every pair; no auxiliary variables.
 * - sequential at-most-one (Sinz 2005): s_i = "some of x_1..x_i is true"; 3n - 4 clauses, n - 1 auxiliaries.
 * - sequential counter at-most-k (Sinz 2005, LT_seq): s(i, j) = "at least j of x_1..x_i are true" for
 *   j = 1..k; about 2nk clauses and (n - 1)k auxiliaries. With k = 1 it is the sequential at-most-one.
 * Auxiliary variables come from `allocate()`, which returns a fresh variable number each call.
 */

import type { ClauseBuffer } from "./formula.js";

/** Adds (¬a ∨ ¬b) for every pair of `lits`. */
export function addPairwiseAmo(cb: ClauseBuffer, lits: ArrayLike<number>): void {
  for (let i = 0; i < lits.length; i++) {
    const a = -lits[i];
    for (let j = i + 1; j < lits.length; j++) cb.add2(a, -lits[j]);
  }
}

/** At most k of `lits` are true (sequential counter); k >= 1. */
export function addSequentialAtMost(cb: ClauseBuffer, lits: ArrayLike<number>, k: number, allocate: () => number): void {
  const n = lits.length;
  if (n <= k) return;
  if (k === 1 && n <= 4) {
    addPairwiseAmo(cb, lits);
    return;
  }
  // s[j] holds s(i, j+1) of the previous prefix.
  let prev: number[] = [];
  for (let i = 0; i < n - 1; i++) {
    const xi = lits[i];
    const width = Math.min(k, i + 1);
    const cur: number[] = [];
    for (let j = 0; j < width; j++) cur.push(allocate());
    cb.add2(-xi, cur[0]);
    for (let j = 0; j < prev.length; j++) cb.add2(-prev[j], cur[j]);
    for (let j = 1; j < width; j++) cb.add3(-xi, -prev[j - 1], cur[j]);
    if (prev.length === k) cb.add2(-xi, -prev[k - 1]);
    prev = cur;
  }
  if (prev.length === k) cb.add2(-lits[n - 1], -prev[k - 1]);
}
