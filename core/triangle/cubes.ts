/**
 * Cubes of a triangle puzzle, for the cluster (docs/cubing.md "Triangle cubes"): the splitter grows a tree below the
 * root (the puzzle with its hints, or a base cube), breadth first. Splitting an open node takes the first empty cell
 * of the placement search's own order (core/triangle/search.ts: row by row from the base up, left to right), so a
 * cube fixes the cells the search would place first and the search of a cube starts where the cube ends.
 *
 * The node's children are the cell's candidates: the entries (a piece class in one distinct orientation,
 * classes.ts) with a copy left that fit the labels of the placed neighbours and the frame. With b candidates each
 * child has weight parent/b. A child after which some empty cell has no candidate left is refuted by the splitter;
 * a child that fills the board is a solution; the rest are cubes. A child's placement puts the lowest-index unused
 * copy of the entry's class on the cell, turned to show the entry.
 *
 * Exactness: a board (the labels every cell shows, classes.ts) of a node shows exactly one candidate on the chosen
 * cell, so it lies in exactly one child: cubes + refuted + solutions partition the node, and their weights (the
 * product of 1/branching along the path) sum exactly to its weight.
 */

import { InvalidOptionError } from "../errors.js";
import type { Cube } from "../cubes/types.js";
import type { Placement } from "../puzzle.js";
import { buildTriangleClasses, entryOf, type TriangleClasses } from "./classes.js";
import { triangleHintConflict } from "./format.js";
import { cellCount, triangleNeighbour, type TriangleBoard, type TriangleHint, type TrianglePuzzle } from "./puzzle.js";

/** A board the splitter filled (a cube whose placements complete the board). The caller verifies it. */
export interface TriangleSplitSolution extends Cube {
  /** The whole board: hints and placements. */
  board: TriangleBoard;
}

export interface TriangleSplitOptions {
  /** Stop splitting once this many cubes are open. */
  targetCubes: number;
  /** Split steps below the base are limited to this depth. @default unlimited */
  maxDepth?: number;
  /** Split this cube instead of the whole puzzle (its placements are fixed, its branching is the prefix). */
  base?: Cube;
}

export type TriangleSplitEvent =
  | { kind: "solution"; solution: TriangleSplitSolution }
  | { kind: "cube"; cube: Cube }
  | { kind: "done"; refuted: { count: number; weight: number }; cubes: number; solutions: number };

export interface TriangleSplitResult {
  cubes: Cube[];
  solutions: TriangleSplitSolution[];
  refuted: { count: number; weight: number };
}

/** The order the search places cells in: rows from the base up, each left to right. */
export function triangleScanOrder(side: number): number[] {
  const order: number[] = [];
  for (let r = side - 1; r >= 0; r--) for (let k = 0; k <= 2 * r; k++) order.push(r * r + k);
  return order;
}

/**
 * The puzzle with a cube's placements as extra hints, or null when they cannot all hold (off the board, a cell or
 * piece taken twice, a label against the frame or a neighbour): then the cube has no board at all.
 */
export function triangleWithCube(puzzle: TrianglePuzzle, placements: readonly Placement[]): TrianglePuzzle | null {
  const cells = cellCount(puzzle.side);
  const maxRot = puzzle.rotate ? 2 : 0;
  const extra: TriangleHint[] = [];
  for (const p of placements) {
    if (!Number.isInteger(p.cell) || p.cell < 0 || p.cell >= cells || !Number.isInteger(p.piece) || p.piece < 0 || p.piece >= puzzle.pieces.length ||
      !Number.isInteger(p.rot) || p.rot < 0 || p.rot > maxRot) return null;
    extra.push({ cell: p.cell, piece: p.piece, rot: p.rot });
  }
  const withCube: TrianglePuzzle = { ...puzzle, hints: [...puzzle.hints, ...extra] };
  return triangleHintConflict(withCube) === null ? withCube : null;
}

interface Step {
  cell: number;
  entry: number;
  piece: number;
  rot: number;
}

interface OpenNode {
  steps: Step[];
  branching: number[];
  weight: number;
}

/** The splitter's working board: an entry per cell (-1 empty) and the pieces in use. */
class SplitBoard {
  readonly entries: Int32Array;
  readonly used: Uint8Array;
  filled = 0;

  constructor(private readonly puzzle: TrianglePuzzle, private readonly classes: TriangleClasses) {
    this.entries = new Int32Array(cellCount(puzzle.side)).fill(-1);
    this.used = new Uint8Array(puzzle.pieces.length);
  }

  place(cell: number, entry: number, piece: number): void {
    this.entries[cell] = entry;
    this.used[piece] = 1;
    this.filled++;
  }

  unplace(cell: number, piece: number): void {
    this.entries[cell] = -1;
    this.used[piece] = 0;
    this.filled--;
  }

  /** The lowest-index unused copy of the class, or -1. */
  freeCopy(cls: number): number {
    for (const p of this.classes.copies[cls]) if (!this.used[p]) return p;
    return -1;
  }

  fits(cell: number, entry: number): boolean {
    const labels = this.classes.entryLabels;
    for (let d = 0; d < 3; d++) {
      const nb = triangleNeighbour(this.puzzle.side, cell, d);
      const want = nb < 0 ? this.puzzle.frame : this.entries[nb] >= 0 ? labels[3 * this.entries[nb] + d] : null;
      if (want !== null && labels[3 * entry + d] !== want) return false;
    }
    return true;
  }

  /** The entries that fit `cell` with a copy left, in entry order. */
  candidates(cell: number): number[] {
    const out: number[] = [];
    for (let e = 0; e < this.classes.entryClass.length; e++) {
      if (this.freeCopy(this.classes.entryClass[e]) >= 0 && this.fits(cell, e)) out.push(e);
    }
    return out;
  }

  /** True when every empty cell still has a candidate (else no board completes this one). */
  live(): boolean {
    for (let cell = 0; cell < this.entries.length; cell++) {
      if (this.entries[cell] >= 0) continue;
      let any = false;
      for (let e = 0; e < this.classes.entryClass.length && !any; e++) any = this.freeCopy(this.classes.entryClass[e]) >= 0 && this.fits(cell, e);
      if (!any) return false;
    }
    return true;
  }
}

function checkOptions(o: TriangleSplitOptions): void {
  const t = o.targetCubes;
  if (!(t === Number.POSITIVE_INFINITY || (Number.isInteger(t) && t >= 1))) throw new InvalidOptionError("targetCubes", `must be an integer >= 1, got ${t}`);
  const d = o.maxDepth;
  if (d !== undefined && !(d === Number.POSITIVE_INFINITY || (Number.isInteger(d) && d >= 0))) throw new InvalidOptionError("maxDepth", `must be an integer >= 0, got ${d}`);
  if (o.base !== undefined && (!Array.isArray(o.base.placements) || !Array.isArray(o.base.branching) || o.base.branching.some((b) => !Number.isInteger(b) || b < 1))) {
    throw new InvalidOptionError("base", "a cube needs placements and a branching list of positive integers");
  }
}

/**
 * Splits the puzzle (or `options.base`) and streams the outcome: boards as soon as they are found, then the open
 * cubes in creation order, then one "done" event with the refuted branches.
 */
export function* streamTriangleCubes(puzzle: TrianglePuzzle, options: TriangleSplitOptions): Generator<TriangleSplitEvent, void, undefined> {
  checkOptions(options);
  const classes = buildTriangleClasses(puzzle);
  const base = options.base;
  const basePlacements: Placement[] = base ? base.placements.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })) : [];
  const baseBranching = base ? [...base.branching] : [];
  const baseWeight = baseBranching.reduce((w, b) => w / b, 1);
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const refuted = { count: 0, weight: 0 };
  let cubes = 0, solutions = 0;
  const board = new SplitBoard(puzzle, classes);
  const fixed = triangleWithCube(puzzle, basePlacements);
  if (fixed === null) {
    if (base) throw new InvalidOptionError("base", "the cube's placements conflict with the hints, the frame or each other");
    // Hints that cannot all hold (validation refuses them in a file): no board at all.
    refuted.count++;
    refuted.weight += baseWeight;
    yield { kind: "done", refuted, cubes, solutions };
    return;
  }
  const root = fixed;
  for (const h of root.hints) board.place(h.cell, entryOf(puzzle, classes, h.piece, h.rot), h.piece);
  const order = triangleScanOrder(puzzle.side);
  const cubeOf = (node: OpenNode, extra?: { step: Step; b: number }): Cube => {
    const steps = extra ? [...node.steps, extra.step] : node.steps;
    return {
      placements: [...basePlacements, ...steps.map((s) => ({ cell: s.cell, piece: s.piece, rot: s.rot }))],
      branching: [...baseBranching, ...node.branching, ...(extra ? [extra.b] : [])],
      weight: extra ? node.weight / extra.b : node.weight,
    };
  };
  const boardOf = (steps: readonly Step[]): TriangleBoard => {
    const cells: Array<{ piece: number; rot: number } | null> = new Array(cellCount(puzzle.side)).fill(null);
    for (const h of root.hints) cells[h.cell] = { piece: h.piece, rot: h.rot };
    for (const s of steps) cells[s.cell] = { piece: s.piece, rot: s.rot };
    return { side: puzzle.side, cells };
  };
  const rootNode: OpenNode = { steps: [], branching: [], weight: baseWeight };
  if (!board.live()) {
    refuted.count++;
    refuted.weight += baseWeight;
    yield { kind: "done", refuted, cubes, solutions };
    return;
  }
  if (board.filled === board.entries.length) {
    solutions++;
    yield { kind: "solution", solution: { ...cubeOf(rootNode), board: boardOf([]) } };
    yield { kind: "done", refuted, cubes, solutions };
    return;
  }
  let queue: OpenNode[] = [rootNode];
  let head = 0;
  const open = (): number => queue.length - head;
  while (head < queue.length && open() < options.targetCubes && queue[head].steps.length < maxDepth) {
    const node = queue[head++];
    if (head > 4096 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    for (const s of node.steps) board.place(s.cell, s.entry, s.piece);
    const cell = order.find((c) => board.entries[c] < 0)!;
    const cands = board.candidates(cell);
    if (cands.length === 0) {
      refuted.count++;
      refuted.weight += node.weight;
    }
    const b = cands.length;
    for (const entry of cands) {
      const piece = board.freeCopy(classes.entryClass[entry]);
      const step: Step = { cell, entry, piece, rot: (classes.entryRot[entry] - classes.offset[piece] + 3) % 3 };
      board.place(cell, entry, piece);
      if (!board.live()) {
        refuted.count++;
        refuted.weight += node.weight / b;
      } else if (board.filled === board.entries.length) {
        solutions++;
        yield { kind: "solution", solution: { ...cubeOf(node, { step, b }), board: boardOf([...node.steps, step]) } };
      } else {
        queue.push({ steps: [...node.steps, step], branching: [...node.branching, b], weight: node.weight / b });
      }
      board.unplace(cell, piece);
    }
    for (let i = node.steps.length - 1; i >= 0; i--) board.unplace(node.steps[i].cell, node.steps[i].piece);
  }
  for (let i = head; i < queue.length; i++) {
    cubes++;
    yield { kind: "cube", cube: cubeOf(queue[i]) };
  }
  yield { kind: "done", refuted, cubes, solutions };
}

/** Splits the puzzle (or `options.base`) and collects everything `streamTriangleCubes` yields. */
export function splitTriangleCubes(puzzle: TrianglePuzzle, options: TriangleSplitOptions): TriangleSplitResult {
  const result: TriangleSplitResult = { cubes: [], solutions: [], refuted: { count: 0, weight: 0 } };
  for (const e of streamTriangleCubes(puzzle, options)) {
    if (e.kind === "cube") result.cubes.push(e.cube);
    else if (e.kind === "solution") result.solutions.push(e.solution);
    else result.refuted = e.refuted;
  }
  return result;
}

/**
 * The children of `cube`, `depth` split steps below it (default 1), or until `targetChildren` are open. Their
 * weights plus the refuted and solved weight sum exactly to the cube's weight.
 */
export function resplitTriangleCube(puzzle: TrianglePuzzle, cube: Cube, options: { depth?: number; targetChildren?: number } = {}): TriangleSplitResult {
  return splitTriangleCubes(puzzle, {
    base: cube,
    targetCubes: options.targetChildren ?? Number.POSITIVE_INFINITY,
    maxDepth: options.depth ?? (options.targetChildren === undefined ? 1 : Number.POSITIVE_INFINITY),
  });
}
