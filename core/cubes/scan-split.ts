/**
 * Scan cubes: a split that follows the native engine's own search (engine/search.c) exactly, so that the cubes
 * taken in order replay one complete engine scan.
 *
 * The engine scans the free cells in a static order (`short`: lines along the board's shorter side) and, at each
 * position, tries the distinct placed tuples of the unused piece classes in class order (a class is listed at its
 * first piece; within a class the rotations 0..3 of that piece, equal tuples once) whose known sides match: the rim
 * exactly, and every neighbour that is fixed or earlier in the order. `scanSplit` walks the first levels of that
 * same tree breadth-first, until a level holds at least `targetCubes` partial boards; each of those is a cube, in
 * the order the engine would reach it. A cube's placements are reported with the lowest unused copy of their class
 * (the engine's choice), so the engine on a cube searches exactly that subtree of the whole scan, with the same
 * candidate order below it: the cubes' placements add up to the whole scan's (less the levels walked here), and a
 * worker that runs them in order meets a solution after the same part of the tree as the whole scan would.
 *
 * Weights: a node with b children gives each parent/b; a node without children is refuted with its weight; a
 * complete board is a solution. Cubes + refuted + solutions sum exactly to the weight of what was split.
 *
 * With `symmetry` the split follows the engine's `--symmetry` scan (engine/search.c setup_symmetry): the pinned corner
 * piece (the first without an identical copy) may lie only top-left on a square board, top-left or at the end of the
 * scan's first line on an oblong one, and the last of those corners in scan order takes it while it is free. The
 * cubes then cover every board of that kind, and each is searched with `--symmetry`; a puzzle without hints has a
 * solution exactly when it has one of that kind (turn the board), which is what a refuted run claims (`scanSymmetry`
 * says when a run may).
 * Pure: no I/O, no clocks.
 */

import type { Board, Placement, Puzzle } from "../puzzle.js";
import { rotatedEdge } from "../puzzle.js";
import type { Cube, SplitResult, SplitSolution } from "./types.js";
import { weightOf } from "./weight.js";

/** The engine's scan orders the splitter can follow: `short` (its default) and `long`. */
export type ScanOrder = "short" | "long";

/** The free cells' order of the engine's `short` / `long` scan (engine_make_order): by columns when they are the shorter lines. */
export function scanCellOrder(rows: number, cols: number, order: ScanOrder): Int32Array {
  const byCol = order === "short" ? cols > rows : rows >= cols;
  const out = new Int32Array(rows * cols);
  let n = 0;
  if (byCol) for (let c = 0; c < cols; c++) for (let r = 0; r < rows; r++) out[n++] = r * cols + c;
  else for (let cell = 0; cell < rows * cols; cell++) out[n++] = cell;
  return out;
}

export interface ScanSplitOptions {
  /** Split until a level of the scan holds at least this many partial boards (or the board is full). */
  targetCubes: number;
  /** Never go deeper than this many levels below the base. @default unlimited */
  maxDepth?: number;
  /** @default "short" */
  order?: ScanOrder;
  /** Split this cube instead of the whole puzzle (its placements are fixed, its branching is the prefix). */
  base?: Cube;
  /** Keep every refuted branch (placements and branching) in the result, for tests and audits. @default false */
  recordRefuted?: boolean;
  /** Follow the engine's `--symmetry` scan (the puzzle must have no hints). @default false */
  symmetry?: boolean;
}

/**
 * Whether a scan run breaks the board's symmetry: only a puzzle without hints (a turned solution is then a
 * solution), in a run that looks for one board (a count needs every board, a score run every best board) and is
 * not certified (a coverage proof knows nothing of symmetry).
 */
export function scanSymmetry(puzzle: Pick<Puzzle, "hints">, run: { certify: boolean; findOne: boolean }): boolean {
  return puzzle.hints.length === 0 && run.findOne && !run.certify;
}

/**
 * The engine's symmetry rule for a scan in `order` (cells): the class of the first corner piece that no other piece
 * is identical to, the corners it may lie on, and the one of them the scan meets last among `free` cells (it takes
 * the class while the class is free). Null when there is nothing to break: no corner piece without a copy.
 */
function symmetryRule(puzzle: Puzzle, cls: Int32Array, order: Int32Array, isFree: (cell: number) => boolean):
  { cls: number; allowed: number[]; force: number } | null {
  const { rows, cols } = puzzle;
  if (rows < 2 || cols < 2) return null;
  const first = puzzle.pieces.findIndex((p, i) => p.edges.filter((c) => c === 0).length === 2 && !puzzle.pieces.some((_, j) => j !== i && cls[j] === cls[i]));
  if (first < 0) return null;
  const NW = 0, NE = cols - 1, SW = (rows - 1) * cols;
  const second = [...order].find((cell) => cell === NE || cell === SW)!;
  const allowed = rows === cols ? [NW] : [NW, second];
  let force = -1;
  for (const cell of order) if (allowed.includes(cell) && isFree(cell)) force = cell;
  return { cls: cls[first], allowed, force };
}

interface Candidate { cls: number; rep: number; rot: number; edges: readonly number[] }

/**
 * The engine's piece classes: pieces equal up to rotation, numbered by first piece; `shift[i]` turns the class's
 * first piece into piece i (piece i's listed sides are its first piece's turned by shift).
 */
function classesOf(puzzle: Puzzle): { cls: Int32Array; shift: Int32Array; reps: number[] } {
  const n = puzzle.pieces.length;
  const cls = new Int32Array(n).fill(-1), shift = new Int32Array(n), reps: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = puzzle.pieces[i].edges;
    for (let c = 0; c < reps.length && cls[i] < 0; c++) {
      const q = puzzle.pieces[reps[c]].edges;
      for (let s = 0; s < 4; s++) {
        let same = true;
        for (let j = 0; j < 4 && same; j++) same = e[j] === q[(j - s + 4) & 3];
        if (same) { cls[i] = c; shift[i] = s; break; }
      }
    }
    if (cls[i] < 0) { cls[i] = reps.length; reps.push(i); }
  }
  return { cls, shift, reps };
}

/** Every distinct placed tuple of every class, in the engine's order (class, then rotation of its first piece). */
function candidatesOf(puzzle: Puzzle, reps: readonly number[]): Candidate[] {
  const out: Candidate[] = [];
  reps.forEach((rep, c) => {
    const seen: string[] = [];
    for (let rot = 0; rot < 4; rot++) {
      const edges = [0, 1, 2, 3].map((d) => rotatedEdge(puzzle.pieces[rep].edges, rot, d));
      const key = edges.join(",");
      if (seen.includes(key)) continue;
      seen.push(key);
      out.push({ cls: c, rep, rot, edges });
    }
  });
  return out;
}

/**
 * Splits the puzzle (or `options.base`) along the engine's scan. Cubes come out in scan order; a base whose
 * placements contradict each other or the hints is refuted whole.
 */
export function scanSplit(puzzle: Puzzle, options: ScanSplitOptions): SplitResult {
  const { rows, cols } = puzzle;
  const cells = rows * cols;
  const baseBranching = options.base ? [...options.base.branching] : [];
  const baseWeight = weightOf(baseBranching);
  const { cls, shift, reps } = classesOf(puzzle);
  const cands = candidatesOf(puzzle, reps);
  const avail = new Int32Array(reps.length);
  for (let i = 0; i < puzzle.pieces.length; i++) avail[cls[i]]++;
  const used = new Uint8Array(puzzle.pieces.length);
  const colour = new Int32Array(cells * 4).fill(-1); // placed colours, -1 where empty
  const board: Array<{ piece: number; rot: number } | null> = new Array(cells).fill(null);
  const refuteAll = (): SplitResult => ({
    cubes: [], solutions: [], stats: { nodes: 0, expanded: 0, maxDepth: 0, nodeLimitReached: false },
    refuted: { count: 1, weight: baseWeight, ...(options.recordRefuted ? { branches: [{ placements: [...(options.base?.placements ?? [])], branching: baseBranching, weight: baseWeight }] } : {}) },
  });
  const rimOf = (cell: number, d: number): boolean => {
    const r = Math.floor(cell / cols), c = cell % cols;
    return d === 0 ? r === 0 : d === 1 ? c === cols - 1 : d === 2 ? r === rows - 1 : c === 0;
  };
  const neighbour = (cell: number, d: number): number => {
    const r = Math.floor(cell / cols), c = cell % cols;
    if (d === 0) return r > 0 ? cell - cols : -1;
    if (d === 1) return c < cols - 1 ? cell + 1 : -1;
    if (d === 2) return r < rows - 1 ? cell + cols : -1;
    return c > 0 ? cell - 1 : -1;
  };
  const fits = (cell: number, edges: readonly number[]): boolean => {
    for (let d = 0; d < 4; d++) {
      if ((edges[d] === 0) !== rimOf(cell, d)) return false;
      const y = neighbour(cell, d);
      if (y >= 0 && colour[y * 4 + (d ^ 2)] >= 0 && colour[y * 4 + (d ^ 2)] !== edges[d]) return false;
    }
    return true;
  };
  const put = (cell: number, piece: number, rot: number): void => {
    board[cell] = { piece, rot };
    used[piece] = 1;
    avail[cls[piece]]--;
    for (let d = 0; d < 4; d++) colour[cell * 4 + d] = rotatedEdge(puzzle.pieces[piece].edges, rot, d);
  };
  const take = (cell: number): void => {
    const p = board[cell]!;
    board[cell] = null;
    used[p.piece] = 0;
    avail[cls[p.piece]]++;
    for (let d = 0; d < 4; d++) colour[cell * 4 + d] = -1;
  };
  // The fixed part: hints, then the base's placements. A clash refutes the base.
  const fixed: Placement[] = [...puzzle.hints.map((h) => ({ cell: h.row * cols + h.col, piece: h.piece, rot: h.rot })), ...(options.base?.placements ?? [])];
  for (const f of fixed) {
    const had = board[f.cell];
    if (had) {
      if (had.piece !== f.piece || had.rot !== f.rot) return refuteAll();
      continue;
    }
    if (used[f.piece]) return refuteAll();
    const edges = [0, 1, 2, 3].map((d) => rotatedEdge(puzzle.pieces[f.piece].edges, f.rot, d));
    if (!fits(f.cell, edges)) return refuteAll();
    put(f.cell, f.piece, f.rot);
  }
  const order = scanCellOrder(rows, cols, options.order ?? "short");
  const free = [...order].filter((cell) => board[cell] === null);
  const corners = new Set([0, cols - 1, (rows - 1) * cols, cells - 1]);
  const sym = options.symmetry ? symmetryRule(puzzle, cls, order, (cell) => board[cell] === null) : null;
  // The pinned corner piece free with no allowed corner left: the engine's space is empty.
  if (sym && avail[sym.cls] > 0 && sym.force < 0) return refuteAll();
  /** The symmetry's say on class `c` at `cell`: false where it may not go, or where another must (the forced corner). */
  const symOk = (cell: number, c: number): boolean => {
    if (!sym) return true;
    if (c === sym.cls && corners.has(cell) && !sym.allowed.includes(cell)) return false;
    return !(cell === sym.force && avail[sym.cls] > 0 && c !== sym.cls);
  };
  const maxDepth = Math.min(free.length, options.maxDepth ?? free.length);

  /** A partial board below the base: its candidate index per level and the branching on its path. */
  interface Node { path: number[]; branching: number[] }
  /** Places a node's path (the engine's copy: the lowest unused piece of the class); returns the placements. */
  const enter = (path: readonly number[]): Placement[] => {
    const out: Placement[] = [];
    path.forEach((k, level) => {
      const c = cands[k];
      let piece = -1;
      for (let i = 0; i < puzzle.pieces.length && piece < 0; i++) if (!used[i] && cls[i] === c.cls) piece = i;
      const rot = (c.rot - shift[piece] + 4) & 3;
      put(free[level], piece, rot);
      out.push({ cell: free[level], piece, rot });
    });
    return out;
  };
  const leave = (path: readonly number[]): void => {
    for (let level = path.length - 1; level >= 0; level--) take(free[level]);
  };

  let level: Node[] = [{ path: [], branching: baseBranching }];
  let refutedCount = 0, refutedWeight = 0, nodes = 0, depth = 0;
  const solutions: SplitSolution[] = [];
  const branches: Cube[] = [];
  while (depth < maxDepth && level.length > 0 && level.length < options.targetCubes) {
    const next: Node[] = [];
    for (const node of level) {
      enter(node.path);
      const cell = free[depth];
      const kids: number[] = [];
      cands.forEach((c, k) => { if (avail[c.cls] > 0 && fits(cell, c.edges) && symOk(cell, c.cls)) kids.push(k); });
      if (kids.length === 0) {
        refutedCount++;
        refutedWeight += weightOf(node.branching);
        if (options.recordRefuted) branches.push({ placements: [...(options.base?.placements ?? []), ...node.path.map((_, l) => ({ ...board[free[l]]!, cell: free[l] }))], branching: node.branching, weight: weightOf(node.branching) });
      }
      leave(node.path);
      if (kids.length === 0) continue;
      nodes += kids.length;
      for (const k of kids) next.push({ path: [...node.path, k], branching: [...node.branching, kids.length] });
    }
    level = next;
    depth++;
  }
  const cubes: Cube[] = [];
  for (const node of level) {
    const placements = [...(options.base?.placements ?? []), ...enter(node.path)];
    const full = free.length === node.path.length;
    const b: Board | null = full ? { rows, cols, cells: board.map((x) => (x ? { ...x } : null)) } : null;
    leave(node.path);
    const cube: Cube = { placements, branching: node.branching, weight: weightOf(node.branching) };
    if (b) solutions.push({ ...cube, board: b });
    else cubes.push(cube);
  }
  return { cubes, solutions, refuted: { count: refutedCount, weight: refutedWeight, ...(options.recordRefuted ? { branches } : {}) }, stats: { nodes, expanded: 0, maxDepth: depth, nodeLimitReached: false } };
}
