/**
 * Cube splitting. The splitter grows a tree below the root (the puzzle with its hints, or a base cube):
 * splitting an open cube picks an empty cell (by `cellOrder`) and creates one child per candidate, a
 * candidate being a distinct placed tuple of an unused piece (identical pieces and symmetric rotations
 * count once; the copy put on the board is the lowest-index unused one). Each child has weight
 * parent/b, b = number of candidates. A child failing pruning is refuted, a child filling the board is a
 * solution, the others are open. Splitting stops once `targetCubes` cubes are open (or maxDepth /
 * nodeLimit stop it); the open cubes are then emitted in creation order.
 *
 * Exactness: every solution of a split cube lies, up to swapping identical pieces, in exactly one child
 * (the one with its placed tuple on the chosen cell), so cubes + refuted + solutions partition what was
 * split and their weights sum exactly to its weight.
 */

import { InvalidOptionError } from "../errors.js";
import type { Placement, Puzzle } from "../puzzle.js";
import { tablesFor } from "./candidates.js";
import { dynamicDfs } from "./dfs.js";
import { staticCellOrder } from "./order.js";
import { hintPlacements } from "./search.js";
import { IdQueue, SplitTree, WeightHeap } from "./split-tree.js";
import { PlacementState } from "./state.js";
import {
  cellOrders, type Cube, type ResplitOptions, type SplitEvent, type SplitOptions, type SplitResult, type SplitSolution,
} from "./types.js";
import { weightOf } from "./weight.js";

/** How many expansions apart `streamCubes` reports progress (a few milliseconds of splitting). */
export const SPLIT_PROGRESS_EVERY = 2048;

function checkInt(option: string, value: number | undefined, min: number, infinite: boolean): void {
  if (value === undefined) return;
  if (infinite && value === Number.POSITIVE_INFINITY) return;
  if (!Number.isInteger(value) || value < min) throw new InvalidOptionError(option, `must be an integer >= ${min}, got ${value}`);
}

function checkOptions(o: SplitOptions): void {
  checkInt("targetCubes", o.targetCubes, 1, true);
  if (o.targetCubes === undefined) throw new InvalidOptionError("targetCubes", "is required");
  checkInt("maxDepth", o.maxDepth, 0, true);
  checkInt("nodeLimit", o.nodeLimit, 0, true);
  checkInt("probeNodes", o.probeNodes, 0, false);
  if (o.cellOrder !== undefined && !cellOrders.includes(o.cellOrder)) {
    throw new InvalidOptionError("cellOrder", `unknown cell order '${String(o.cellOrder)}' (known: ${cellOrders.join(", ")})`);
  }
  if (o.pruning !== undefined && !["none", "neighbours", "full"].includes(o.pruning)) {
    throw new InvalidOptionError("pruning", `unknown pruning level '${String(o.pruning)}' (known: none, neighbours, full)`);
  }
  if (o.expansion !== undefined && !["breadth-first", "heaviest-first"].includes(o.expansion)) {
    throw new InvalidOptionError("expansion", `unknown expansion '${String(o.expansion)}' (known: breadth-first, heaviest-first)`);
  }
  if (o.base !== undefined && (!Array.isArray(o.base.placements) || !Array.isArray(o.base.branching) ||
      o.base.branching.some((b) => !Number.isInteger(b) || b < 1))) {
    throw new InvalidOptionError("base", "a cube needs placements and a branching list of positive integers");
  }
}

/**
 * Splits the puzzle (or `options.base`) and streams the outcome: solutions as soon as they are found,
 * then the open cubes in creation order, then one "done" event with the refuted branches and counters.
 */
export function* streamCubes(puzzle: Puzzle, options: SplitOptions): Generator<SplitEvent, void, undefined> {
  checkOptions(options);
  const target = options.targetCubes;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const nodeLimit = options.nodeLimit ?? Number.POSITIVE_INFINITY;
  const cellOrder = options.cellOrder ?? "most-constrained";
  const pruning = options.pruning ?? "full";
  const probe = options.probeNodes ?? 0;
  const record = options.recordRefuted ?? false;
  const base = options.base;
  const basePlacements: Placement[] = base ? base.placements.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })) : [];
  const baseBranching = base ? [...base.branching] : [];

  const t = tablesFor(puzzle);
  const s = new PlacementState(t);
  const tree = new SplitTree(weightOf(baseBranching));
  const refuted = { count: 0, weight: 0, branches: record ? ([] as Cube[]) : undefined };
  const stats = { nodes: 0, expanded: 0, maxDepth: 0, nodeLimitReached: false };
  let cubeCount = 0, solutionCount = 0;

  // Scratch for paths: node ids, cells, orientations, pieces/rotations.
  const cap = t.cells + 1;
  const pathIds = new Int32Array(cap), pathCells = new Int32Array(cap), pathOris = new Int32Array(cap);
  const pieceRot = new Int32Array(2 * cap);
  const shared: Array<Placement | undefined> = [];
  const cur = new Int32Array(t.cells + 1);
  let curLen = 0;

  /** A cube (or refuted branch, or solution) from the root path of `id` plus an optional extra step. */
  const cubeOf = (id: number, cell: number, ori: number, b: number): Cube => {
    const n = tree.path(id, pathIds);
    for (let i = 0; i < n; i++) { pathCells[i] = tree.cell[pathIds[i]]; pathOris[i] = tree.ori[pathIds[i]]; }
    let m = n;
    if (cell >= 0) { pathCells[m] = cell; pathOris[m] = ori; m++; }
    s.assignPieces(pathCells, pathOris, m, pieceRot);
    // Arrays of exact length (no growth slack): 200,000 cubes are held by callers at once.
    const k = basePlacements.length, kb = baseBranching.length;
    const placements: Placement[] = new Array(k + m);
    const branching: number[] = new Array(kb + m);
    for (let i = 0; i < k; i++) placements[i] = basePlacements[i];
    for (let i = 0; i < kb; i++) branching[i] = baseBranching[i];
    for (let i = 0; i < m; i++) {
      // A node's placement depends only on its path, so cubes below one node share its object.
      let pl = i < n ? shared[pathIds[i]] : undefined;
      if (pl === undefined) {
        pl = { cell: pathCells[i], piece: pieceRot[2 * i], rot: pieceRot[2 * i + 1] };
        if (i < n) shared[pathIds[i]] = pl;
      }
      placements[k + i] = pl;
      branching[kb + i] = i < n ? tree.branch[pathIds[i]] : b;
    }
    return { placements, branching, weight: tree.weight[id] / (cell >= 0 ? b : 1) };
  };
  const refute = (id: number, cell: number, ori: number, b: number): void => {
    refuted.count++;
    refuted.weight += tree.weight[id] / (cell >= 0 ? b : 1);
    if (record) refuted.branches!.push(cubeOf(id, cell, ori, b));
  };
  const solutionOf = (id: number, cell: number, ori: number, b: number, extraCells?: Int32Array, extraOris?: Int32Array): SplitSolution => {
    const cube = cubeOf(id, cell, ori, b);
    const cells = cube.placements.slice(basePlacements.length).map((p) => p.cell);
    const oris = Array.from(pathOris.subarray(0, cells.length));
    if (extraCells && extraOris) { cells.push(...extraCells); oris.push(...extraOris); }
    return { ...cube, board: s.toBoard(cells, oris, cells.length) };
  };
  const done = (): SplitEvent =>
    ({ kind: "done", refuted: { ...refuted }, stats: { ...stats }, cubes: cubeCount, solutions: solutionCount });

  // Root: hints, then the base cube.
  if (!s.placeAllFixed(hintPlacements(puzzle))) {
    refute(0, -1, -1, 1);
    yield done();
    return;
  }
  if (!s.placeAllFixed(basePlacements)) {
    throw new InvalidOptionError("base", "the cube's placements conflict with the hints, the rim or each other");
  }
  if (!s.checkAll(pruning)) {
    refute(0, -1, -1, 1);
    yield done();
    return;
  }
  if (s.filled === t.cells) {
    solutionCount++;
    yield { kind: "solution", solution: { ...cubeOf(0, -1, -1, 1), board: s.toBoard([], [], 0) } };
    yield done();
    return;
  }

  const goTo = (id: number): void => {
    const n = tree.path(id, pathIds);
    let common = 0;
    while (common < n && common < curLen && cur[common] === pathIds[common]) common++;
    while (curLen > common) s.unplace(tree.cell[cur[--curLen]]);
    for (let i = common; i < n; i++) {
      const v = pathIds[i];
      s.place(tree.cell[v], tree.ori[v]);
      cur[curLen++] = v;
    }
  };

  const staticOrder = cellOrder === "most-constrained" ? null : staticCellOrder(t.rows, t.cols, cellOrder);
  const chooseCell = (): { cell: number; count: number } => {
    if (staticOrder) {
      for (const cell of staticOrder) if (s.board[cell] < 0) return { cell, count: s.count(cell, 0x7fffffff) };
      return { cell: -1, count: 0 };
    }
    let best = 0x7fffffff, bestCell = -1;
    for (let y = 0; y < t.cells; y++) {
      if (s.board[y] >= 0) continue;
      const c = s.count(y, best);
      if (c < best) { best = c; bestCell = y; if (c === 0) break; }
    }
    return { cell: bestCell, count: best };
  };

  const heaviest = options.expansion === "heaviest-first";
  const queue = new IdQueue();
  const heap = new WeightHeap(tree);
  const parked: number[] = [];
  let open = 1;
  const pushOpen = (id: number): void => {
    if (heaviest && tree.depth[id] >= maxDepth) parked.push(id);
    else if (heaviest) heap.push(id);
    else queue.push(id);
  };
  pushOpen(0);
  const cands = new Int32Array(t.orientationCount);

  for (;;) {
    if (open >= target) break;
    if (stats.nodes >= nodeLimit) { stats.nodeLimitReached = true; break; }
    let v: number;
    if (heaviest) {
      if (heap.length === 0) break;
      v = heap.pop();
    } else {
      if (queue.length === 0 || tree.depth[queue.peek()] >= maxDepth) break;
      v = queue.shift();
    }
    open--;
    stats.expanded++;
    if (stats.expanded % SPLIT_PROGRESS_EVERY === 0) yield { kind: "progress", expanded: stats.expanded };
    goTo(v);
    const { cell, count } = chooseCell();
    if (count === 0) { refute(v, -1, -1, 1); continue; }
    const b = s.collect(cell, cands, 0);
    const childDepth = tree.depth[v] + 1;
    const w = tree.weight[v] / b;
    for (let i = 0; i < b; i++) {
      const o = cands[i];
      stats.nodes++;
      s.place(cell, o);
      if (!s.check(cell, pruning)) {
        refute(v, cell, o, b);
      } else if (s.filled === t.cells) {
        solutionCount++;
        yield { kind: "solution", solution: solutionOf(v, cell, o, b) };
      } else {
        let verdict: "open" | "refuted" | "solved" = "open";
        if (probe > 0) {
          const r = dynamicDfs(s, { nodeLimit: probe, pruning, solutionLimit: 1 });
          stats.nodes += r.nodes;
          if (r.solutions > 0) {
            verdict = "solved";
            solutionCount++;
            yield { kind: "solution", solution: solutionOf(v, cell, o, b, r.cells!, r.oris!) };
          } else if (r.end === "exhausted") {
            verdict = "refuted";
            refute(v, cell, o, b);
          }
        }
        if (verdict === "open") {
          const id = tree.add(v, cell, o, b, childDepth, w);
          pushOpen(id);
          open++;
        }
      }
      s.unplace(cell);
    }
  }

  const remaining = heaviest ? Int32Array.from([...heap.drain(), ...parked]).sort() : queue.drain();
  for (const id of remaining) {
    if (tree.depth[id] > stats.maxDepth) stats.maxDepth = tree.depth[id];
  }
  for (const id of remaining) {
    cubeCount++;
    yield { kind: "cube", cube: cubeOf(id, -1, -1, 1) };
  }
  yield done();
}

/** Splits the puzzle (or `options.base`) and collects everything `streamCubes` yields. */
export function splitCubes(puzzle: Puzzle, options: SplitOptions): SplitResult {
  const result: SplitResult = {
    cubes: [], solutions: [], refuted: { count: 0, weight: 0 },
    stats: { nodes: 0, expanded: 0, maxDepth: 0, nodeLimitReached: false },
  };
  for (const e of streamCubes(puzzle, options)) {
    if (e.kind === "cube") result.cubes.push(e.cube);
    else if (e.kind === "solution") result.solutions.push(e.solution);
    else if (e.kind === "done") { result.refuted = e.refuted; result.stats = e.stats; }
  }
  return result;
}

/**
 * The children of `cube`: placements = the cube's plus new ones, branching extended. Their weights plus
 * refuted and solved weight sum exactly to the cube's weight. Splits `depth` steps below the cube, or until
 * `targetChildren` are open; with neither, one step.
 */
export function resplitCube(puzzle: Puzzle, cube: Cube, options: ResplitOptions = {}): SplitResult {
  return splitCubes(puzzle, {
    ...options,
    base: cube,
    targetCubes: options.targetChildren ?? Number.POSITIVE_INFINITY,
    maxDepth: options.depth ?? (options.targetChildren === undefined ? 1 : Number.POSITIVE_INFINITY),
  });
}
