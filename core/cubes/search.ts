/**
 * Placement search: a complete backtracker over the puzzle's placements (see dfs.ts for the engines).
 * It solves small puzzles and easy cubes outright, proves cubes empty, and counts solutions.
 *
 * Solutions are counted up to swapping identical pieces (boards that differ only by which copy of an
 * identical piece lies where count once); rotated copies of the whole board are different solutions.
 */

import { InvalidOptionError } from "../errors.js";
import type { Placement, Puzzle } from "../puzzle.js";
import { tablesFor } from "./candidates.js";
import { dynamicDfs, staticDfs, type DfsOutcome } from "./dfs.js";
import { staticCellOrder } from "./order.js";
import { PlacementState } from "./state.js";
import { cellOrders, type SearchOptions, type SearchResult } from "./types.js";

/** The puzzle's hints as placements. */
export function hintPlacements(puzzle: Puzzle): Placement[] {
  return puzzle.hints.map((h) => ({ cell: h.row * puzzle.cols + h.col, piece: h.piece, rot: h.rot }));
}

function checkCount(option: string, value: number | undefined, min: number): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (!(value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value >= min))) {
    throw new InvalidOptionError(option, `must be an integer >= ${min}, got ${value}`);
  }
  return value;
}

/**
 * Searches for a placement of all pieces that extends the hints and `options.fixed`.
 * Hints or fixed placements that conflict (a cell or piece twice, colours or rim that do not fit)
 * make the answer "unsat" with 0 nodes.
 */
export function searchPlacements(puzzle: Puzzle, options: SearchOptions = {}): SearchResult {
  const cellOrder = options.cellOrder ?? "row-major";
  if (!cellOrders.includes(cellOrder)) {
    throw new InvalidOptionError("cellOrder", `unknown cell order '${String(cellOrder)}' (known: ${cellOrders.join(", ")})`);
  }
  const dynamic = cellOrder === "most-constrained";
  const pruning = options.pruning ?? (dynamic ? "neighbours" : "none");
  const nodeLimit = checkCount("nodeLimit", options.nodeLimit, 0);
  const solutionLimit = options.findAll ? checkCount("limit", options.limit, 1) : 1;

  const t = tablesFor(puzzle);
  const s = new PlacementState(t);
  if (!s.placeAllFixed(hintPlacements(puzzle)) || !s.placeAllFixed(options.fixed ?? [])) {
    return { kind: "unsat", nodes: 0 };
  }
  if (!s.checkAll(pruning)) return { kind: "unsat", nodes: 0 };

  const opts = { nodeLimit, pruning, solutionLimit };
  let out: DfsOutcome;
  if (dynamic) {
    out = dynamicDfs(s, opts);
  } else {
    const all = staticCellOrder(t.rows, t.cols, cellOrder);
    const order = new Int32Array(t.cells);
    let n = 0;
    for (const cell of all) if (s.board[cell] < 0) order[n++] = cell;
    out = staticDfs(s, order, n, opts);
  }

  if (out.solutions > 0) {
    const board = s.toBoard(out.cells!, out.oris!, out.cells!.length);
    return { kind: "sat", board, nodes: out.nodes, solutions: out.solutions, complete: out.end === "exhausted" };
  }
  return out.end === "exhausted" ? { kind: "unsat", nodes: out.nodes } : { kind: "unknown", nodes: out.nodes };
}
