/**
 * Candidate tables: which (piece, rotation) can go on a cell, looked up fast.
 *
 * Pieces are grouped into classes of identical pieces (equal up to rotation). Search and splitting work
 * on class orientations: a class orientation is one distinct placed tuple (N, E, S, W) of a class, so a
 * rotationally symmetric piece has fewer than four and identical pieces share theirs. Two different class
 * orientations never have the same placed tuple. Which copy of a class is put on the board is decided
 * only when a placement is reported: the lowest-index copy not used yet (`PlacementState.assignPieces`).
 *
 * Each class orientation is packed into one int32: the dense colour of side d in bits 7d..7d+6 and the
 * grey mask (bit d set when side d is grey) in bits 28..31. A cell's constraints (colours required by
 * placed neighbours, grey exactly on its rim sides in bounded puzzles) become a mask and a value, and an
 * orientation fits when `(packed & mask) === value`.
 *
 * Orientations are listed (CSR arrays, ascending orientation index) by
 * - T2: a pair of adjacent sides (d, d+1 mod 4) and their two colours,
 * - T1: one side and its colour,
 * - T0: the grey mask (all orientations that may lie on a cell with that rim).
 * A lookup takes the shortest list whose key is fully constrained and filters it.
 */

import { InvalidOptionError } from "../errors.js";
import { isBounded, neighbour, rimSides, rotateEdges, type Edges, type Puzzle } from "../puzzle.js";

/** Bits per packed colour. */
export const COLOUR_BITS = 7;
/** Mask of one packed colour. */
export const COLOUR_FIELD = (1 << COLOUR_BITS) - 1;
/** Shift of the grey mask in a packed orientation. */
export const GREY_SHIFT = 28;
/** The grey-mask bits of a packed orientation. */
export const GREY_BITS = 0xf << GREY_SHIFT;
/** Most distinct colours (grey included) the packed representation holds. */
export const MAX_DISTINCT_COLOURS = 1 << COLOUR_BITS;

/** Immutable lookup tables for one puzzle. All arrays are indexed as documented; never mutated. */
export interface CandidateTables {
  readonly rows: number;
  readonly cols: number;
  readonly cells: number;
  readonly bounded: boolean;
  /** Number of dense colours K; dense colour 0 is grey in bounded puzzles. */
  readonly colours: number;
  readonly pieceCount: number;
  readonly classCount: number;
  /** Class of each piece. */
  readonly classOfPiece: Int32Array;
  /** Quarter turns s with piece.edges = rotateEdges(representative.edges, s). */
  readonly shiftOfPiece: Uint8Array;
  /** Members of class k: memberList[memberStart[k] .. memberStart[k+1]), ascending piece index. */
  readonly memberStart: Int32Array;
  readonly memberList: Int32Array;
  readonly orientationCount: number;
  readonly oriClass: Int32Array;
  /** Smallest rotation of the class representative giving this orientation. */
  readonly oriRot: Uint8Array;
  readonly oriPacked: Int32Array;
  /** Grey mask of the orientation (bit d: side d grey). */
  readonly oriGrey: Uint8Array;
  /** oriOfClassRot[k*4 + r] = orientation of class k's representative turned r times. */
  readonly oriOfClassRot: Int32Array;
  /** Orientations of class k: classOriList[classOriStart[k] .. classOriStart[k+1]). */
  readonly classOriStart: Int32Array;
  readonly classOriList: Int32Array;
  /** Bit m set when class k has an orientation with grey mask m (16 bits). */
  readonly classMasks: Int32Array;
  /**
   * T2 key ((d*K + a)*K + b): side d has colour a and side d+1 colour b. `t2Packed`/`t2Class` hold
   * oriPacked/oriClass of each list entry, so scans read memory in order (likewise T1, T0).
   */
  readonly t2Start: Int32Array;
  readonly t2List: Int32Array;
  readonly t2Packed: Int32Array;
  readonly t2Class: Int32Array;
  /** T1 key d*K + a. */
  readonly t1Start: Int32Array;
  readonly t1List: Int32Array;
  readonly t1Packed: Int32Array;
  readonly t1Class: Int32Array;
  /** T0 key: grey mask 0..15. */
  readonly t0Start: Int32Array;
  readonly t0List: Int32Array;
  readonly t0Packed: Int32Array;
  readonly t0Class: Int32Array;
  /** nb[cell*4 + d]: neighbour across side d or -1. */
  readonly nb: Int32Array;
  /** Rim mask of each cell (bit d: side d on the rim) in bounded puzzles, 0 in unbounded ones. */
  readonly cellRim: Uint8Array;
  /** Dense colour of each original colour number. */
  readonly denseColour: Map<number, number>;
}

const cache = new WeakMap<Puzzle, CandidateTables>();

/** The tables of `puzzle`, built once per puzzle object. */
export function tablesFor(puzzle: Puzzle): CandidateTables {
  let t = cache.get(puzzle);
  if (t === undefined) {
    t = buildTables(puzzle);
    cache.set(puzzle, t);
  }
  return t;
}

function tupleKey(e: Edges): string {
  return `${e[0]},${e[1]},${e[2]},${e[3]}`;
}

function canonicalKey(e: Edges): string {
  let best = "";
  for (let r = 0; r < 4; r++) {
    const k = tupleKey(rotateEdges(e, r));
    if (best === "" || k < best) best = k;
  }
  return best;
}

/** Compressed-sparse-row lists from (key, value) pairs, values kept in insertion order per key. */
function csr(keys: number, pairs: number[]): { start: Int32Array; list: Int32Array } {
  const start = new Int32Array(keys + 1);
  for (let i = 0; i < pairs.length; i += 2) start[pairs[i] + 1]++;
  for (let k = 0; k < keys; k++) start[k + 1] += start[k];
  const fill = start.slice(0, keys);
  const list = new Int32Array(pairs.length / 2);
  for (let i = 0; i < pairs.length; i += 2) list[fill[pairs[i]]++] = pairs[i + 1];
  return { start, list };
}

/** Builds the candidate tables of a (validated) puzzle. */
export function buildTables(puzzle: Puzzle): CandidateTables {
  const { rows, cols, pieces } = puzzle;
  const cells = rows * cols;
  const bounded = isBounded(puzzle);

  const distinct = new Set<number>();
  for (const p of pieces) for (const c of p.edges) distinct.add(c);
  if (distinct.size > MAX_DISTINCT_COLOURS) {
    throw new InvalidOptionError("puzzle", `${distinct.size} distinct colours; the cube splitter supports at most ${MAX_DISTINCT_COLOURS}`);
  }
  const denseColour = new Map<number, number>();
  [...distinct].sort((a, b) => a - b).forEach((c, i) => denseColour.set(c, i));
  const K = Math.max(1, distinct.size);

  // Classes of identical pieces; the representative is the lowest index.
  const classByKey = new Map<string, number>();
  const classOfPiece = new Int32Array(pieces.length);
  const shiftOfPiece = new Uint8Array(pieces.length);
  const reps: number[] = [];
  const members: number[][] = [];
  pieces.forEach((p, i) => {
    const key = canonicalKey(p.edges);
    let k = classByKey.get(key);
    if (k === undefined) {
      k = reps.length;
      classByKey.set(key, k);
      reps.push(i);
      members.push([]);
    }
    classOfPiece[i] = k;
    members[k].push(i);
    const rep = pieces[reps[k]].edges;
    const own = tupleKey(p.edges);
    let s = 0;
    while (tupleKey(rotateEdges(rep, s)) !== own) s++;
    shiftOfPiece[i] = s;
  });
  const classCount = reps.length;
  const memberStart = new Int32Array(classCount + 1);
  for (let k = 0; k < classCount; k++) memberStart[k + 1] = memberStart[k] + members[k].length;
  const memberList = Int32Array.from(members.flat());

  // Class orientations.
  const oriClass: number[] = [];
  const oriRot: number[] = [];
  const oriPacked: number[] = [];
  const oriGrey: number[] = [];
  const oriColours: number[][] = [];
  const oriOfClassRot = new Int32Array(classCount * 4);
  const classOriStart = new Int32Array(classCount + 1);
  const classMasks = new Int32Array(classCount);
  for (let k = 0; k < classCount; k++) {
    const seen = new Map<string, number>();
    for (let r = 0; r < 4; r++) {
      const e = rotateEdges(pieces[reps[k]].edges, r);
      const key = tupleKey(e);
      let o = seen.get(key);
      if (o === undefined) {
        o = oriClass.length;
        seen.set(key, o);
        let grey = 0;
        let packed = 0;
        const dense: number[] = [];
        for (let d = 0; d < 4; d++) {
          const c = denseColour.get(e[d])!;
          dense.push(c);
          packed |= c << (COLOUR_BITS * d);
          if (bounded && e[d] === 0) grey |= 1 << d;
        }
        packed |= grey << GREY_SHIFT;
        oriClass.push(k);
        oriRot.push(r);
        oriPacked.push(packed);
        oriGrey.push(grey);
        oriColours.push(dense);
        classMasks[k] |= 1 << grey;
      }
      oriOfClassRot[k * 4 + r] = o;
    }
    classOriStart[k + 1] = oriClass.length;
  }
  const orientationCount = oriClass.length;
  const classOriList = new Int32Array(orientationCount);
  for (let o = 0; o < orientationCount; o++) classOriList[o] = o;

  const p2: number[] = [];
  const p1: number[] = [];
  const p0: number[] = [];
  for (let o = 0; o < orientationCount; o++) {
    const c = oriColours[o];
    for (let d = 0; d < 4; d++) {
      p2.push((d * K + c[d]) * K + c[(d + 1) & 3], o);
      p1.push(d * K + c[d], o);
    }
    p0.push(oriGrey[o], o);
  }
  const t2 = csr(4 * K * K, p2);
  const t1 = csr(4 * K, p1);
  const t0 = csr(16, p0);

  const nb = new Int32Array(cells * 4);
  const cellRim = new Uint8Array(cells);
  for (let cell = 0; cell < cells; cell++) {
    const rim = rimSides(puzzle, cell);
    for (let d = 0; d < 4; d++) {
      nb[cell * 4 + d] = neighbour(puzzle, cell, d);
      if (bounded && rim[d]) cellRim[cell] |= 1 << d;
    }
  }

  const packedArr = Int32Array.from(oriPacked);
  const classArr = Int32Array.from(oriClass);
  const mapped = (list: Int32Array, from: Int32Array): Int32Array => list.map((o) => from[o]);
  return {
    rows, cols, cells, bounded, colours: K,
    pieceCount: pieces.length, classCount, classOfPiece, shiftOfPiece, memberStart, memberList,
    orientationCount,
    oriClass: classArr,
    oriRot: Uint8Array.from(oriRot),
    oriPacked: packedArr,
    oriGrey: Uint8Array.from(oriGrey),
    oriOfClassRot, classOriStart, classOriList, classMasks,
    t2Start: t2.start, t2List: t2.list, t2Packed: mapped(t2.list, packedArr), t2Class: mapped(t2.list, classArr),
    t1Start: t1.start, t1List: t1.list, t1Packed: mapped(t1.list, packedArr), t1Class: mapped(t1.list, classArr),
    t0Start: t0.start, t0List: t0.list, t0Packed: mapped(t0.list, packedArr), t0Class: mapped(t0.list, classArr),
    nb, cellRim, denseColour,
  };
}

/** Dense colour on side d of a packed orientation. */
export function packedColour(packed: number, d: number): number {
  return (packed >>> (COLOUR_BITS * d)) & COLOUR_FIELD;
}

/** Rotation of piece `piece` that realises class orientation `o` (placed tuple of o). */
export function pieceRotation(t: CandidateTables, piece: number, o: number): number {
  return (t.oriRot[o] - t.shiftOfPiece[piece] + 4) & 3;
}

/** Class orientation of `piece` turned `rot` times. */
export function orientationOf(t: CandidateTables, piece: number, rot: number): number {
  return t.oriOfClassRot[t.classOfPiece[piece] * 4 + ((rot + t.shiftOfPiece[piece]) & 3)];
}
