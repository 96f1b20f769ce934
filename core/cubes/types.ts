/**
 * Types of cube splitting and placement search.
 *
 * A cube is a set of placements fixed beyond the puzzle's hints; a worker solves the base formula plus
 * the cube's placements as unit clauses. Cubes come from a split tree: each split step picks an empty
 * cell and branches on its b candidates (distinct placed tuples of unused pieces), so every child has
 * weight parent/b. A child that fails pruning is refuted by the splitter, a child with every cell filled
 * is a solution, the rest are cubes. Weights are exact: the weight of a cube is the product of
 * 1/branching[i], and cubes + refuted + solutions always sum to the weight of what was split.
 */

import type { Board, Placement } from "../puzzle.js";

/** One part of the search space. */
export interface Cube {
  /** Placements fixed by this cube beyond the puzzle's hints, in the order they were chosen. */
  placements: Placement[];
  /**
   * branching[i] = number of candidates at the i-th split step on this path (the cube is one of them).
   * weight = product of 1/branching[i]; the exact weight is derivable from this list.
   */
  branching: number[];
  /** weight as a double (for progress bars). */
  weight: number;
  /**
   * Only this part of the placements' subtree (scan cubes searched in parts, docs/cubing.md "Cube parts"): the
   * subtrees `depth` free positions below the cube whose number in the engine's order is k mod n. The last entry
   * of `branching` is then the split into parts (n for a cube's first parts, the re-split factor after).
   */
  part?: CubePart;
}

/**
 * The engine's `--part k/n --part-depth depth [--part-from from]`: the subtrees `depth` free positions below the
 * cube numbered k mod n, of which those numbered below `from` are exhausted already (an ancestor's search stopped
 * there: docs/cubing.md "Resuming"). n = 1 only in a task: the whole cube, numbered so that a stop says how far it got.
 */
export interface CubePart {
  readonly k: number;
  readonly n: number;
  readonly depth: number;
  readonly from?: number;
  /** n = 1: go on exactly where an earlier search stopped (its PartProgress.path; the engine's --resume-from). */
  readonly resume?: ResumePath;
}

/**
 * Where a stopped search goes on exactly (the engine's `c resume-from`): per depth the rank of the candidate on its
 * path in the engine's candidate order, at the last depth the first candidate not yet tried.
 */
export interface ResumePath {
  readonly ranks: number[];
}

/**
 * How far a search of a cube in parts got (the engine's `c part-next`): its subtrees below `next` at `depth` are
 * exhausted; `path`, when the engine said, is exactly where it stopped.
 */
export interface PartProgress {
  readonly next: number;
  readonly depth: number;
  readonly path?: ResumePath;
}

/** A complete board reached by the splitter (a cube whose placements fill the board). */
export interface SplitSolution extends Cube {
  /** The whole board: hints and placements. The caller verifies it. */
  board: Board;
}

/**
 * How a split or search picks the next cell.
 * - "most-constrained": fewest candidates, ties by row-major index (dynamic);
 * - "spiral": a square spiral from the centre cell ((rows-1)/2, (cols-1)/2) outwards, turning E, S, W, N;
 * - "row-major": rows top to bottom, each left to right (the fastest for search);
 * - "frame-first": the rim cells clockwise from the top-left corner, then the inside row-major;
 * - "scan": the native engine's `short` scan (lines along the board's shorter side). A run with this cell order
 *   splits with `scanSplit` (scan-split.ts), in the engine's own candidate order, so its cubes replay one scan.
 */
export type CellOrder = "most-constrained" | "spiral" | "row-major" | "frame-first" | "scan";

/** The cell orders accepted by options. */
export const cellOrders: readonly CellOrder[] = ["most-constrained", "spiral", "row-major", "frame-first", "scan"];

/**
 * Checks after every placement.
 * - "none": only the placement's own fit (colours of placed neighbours, rim);
 * - "neighbours": also every empty neighbour of the new placement still has a candidate;
 * - "full": every empty cell has a candidate, every unused piece fits some empty cell, and per colour
 *   the unused half-edges can cover the half-edges facing empty cells.
 */
export type PruningLevel = "none" | "neighbours" | "full";

/**
 * Which open cube is split next.
 * - "breadth-first": by depth, in creation order;
 * - "heaviest-first": the open cube of largest weight (ties: created first).
 */
export type Expansion = "breadth-first" | "heaviest-first";

/** Options of `splitCubes` and `streamCubes`. */
export interface SplitOptions {
  /** Stop splitting once this many cubes are open. */
  targetCubes: number;
  /** Split steps below the base are limited to this depth (cubes at this depth stay open). @default unlimited */
  maxDepth?: number;
  /** @default "most-constrained" */
  cellOrder?: CellOrder;
  /** @default "full" */
  pruning?: PruningLevel;
  /** @default "breadth-first" */
  expansion?: Expansion;
  /** Re-split this cube instead of the whole puzzle (its placements are fixed, its branching is the prefix). */
  base?: Cube;
  /** Stop splitting after this many placements tried (children created); the open cubes are returned. */
  nodeLimit?: number;
  /**
   * Run a placement search with this node budget below each new child: a child proved empty is refuted, a
   * child in which a solution is found is reported as a solution (its weight counts as solved). @default 0
   */
  probeNodes?: number;
  /** Keep every refuted branch (placements and branching) in the result, for tests and audits. @default false */
  recordRefuted?: boolean;
}

/** Branches closed by the splitter's pruning. */
export interface Refuted {
  count: number;
  /** Total weight as a double; exact: sum of 1/prod(branching) over `branches` when recorded. */
  weight: number;
  /** Every refuted branch, when `recordRefuted` was set. */
  branches?: Cube[];
}

/** Counters of one split. */
export interface SplitStats {
  /** Placements tried (children created, including pruned ones and probe nodes). */
  nodes: number;
  /** Open cubes split. */
  expanded: number;
  /** Deepest split step of an emitted cube, below the base. */
  maxDepth: number;
  /** True when `nodeLimit` stopped the split. */
  nodeLimitReached: boolean;
}

/** The outcome of a split. */
export interface SplitResult {
  cubes: Cube[];
  solutions: SplitSolution[];
  refuted: Refuted;
  stats: SplitStats;
}

/**
 * Streamed by `streamCubes`: progress while the tree grows, solutions as soon as they are found, cubes once splitting
 * stops, then done.
 */
export type SplitEvent =
  /** The splitter is still growing its tree (every SPLIT_PROGRESS_EVERY expansions): a caller may let other work run. */
  | { kind: "progress"; expanded: number }
  | { kind: "solution"; solution: SplitSolution }
  | { kind: "cube"; cube: Cube }
  | { kind: "done"; refuted: Refuted; stats: SplitStats; cubes: number; solutions: number };

/** Options of `resplitCube`. */
export interface ResplitOptions {
  /** Split steps below the cube. @default 1, or unlimited when targetChildren is given */
  depth?: number;
  /** Stop once this many children are open. @default unlimited (bounded by depth) */
  targetChildren?: number;
  /** @default "most-constrained" */
  cellOrder?: CellOrder;
  /** @default "full" */
  pruning?: PruningLevel;
  /** @default "breadth-first" */
  expansion?: Expansion;
  probeNodes?: number;
  nodeLimit?: number;
  recordRefuted?: boolean;
}

/** Options of `searchPlacements`. */
export interface SearchOptions {
  /** Placements fixed beyond the hints (for example a cube's). */
  fixed?: readonly Placement[];
  /** Give up (kind "unknown") after this many placements. @default unlimited */
  nodeLimit?: number;
  /** @default "row-major" */
  cellOrder?: CellOrder;
  /** @default "none" for static orders, "neighbours" for "most-constrained" */
  pruning?: PruningLevel;
  /** Count solutions instead of stopping at the first. @default false */
  findAll?: boolean;
  /** With findAll: stop counting at this many solutions. @default unlimited */
  limit?: number;
}

/**
 * Outcome of a placement search. "sat" carries the first solution found (and with findAll the number of
 * solutions, counted up to swapping identical pieces, and `complete` = the whole space was searched so the
 * count is exact); "unsat" means
 * no solution extends the fixed placements; "unknown" means the node limit was reached first.
 */
export type SearchResult =
  | { kind: "sat"; board: Board; nodes: number; solutions: number; complete: boolean }
  | { kind: "unsat"; nodes: number }
  | { kind: "unknown"; nodes: number };
