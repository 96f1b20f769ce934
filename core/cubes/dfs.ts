/**
 * The backtracking engines behind `searchPlacements` and the splitter's probes. Both run on a
 * PlacementState from its current placements and leave it exactly as they found it.
 *
 * - `staticDfs`: cells in a fixed order; the candidate list of a cell is looked up once when the search
 *   reaches it (by the colours its placed neighbours require, e.g. (north, west) in row-major order) and
 *   scanned with one class-availability test and one masked compare per entry. With pruning "none" or
 *   "neighbours" it touches only board/need/avail, the fast path.
 * - `dynamicDfs`: the next cell is the empty cell with the fewest candidates (ties by row-major index);
 *   slower per node, far fewer nodes on hard instances.
 *
 * Both count a node per placement made, enumerate class orientations (identical pieces once, symmetric
 * rotations once), and report solutions up to swapping identical pieces.
 */

import * as packing from "./candidates.js";
import type { PlacementState } from "./state.js";
import type { PruningLevel } from "./types.js";

// Plain module constants (see state.ts).
const COLOUR_BITS = packing.COLOUR_BITS;
const COLOUR_FIELD = packing.COLOUR_FIELD;
const GREY_BITS = packing.GREY_BITS;
const GREY_SHIFT = packing.GREY_SHIFT;

/** Options of one engine run. */
export interface DfsOptions {
  nodeLimit: number;
  pruning: PruningLevel;
  /** Stop after this many solutions (1 = find one). */
  solutionLimit: number;
}

/** Result of one engine run; `cells`/`oris` are the first solution's placements in search order. */
export interface DfsOutcome {
  /** "exhausted": the whole space below the start state was searched. "limit": stopped early. */
  end: "exhausted" | "solution-limit" | "node-limit";
  nodes: number;
  solutions: number;
  cells: Int32Array | null;
  oris: Int32Array | null;
}

/**
 * Depth-first search over the empty cells listed in `order[0..n)`, in that order. The constrained sides
 * of each depth (rim, cells placed before the search, cells earlier in the order) and the table used for
 * its lookup are fixed before the search starts; the colours are read from the board on entry.
 */
export function staticDfs(s: PlacementState, order: Int32Array, n: number, opts: DfsOptions): DfsOutcome {
  const t = s.t, K = t.colours;
  const board = s.board, need = s.need, avail = s.avail, packed = t.oriPacked, cls = t.oriClass, nb = t.nb;
  const pos = new Int32Array(n + 1), end = new Int32Array(n + 1), cmA = new Int32Array(n + 1), cvA = new Int32Array(n + 1);
  const cvBase = new Int32Array(n + 1), conCell = new Int32Array(4 * n + 4).fill(-1);
  const tabKind = new Int8Array(n + 1), tabSide = new Int8Array(n + 1);
  const lOri: Int32Array[] = new Array(n + 1), lPacked: Int32Array[] = new Array(n + 1), lClass: Int32Array[] = new Array(n + 1);
  const full = opts.pruning === "full", nbrs = opts.pruning === "neighbours";
  const nodeLimit = opts.nodeLimit, solutionLimit = opts.solutionLimit;
  let nodes = 0, solutions = 0, depth = 0;
  let first: { cells: Int32Array; oris: Int32Array } | null = null;

  // Static part of each depth: which sides are constrained and which table answers the lookup.
  const rank = new Int32Array(t.cells).fill(-1);
  for (let i = 0; i < n; i++) rank[order[i]] = i;
  for (let i = 0; i < n; i++) {
    const cell = order[i], rim = t.cellRim[cell];
    let cm = t.bounded ? GREY_BITS : 0, constrained = rim;
    for (let d = 0; d < 4; d++) {
      const y = nb[cell * 4 + d];
      if (y >= 0 && (board[y] >= 0 || (rank[y] >= 0 && rank[y] < i))) { conCell[i * 4 + d] = y; constrained |= 1 << d; }
      if (constrained & (1 << d)) cm |= COLOUR_FIELD << (COLOUR_BITS * d);
    }
    cmA[i] = cm;
    cvBase[i] = rim << GREY_SHIFT;
    // Prefer a pair with a rim side (most selective), then west-north, then any pair, then one side.
    let kind = 0, side = 0;
    for (const d of [3, 0, 1, 2]) {
      const pair = (constrained >> d & 1) && (constrained >> ((d + 1) & 3) & 1);
      if (!pair) continue;
      const rimPair = (rim >> d & 1) | (rim >> ((d + 1) & 3) & 1);
      if (kind < 2 || (rimPair && !((rim >> side & 1) | (rim >> ((side + 1) & 3) & 1)))) { kind = 2; side = d; }
    }
    if (kind === 0) for (const d of [3, 0, 1, 2]) if (kind === 0 && (constrained >> d & 1)) { kind = 1; side = d; }
    tabKind[i] = kind;
    tabSide[i] = side;
  }

  const enter = (dep: number): void => {
    let cv = cvBase[dep];
    const b4 = dep * 4;
    let c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    let y = conCell[b4];
    if (y >= 0) { c0 = (packed[board[y]] >>> (COLOUR_BITS * 2)) & COLOUR_FIELD; cv |= c0; }
    y = conCell[b4 + 1];
    if (y >= 0) { c1 = (packed[board[y]] >>> (COLOUR_BITS * 3)) & COLOUR_FIELD; cv |= c1 << COLOUR_BITS; }
    y = conCell[b4 + 2];
    if (y >= 0) { c2 = packed[board[y]] & COLOUR_FIELD; cv |= c2 << (COLOUR_BITS * 2); }
    y = conCell[b4 + 3];
    if (y >= 0) { c3 = (packed[board[y]] >>> COLOUR_BITS) & COLOUR_FIELD; cv |= c3 << (COLOUR_BITS * 3); }
    cvA[dep] = cv;
    const kind = tabKind[dep], side = tabSide[dep];
    if (kind === 2) {
      const a = side === 0 ? c0 : side === 1 ? c1 : side === 2 ? c2 : c3;
      const b = side === 0 ? c1 : side === 1 ? c2 : side === 2 ? c3 : c0;
      const key = (side * K + a) * K + b;
      pos[dep] = t.t2Start[key]; end[dep] = t.t2Start[key + 1];
      lOri[dep] = t.t2List; lPacked[dep] = t.t2Packed; lClass[dep] = t.t2Class;
    } else if (kind === 1) {
      const a = side === 0 ? c0 : side === 1 ? c1 : side === 2 ? c2 : c3;
      const key = side * K + a;
      pos[dep] = t.t1Start[key]; end[dep] = t.t1Start[key + 1];
      lOri[dep] = t.t1List; lPacked[dep] = t.t1Packed; lClass[dep] = t.t1Class;
    } else {
      const m = t.cellRim[order[dep]];
      pos[dep] = t.t0Start[m]; end[dep] = t.t0Start[m + 1];
      lOri[dep] = t.t0List; lPacked[dep] = t.t0Packed; lClass[dep] = t.t0Class;
    }
  };
  const undo = (cell: number): void => {
    if (full) { s.unplace(cell); return; }
    const o = board[cell];
    board[cell] = -1;
    avail[cls[o]]++;
    if (nbrs) {
      const c4 = cell * 4;
      for (let d = 0; d < 4; d++) { const y = nb[c4 + d]; if (y >= 0) need[y * 4 + (d ^ 2)] = -1; }
    }
  };
  const unwind = (): void => { while (depth > 0) undo(order[--depth]); };
  const result = (endKind: DfsOutcome["end"]): DfsOutcome =>
    ({ end: endKind, nodes, solutions, cells: first?.cells ?? null, oris: first?.oris ?? null });

  let fresh = n > 0;
  for (;;) {
    if (depth === n) {
      solutions++;
      fresh = false;
      if (first === null) {
        const oris = new Int32Array(n);
        for (let i = 0; i < n; i++) oris[i] = board[order[i]];
        first = { cells: order.slice(0, n), oris };
      }
      if (solutions >= solutionLimit || n === 0) {
        const endKind = solutions >= solutionLimit ? "solution-limit" : "exhausted";
        unwind();
        return result(endKind);
      }
      undo(order[--depth]);
      continue;
    }
    if (fresh) { fresh = false; enter(depth); }
    const listPacked = lPacked[depth], listClass = lClass[depth], e = end[depth], cm = cmA[depth], cv = cvA[depth];
    let i = pos[depth], found = -1;
    while (i < e) {
      if (avail[listClass[i]] > 0 && (listPacked[i] & cm) === cv) { found = i++; break; }
      i++;
    }
    pos[depth] = i;
    if (found < 0) {
      if (depth === 0) return result("exhausted");
      undo(order[--depth]);
      continue;
    }
    if (nodes >= nodeLimit) { unwind(); return result("node-limit"); }
    nodes++;
    const cell = order[depth], o = lOri[depth][found];
    if (full) {
      s.place(cell, o);
      if (!s.check(cell, "full")) { s.unplace(cell); continue; }
    } else {
      board[cell] = o;
      avail[listClass[found]]--;
      if (nbrs) {
        const p = packed[o], c4 = cell * 4;
        for (let d = 0; d < 4; d++) { const y = nb[c4 + d]; if (y >= 0) need[y * 4 + (d ^ 2)] = (p >>> (COLOUR_BITS * d)) & COLOUR_FIELD; }
        if (!neighboursHaveCandidates(s, cell)) { undo(cell); continue; }
      }
    }
    depth++;
    fresh = true;
  }
}

/** Every empty neighbour of `cell` has a candidate (reads only board/need/avail). */
function neighboursHaveCandidates(s: PlacementState, cell: number): boolean {
  const t = s.t, board = s.board, avail = s.avail, packed = t.oriPacked, cls = t.oriClass;
  for (let d = 0; d < 4; d++) {
    const y = t.nb[cell * 4 + d];
    if (y < 0 || board[y] >= 0) continue;
    s.select(y);
    const list = s.list, cm = s.cm, cv = s.cv;
    let ok = false;
    for (let i = s.ls, e = s.le; i < e; i++) {
      const q = list[i];
      if (avail[cls[q]] > 0 && (packed[q] & cm) === cv) { ok = true; break; }
    }
    if (!ok) return false;
  }
  return true;
}

/** Reusable candidate stack (the engines are not re-entrant). */
let scratch = new Int32Array(1 << 12);

/** Most-constrained-first depth-first search over all empty cells of `s`. */
export function dynamicDfs(s: PlacementState, opts: DfsOptions): DfsOutcome {
  const t = s.t, cells = t.cells, board = s.board;
  const empty = cells - s.filled;
  const cellAt = new Int32Array(empty + 1), cStart = new Int32Array(empty + 1), cPos = new Int32Array(empty + 1);
  let cands = scratch;
  let top = 0, depth = 0, nodes = 0, solutions = 0;
  let first: { cells: Int32Array; oris: Int32Array } | null = null;
  const pruning = opts.pruning;

  // Opens depth `depth`: picks the cell and pushes its candidates; false when some cell has none.
  const open = (): boolean => {
    cStart[depth] = top;
    let best = 0x7fffffff, bestCell = -1;
    for (let y = 0; y < cells; y++) {
      if (board[y] >= 0) continue;
      const c = s.count(y, best);
      if (c < best) { best = c; bestCell = y; if (c === 0) return false; }
    }
    if (top + best > cands.length) {
      const grown = new Int32Array(Math.max(cands.length * 2, top + best + 1024));
      grown.set(cands.subarray(0, top));
      cands = grown;
      scratch = grown;
    }
    cellAt[depth] = bestCell;
    cPos[depth] = top;
    top += s.collect(bestCell, cands, top);
    return true;
  };
  const unwind = (): void => { while (depth > 0) s.unplace(cellAt[--depth]); };
  const result = (endKind: DfsOutcome["end"]): DfsOutcome =>
    ({ end: endKind, nodes, solutions, cells: first?.cells ?? null, oris: first?.oris ?? null });

  let opened = empty > 0 ? open() : true;
  for (;;) {
    if (depth === empty) {
      solutions++;
      if (first === null) {
        const oris = new Int32Array(empty);
        for (let i = 0; i < empty; i++) oris[i] = board[cellAt[i]];
        first = { cells: cellAt.slice(0, empty), oris };
      }
      if (solutions >= opts.solutionLimit || empty === 0) {
        const endKind = solutions >= opts.solutionLimit ? "solution-limit" : "exhausted";
        unwind();
        return result(endKind);
      }
      s.unplace(cellAt[--depth]);
      continue;
    }
    // The open depth's candidates live in cands[cStart[depth] .. next depth's start or top).
    const limit = top;
    if (!opened || cPos[depth] >= limit) {
      top = cStart[depth];
      if (depth === 0) return result("exhausted");
      s.unplace(cellAt[--depth]);
      opened = true;
      continue;
    }
    if (nodes >= opts.nodeLimit) { unwind(); return result("node-limit"); }
    nodes++;
    const cell = cellAt[depth], o = cands[cPos[depth]++];
    s.place(cell, o);
    if (!s.check(cell, pruning)) { s.unplace(cell); continue; }
    depth++;
    opened = depth === empty ? true : open();
  }
}
