/**
 * Worker-thread entry of the placement search (see search.ts): receives { id, key, puzzleText, fixed, budgetMs },
 * answers { id, result } or { id, error }. Parsed puzzles are kept per key (the run's puzzle hash).
 */

import { parentPort } from "node:worker_threads";
import { parsePuzzle } from "../core/formats/index.js";
import type { Placement, Puzzle } from "../core/puzzle.js";
import { searchWithBudget } from "./search-budget.js";

export interface SearchRequest {
  id: number;
  key: string;
  puzzleText: string;
  fixed: Placement[];
  budgetMs: number;
}

const puzzles = new Map<string, Puzzle>();

parentPort?.on("message", (req: SearchRequest) => {
  try {
    let puzzle = puzzles.get(req.key);
    if (!puzzle) {
      puzzle = parsePuzzle(req.puzzleText, "<run puzzle>", "canonical");
      if (puzzles.size >= 8) puzzles.clear();
      puzzles.set(req.key, puzzle);
    }
    parentPort!.postMessage({ id: req.id, result: searchWithBudget(puzzle, req.fixed, req.budgetMs) });
  } catch (err) {
    parentPort!.postMessage({ id: req.id, error: (err as Error).message });
  }
});
