/**
 * Unit propagation for the lookahead cuber: two watched literals per clause, a trail of assigned literals, and
 * backtracking to a mark of the trail. The watches need no undo on backtracking (the watched-literal invariant holds
 * for any prefix of the trail), so a lookahead probe is assign, propagate, count, backtrack.
 *
 * Clauses are normalized on load: duplicate literals are dropped, tautologies are dropped, unit clauses become
 * root assignments, and an empty clause (or two contradicting units) makes the formula refuted at the root.
 */

import type { Cnf } from "./cnf.js";

const TRUE = 1, FALSE = -1;

/** Index of a literal in the watch lists: 2v for v, 2v+1 for -v. */
function index(lit: number): number {
  return lit > 0 ? 2 * lit : -2 * lit + 1;
}

/** A formula under a partial assignment, with unit propagation. */
export class Propagator {
  /** value[v]: 1 true, -1 false, 0 unassigned. */
  readonly value: Int8Array;
  /** The assigned literals, in order. */
  readonly trail: Int32Array;
  private trailLen = 0;
  private qhead = 0;
  private readonly watches: number[][];
  /** The clauses of two or more literals; positions 0 and 1 are the watched ones. */
  readonly clauses: Int32Array[] = [];
  /** True when the formula is refuted by unit propagation at the root (an empty clause, contradicting units). */
  readonly refutedAtRoot: boolean;

  constructor(readonly cnf: Cnf) {
    const n = cnf.numVars;
    this.value = new Int8Array(n + 1);
    this.trail = new Int32Array(n);
    this.watches = Array.from({ length: 2 * n + 2 }, () => []);
    const units: number[] = [];
    const kept: number[][] = [];
    let empty = false;
    let size = 0;
    cnf.clauses.forEach((lits) => {
      const unique = lits.length === 2 ? (lits[0] === lits[1] ? [lits[0]] : [lits[0], lits[1]]) : [...new Set(lits)];
      if (unique.some((l) => unique.includes(-l))) return;
      if (unique.length === 0) empty = true;
      else if (unique.length === 1) units.push(unique[0]);
      else {
        kept.push(unique);
        size += unique.length;
      }
    });
    // One buffer for every clause (each a view of it): the lookahead's scans over all clauses stay in cache order.
    const store = new Int32Array(size);
    let at = 0;
    for (const lits of kept) {
      store.set(lits, at);
      const c = store.subarray(at, at + lits.length);
      at += lits.length;
      this.watches[index(c[0])].push(this.clauses.length);
      this.watches[index(c[1])].push(this.clauses.length);
      this.clauses.push(c);
    }
    let ok = !empty;
    for (const u of units) if (ok) ok = this.assign(u);
    this.refutedAtRoot = !(ok && this.propagate());
  }

  /** The number of assigned variables (the trail's length): a mark to backtrack to. */
  get assigned(): number {
    return this.trailLen;
  }

  /** The literal's value: 1 true, -1 false, 0 unassigned. */
  valueOf(lit: number): number {
    const v = this.value[lit > 0 ? lit : -lit];
    return lit > 0 ? v : -v;
  }

  /** Assigns `lit` true (to be propagated); false when it is already false (a conflict). */
  assign(lit: number): boolean {
    const v = this.valueOf(lit);
    if (v === TRUE) return true;
    if (v === FALSE) return false;
    this.value[lit > 0 ? lit : -lit] = lit > 0 ? TRUE : FALSE;
    this.trail[this.trailLen++] = lit;
    return true;
  }

  /** Propagates every assigned literal not yet propagated; false on a conflict (then backtrack). */
  propagate(): boolean {
    while (this.qhead < this.trailLen) {
      const falseLit = -this.trail[this.qhead++];
      if (!this.visit(falseLit)) return false;
    }
    return true;
  }

  /** Visits the clauses watching `falseLit`: moves watches, assigns units; false on a conflict. */
  private visit(falseLit: number): boolean {
    const ws = this.watches[index(falseLit)];
    let j = 0;
    for (let i = 0; i < ws.length; i++) {
      const ci = ws[i];
      const c = this.clauses[ci];
      if (c[0] === falseLit) {
        c[0] = c[1];
        c[1] = falseLit;
      }
      if (this.valueOf(c[0]) === TRUE) {
        ws[j++] = ci;
        continue;
      }
      let moved = false;
      for (let k = 2; k < c.length; k++) {
        if (this.valueOf(c[k]) !== FALSE) {
          c[1] = c[k];
          c[k] = falseLit;
          this.watches[index(c[1])].push(ci);
          moved = true;
          break;
        }
      }
      if (moved) continue;
      ws[j++] = ci;
      if (!this.assign(c[0])) {
        for (let k = i + 1; k < ws.length; k++) ws[j++] = ws[k];
        ws.length = j;
        return false;
      }
    }
    ws.length = j;
    return true;
  }

  /** Unassigns everything after the first `mark` assignments. */
  backtrack(mark: number): void {
    while (this.trailLen > mark) {
      const lit = this.trail[--this.trailLen];
      this.value[lit > 0 ? lit : -lit] = 0;
    }
    this.qhead = Math.min(this.qhead, mark);
  }
}
