/**
 * The placement search under a time budget. `searchPlacements` has a node limit but no clock and cannot be
 * resumed, so the budget is met by iterative doubling: search with a node limit, double it while the last
 * attempt's time (doubled) still fits in the budget. The total work is at most about twice that of the last
 * attempt, and an easy cube is decided by an early, small attempt. `nodes` counts every placement tried.
 */

import { searchPlacements } from "../core/cubes/search.js";
import type { Placement, Puzzle } from "../core/puzzle.js";

export type BudgetedSearch =
  /** `board`: every cell of the solution, cell order. */
  | { kind: "sat"; nodes: number; board: Placement[] }
  | { kind: "unsat"; nodes: number }
  | { kind: "unknown"; nodes: number };

/** The first attempt's node limit. */
export const FIRST_NODE_LIMIT = 2048;

export function searchWithBudget(
  puzzle: Puzzle,
  fixed: readonly Placement[],
  budgetMs: number,
  now: () => number = () => performance.now(),
): BudgetedSearch {
  const started = now();
  let limit = FIRST_NODE_LIMIT;
  let nodes = 0;
  for (;;) {
    const t0 = now();
    const r = searchPlacements(puzzle, { fixed, nodeLimit: limit });
    nodes += r.nodes;
    if (r.kind === "sat") {
      const board: Placement[] = [];
      for (let cell = 0; cell < r.board.cells.length; cell++) {
        const c = r.board.cells[cell];
        if (c === null) return { kind: "unknown", nodes }; // not a whole board: leave it to the SAT solver
        board.push({ cell, piece: c.piece, rot: c.rot });
      }
      return { kind: "sat", nodes, board };
    }
    if (r.kind === "unsat") return { kind: "unsat", nodes };
    const t1 = now();
    if (t1 - started + 2 * (t1 - t0) > budgetMs) return { kind: "unknown", nodes };
    limit *= 2;
  }
}
