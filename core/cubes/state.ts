/**
 * A mutable partial placement with incremental bookkeeping, shared by the splitter and the
 * most-constrained search. Placements are class orientations (see candidates.ts); `place` and
 * `unplace` must be called in LIFO order (a path), which keeps every counter exact.
 *
 * Maintained per placement, O(1) each:
 * - `need[cell*4+d]`: dense colour side d of `cell` must have (placed neighbour, grey rim), or -1;
 * - `avail[k]`: unused copies of class k; `availByMask[m]`: orientations of classes with an unused
 *   copy whose grey mask is m (= candidates of an empty cell with rim m and no placed neighbour);
 * - `placedNbr[cell]`, `freeCount[m]`: empty cells of rim m without a placed neighbour;
 * - `balance[c]`: unused half-edges of colour c minus half-edges of colour c facing an empty cell.
 *
 * Pruning (checked after a placement, see `PruningLevel`):
 * - "neighbours": every empty neighbour of the new placement still has a candidate;
 * - "full": every empty cell has a candidate, every unused class fits some empty cell, and for every
 *   non-grey colour the unused half-edges can cover the half-edges facing empty cells (balance >= 0).
 */

import type { Board, Placement } from "../puzzle.js";
import * as packing from "./candidates.js";
import { orientationOf, type CandidateTables } from "./candidates.js";
import type { PruningLevel } from "./types.js";

// Plain module constants: hot loops must not read them through a module binding (loaders such as tsx
// compile imported bindings to getter calls).
const COLOUR_BITS = packing.COLOUR_BITS;
const COLOUR_FIELD = packing.COLOUR_FIELD;
const GREY_BITS = packing.GREY_BITS;
const GREY_SHIFT = packing.GREY_SHIFT;

function packedColour(packed: number, d: number): number {
  return (packed >>> (COLOUR_BITS * d)) & COLOUR_FIELD;
}

export class PlacementState {
  readonly t: CandidateTables;
  /** Class orientation on each cell, or -1. */
  readonly board: Int32Array;
  /** Piece of each fixed (hint or given) placement, or -1 (resolved on output otherwise). */
  readonly fixedPiece: Int32Array;
  /** Rotation of each fixed placement as given (symmetric pieces keep the rotation they were given). */
  readonly fixedRot: Int32Array;
  readonly pieceUsed: Uint8Array;
  readonly need: Int32Array;
  readonly avail: Int32Array;
  readonly availByMask: Int32Array;
  readonly placedNbr: Uint8Array;
  readonly freeCount: Int32Array;
  readonly balance: Int32Array;
  filled = 0;
  /** Set by `select`: the candidate list range and the fit mask/value for one cell. */
  ls = 0;
  le = 0;
  list: Int32Array;
  cm = 0;
  cv = 0;
  private readonly stamp: Int32Array;
  private generation = 0;

  constructor(t: CandidateTables) {
    this.t = t;
    this.board = new Int32Array(t.cells).fill(-1);
    this.fixedPiece = new Int32Array(t.cells).fill(-1);
    this.fixedRot = new Int32Array(t.cells).fill(-1);
    this.pieceUsed = new Uint8Array(t.pieceCount);
    this.need = new Int32Array(t.cells * 4).fill(-1);
    this.avail = new Int32Array(t.classCount);
    this.availByMask = new Int32Array(16);
    this.placedNbr = new Uint8Array(t.cells);
    this.freeCount = new Int32Array(16);
    this.balance = new Int32Array(t.colours);
    this.stamp = new Int32Array(Math.max(t.classCount, t.pieceCount));
    this.list = t.t0List;
    for (let k = 0; k < t.classCount; k++) {
      this.avail[k] = t.memberStart[k + 1] - t.memberStart[k];
      for (let i = t.classOriStart[k]; i < t.classOriStart[k + 1]; i++) this.availByMask[t.oriGrey[i]]++;
    }
    for (let cell = 0; cell < t.cells; cell++) {
      this.freeCount[t.cellRim[cell]]++;
      for (let d = 0; d < 4; d++) if (t.cellRim[cell] & (1 << d)) this.need[cell * 4 + d] = 0;
    }
    for (let o = 0, n = t.orientationCount; o < n; o++) {
      // balance counts each piece once: take its class's first orientation, once per copy.
      const k = t.oriClass[o];
      if (t.classOriStart[k] !== o) continue;
      const copies = this.avail[k];
      for (let d = 0; d < 4; d++) this.balance[packedColour(t.oriPacked[o], d)] += copies;
    }
  }

  /** Loads the candidate list and fit test of `cell` into ls/le/list/cm/cv. */
  select(cell: number): void {
    const t = this.t, need = this.need, K = t.colours, base = cell * 4;
    let cm = t.bounded ? GREY_BITS : 0;
    let cv = t.cellRim[cell] << GREY_SHIFT;
    let bestLen = 0x7fffffff, bs = 0, be = 0, bl = t.t0List;
    for (let d = 0; d < 4; d++) {
      const a = need[base + d];
      if (a < 0) continue;
      cm |= COLOUR_FIELD << (COLOUR_BITS * d);
      cv |= a << (COLOUR_BITS * d);
      const b = need[base + ((d + 1) & 3)];
      if (b >= 0) {
        const key = (d * K + a) * K + b;
        const s = t.t2Start[key], e = t.t2Start[key + 1];
        if (e - s < bestLen) { bestLen = e - s; bs = s; be = e; bl = t.t2List; }
      }
    }
    if (bl === t.t0List) {
      for (let d = 0; d < 4; d++) {
        const a = need[base + d];
        if (a < 0) continue;
        const key = d * K + a;
        const s = t.t1Start[key], e = t.t1Start[key + 1];
        if (e - s < bestLen) { bestLen = e - s; bs = s; be = e; bl = t.t1List; }
      }
    }
    if (bl === t.t0List) {
      const m = t.cellRim[cell];
      bs = t.t0Start[m]; be = t.t0Start[m + 1];
    }
    this.ls = bs; this.le = be; this.list = bl; this.cm = cm; this.cv = cv;
  }

  /** True when orientation o fits the empty `cell` now (colours, rim, an unused copy). */
  fits(cell: number, o: number): boolean {
    this.select(cell);
    return this.avail[this.t.oriClass[o]] > 0 && (this.t.oriPacked[o] & this.cm) === this.cv;
  }

  /** Number of candidates of the empty `cell`, counting stops at `limit`. */
  count(cell: number, limit: number): number {
    if (this.placedNbr[cell] === 0) {
      const n = this.availByMask[this.t.cellRim[cell]];
      return n < limit ? n : limit;
    }
    this.select(cell);
    const list = this.list, packed = this.t.oriPacked, cls = this.t.oriClass, avail = this.avail;
    const cm = this.cm, cv = this.cv;
    let n = 0;
    for (let i = this.ls, e = this.le; i < e; i++) {
      const o = list[i];
      if (avail[cls[o]] > 0 && (packed[o] & cm) === cv && ++n >= limit) return n;
    }
    return n;
  }

  /** Writes the candidates of the empty `cell` to out[at..]; returns how many. */
  collect(cell: number, out: Int32Array, at: number): number {
    this.select(cell);
    const list = this.list, packed = this.t.oriPacked, cls = this.t.oriClass, avail = this.avail;
    const cm = this.cm, cv = this.cv;
    let n = at;
    for (let i = this.ls, e = this.le; i < e; i++) {
      const o = list[i];
      if (avail[cls[o]] > 0 && (packed[o] & cm) === cv) out[n++] = o;
    }
    return n - at;
  }

  /** Places class orientation `o` on the empty `cell` (no fit check). */
  place(cell: number, o: number): void {
    const t = this.t, k = t.oriClass[o], p = t.oriPacked[o];
    this.board[cell] = o;
    this.filled++;
    if (--this.avail[k] === 0) {
      for (let i = t.classOriStart[k]; i < t.classOriStart[k + 1]; i++) this.availByMask[t.oriGrey[i]]--;
    }
    if (this.placedNbr[cell] === 0) this.freeCount[t.cellRim[cell]]--;
    for (let d = 0; d < 4; d++) {
      const c = packedColour(p, d);
      this.balance[c]--;
      const y = t.nb[cell * 4 + d];
      if (y < 0) continue;
      this.need[y * 4 + (d ^ 2)] = c;
      if (this.board[y] < 0) {
        this.balance[c]--;
        if (this.placedNbr[y] === 0) this.freeCount[t.cellRim[y]]--;
      } else {
        this.balance[c]++;
      }
      this.placedNbr[y]++;
    }
  }

  /** Removes the placement on `cell` (must be the most recent one still on the board). */
  unplace(cell: number): void {
    const t = this.t, o = this.board[cell], k = t.oriClass[o], p = t.oriPacked[o];
    this.board[cell] = -1;
    this.filled--;
    if (this.avail[k]++ === 0) {
      for (let i = t.classOriStart[k]; i < t.classOriStart[k + 1]; i++) this.availByMask[t.oriGrey[i]]++;
    }
    for (let d = 0; d < 4; d++) {
      const c = packedColour(p, d);
      this.balance[c]++;
      const y = t.nb[cell * 4 + d];
      if (y < 0) continue;
      this.need[y * 4 + (d ^ 2)] = -1;
      this.placedNbr[y]--;
      if (this.board[y] < 0) {
        this.balance[c]++;
        if (this.placedNbr[y] === 0) this.freeCount[t.cellRim[y]]++;
      } else {
        this.balance[c]--;
      }
    }
    if (this.placedNbr[cell] === 0) this.freeCount[t.cellRim[cell]]++;
  }

  /**
   * Places a specific piece with a specific rotation (a hint or a cube's placement). Returns false,
   * changing nothing, when the cell is taken, the piece is used, or it does not fit. Placing exactly
   * what a cell already holds as a fixed placement is accepted and changes nothing.
   */
  placeFixed(cell: number, piece: number, rot: number): boolean {
    const t = this.t;
    if (!(cell >= 0 && cell < t.cells && piece >= 0 && piece < t.pieceCount && rot >= 0 && rot < 4)) return false;
    const o = orientationOf(t, piece, rot);
    if (this.board[cell] >= 0) return this.fixedPiece[cell] === piece && this.board[cell] === o;
    if (this.pieceUsed[piece] || !this.fits(cell, o)) return false;
    this.place(cell, o);
    this.pieceUsed[piece] = 1;
    this.fixedPiece[cell] = piece;
    this.fixedRot[cell] = rot;
    return true;
  }

  /** Places every given placement with `placeFixed`; false at the first that cannot be placed. */
  placeAllFixed(placements: readonly Placement[]): boolean {
    for (const p of placements) if (!this.placeFixed(p.cell, p.piece, p.rot)) return false;
    return true;
  }

  /** The pruning checks of `level` on the whole current state (not tied to one new placement). */
  checkAll(level: PruningLevel): boolean {
    if (level === "none") return true;
    if (level === "full") {
      for (let c = 0; c < this.t.colours; c++) if (this.balance[c] < 0) return false;
      return this.checkCells() && this.checkPieces();
    }
    return this.checkCells();
  }

  /** The pruning checks after a placement on `cell`; false when the partial placement is refuted. */
  check(cell: number, level: PruningLevel): boolean {
    if (level === "none") return true;
    const t = this.t;
    if (level === "neighbours") {
      for (let d = 0; d < 4; d++) {
        const y = t.nb[cell * 4 + d];
        if (y >= 0 && this.board[y] < 0 && this.count(y, 1) === 0) return false;
      }
      return true;
    }
    const p = t.oriPacked[this.board[cell]];
    for (let d = 0; d < 4; d++) if (this.balance[packedColour(p, d)] < 0) return false;
    return this.checkCells() && this.checkPieces();
  }

  /** Every empty cell has a candidate. */
  checkCells(): boolean {
    const board = this.board, placedNbr = this.placedNbr;
    for (let m = 0; m < 16; m++) if (this.freeCount[m] > 0 && this.availByMask[m] === 0) return false;
    for (let y = 0, n = this.t.cells; y < n; y++) {
      if (board[y] < 0 && placedNbr[y] > 0 && this.count(y, 1) === 0) return false;
    }
    return true;
  }

  /** Every unused class fits some empty cell. */
  checkPieces(): boolean {
    const t = this.t;
    let freeMasks = 0, needed = false;
    for (let m = 0; m < 16; m++) {
      if (this.freeCount[m] > 0) freeMasks |= 1 << m;
      else if (this.availByMask[m] > 0) needed = true;
    }
    // Every orientation of an unused class lies on a rim mask with a free cell: all classes fit.
    if (!needed) return true;
    let uncovered = false;
    for (let k = 0; k < t.classCount; k++) {
      if (this.avail[k] > 0 && (t.classMasks[k] & freeMasks) === 0) { uncovered = true; break; }
    }
    if (!uncovered) return true;
    const gen = ++this.generation;
    const stamp = this.stamp, board = this.board, cls = t.oriClass, packed = t.oriPacked, avail = this.avail;
    for (let y = 0; y < t.cells; y++) {
      if (board[y] >= 0 || this.placedNbr[y] === 0) continue;
      this.select(y);
      const list = this.list, cm = this.cm, cv = this.cv;
      for (let i = this.ls; i < this.le; i++) {
        const o = list[i];
        if (avail[cls[o]] > 0 && (packed[o] & cm) === cv) stamp[cls[o]] = gen;
      }
    }
    for (let k = 0; k < t.classCount; k++) {
      if (this.avail[k] > 0 && (t.classMasks[k] & freeMasks) === 0 && stamp[k] !== gen) return false;
    }
    return true;
  }

  /**
   * Pieces for placements of class orientations made in the given order: fixed cells keep their piece,
   * every other placement takes the lowest-index copy of its class not used by a fixed placement or an
   * earlier placement in the list. Writes piece and rotation pairs to `out` (2 per placement).
   */
  assignPieces(cells: ArrayLike<number>, oris: ArrayLike<number>, n: number, out: Int32Array): void {
    const t = this.t, gen = ++this.generation, stamp = this.stamp;
    for (let i = 0; i < n; i++) {
      const k = t.oriClass[oris[i]];
      let piece = -1;
      for (let j = t.memberStart[k]; j < t.memberStart[k + 1]; j++) {
        const m = t.memberList[j];
        if (!this.pieceUsed[m] && stamp[m] !== gen) { piece = m; break; }
      }
      if (piece < 0) throw new Error(`assignPieces: no unused copy of class ${k} for cell ${cells[i]}`);
      stamp[piece] = gen;
      out[2 * i] = piece;
      out[2 * i + 1] = (t.oriRot[oris[i]] - t.shiftOfPiece[piece] + 4) & 3;
    }
  }

  /**
   * The board: every fixed placement as given, plus the class orientations `oris` on `cells` (first n)
   * with pieces chosen by `assignPieces`. Cells with neither are empty (null).
   */
  toBoard(cells: ArrayLike<number>, oris: ArrayLike<number>, n: number): Board {
    const t = this.t;
    const out: Array<{ piece: number; rot: number } | null> = new Array(t.cells).fill(null);
    for (let c = 0; c < t.cells; c++) if (this.fixedPiece[c] >= 0) out[c] = { piece: this.fixedPiece[c], rot: this.fixedRot[c] };
    const pr = new Int32Array(2 * n);
    this.assignPieces(cells, oris, n, pr);
    for (let i = 0; i < n; i++) out[cells[i]] = { piece: pr[2 * i], rot: pr[2 * i + 1] };
    return { rows: t.rows, cols: t.cols, cells: out };
  }
}
