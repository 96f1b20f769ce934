/**
 * A CNF formula as produced by an encoding: the clauses in one flat, growable Int32Array
 * (each clause's literals followed by a 0, as in DIMACS), the variable count, per-section clause
 * counts (for the paper's Table 1), and the variable map that decodes a model back to a board.
 */

import type { Board, Placement } from "../puzzle.js";

/** Clauses in a flat Int32Array, 0-terminated, growing by doubling. */
export class ClauseBuffer {
  private buf: Int32Array;
  private len = 0;
  private clauses = 0;

  constructor(initialCapacity = 1 << 16) {
    this.buf = new Int32Array(initialCapacity);
  }

  /** Number of clauses added. */
  get count(): number {
    return this.clauses;
  }

  /** Number of Int32 slots used (literals plus terminators). */
  get length(): number {
    return this.len;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Int32Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  add(lits: readonly number[]): void {
    this.reserve(lits.length + 1);
    const b = this.buf;
    let l = this.len;
    for (let i = 0; i < lits.length; i++) {
      const x = lits[i];
      if (x === 0 || !Number.isInteger(x)) throw new Error(`bad literal ${x} in clause`);
      b[l++] = x;
    }
    b[l++] = 0;
    this.len = l;
    this.clauses++;
  }

  add1(a: number): void {
    this.reserve(2);
    this.buf[this.len++] = a;
    this.buf[this.len++] = 0;
    this.clauses++;
  }

  add2(a: number, b: number): void {
    this.reserve(3);
    const buf = this.buf;
    let l = this.len;
    buf[l++] = a;
    buf[l++] = b;
    buf[l++] = 0;
    this.len = l;
    this.clauses++;
  }

  add3(a: number, b: number, c: number): void {
    this.reserve(4);
    const buf = this.buf;
    let l = this.len;
    buf[l++] = a;
    buf[l++] = b;
    buf[l++] = c;
    buf[l++] = 0;
    this.len = l;
    this.clauses++;
  }

  /** The used part of the buffer (a view, not a copy). */
  view(): Int32Array {
    return this.buf.subarray(0, this.len);
  }

  /** Calls `fn` for every clause with a view of its literals (valid only during the call). */
  forEach(fn: (lits: Int32Array) => void): void {
    const b = this.buf;
    let start = 0;
    for (let i = 0; i < this.len; i++) {
      if (b[i] === 0) {
        fn(b.subarray(start, i));
        start = i + 1;
      }
    }
  }
}

/**
 * Decodes models and maps placements to literals. Each encoding provides one; it is what lets
 * a model become a board and a cube become unit clauses.
 */
export interface VarMap {
  /**
   * The board a model describes. `value(v)` is true when variable v is true in the model.
   * Cells with no (or more than one) piece are reported as null / the first one found; the
   * verifier, not the decoder, decides whether the board is a solution.
   */
  decode(value: (v: number) => boolean): Board;
  /** Literals whose conjunction asserts `placement` (the unit clauses of a cube). */
  placementLiterals(placement: Placement): number[];
  /** Human description of a variable, for debugging (`x(piece 3, cell 7)`). */
  describe(v: number): string;
}

export interface Formula {
  /** Encoding name, e.g. "heule-all". */
  readonly encoding: string;
  readonly numVars: number;
  readonly clauses: ClauseBuffer;
  /** Clause counts per section (e.g. compact / fbcolors / explicit / hints), summing to clauses.count. */
  readonly sections: Readonly<Record<string, number>>;
  readonly varMap: VarMap;
}
