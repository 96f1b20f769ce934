/**
 * Best boards: a partial board without a mismatch (the deepest a search got) or a complete board with mismatched
 * edges (score mode), checked and scored here with the verifier's rules, never with a searcher's own numbers.
 *
 * A scored board must keep every rule of a solution except that inner edges may disagree and cells may be empty:
 * pieces in range and used at most once, rotations 0..3, grey exactly on the rim (bounded puzzles), hints
 * respected where their cell is filled. Its score is the number of matched inner edges (core/verify.ts scoreBoard,
 * the Eternity II score: 480 at most on 16x16).
 */

import type { Board, Placement, Puzzle } from "./puzzle.js";
import { boardFromPlacements } from "./puzzle.js";
import { innerEdgeCount, scoreBoard, verifyPartial } from "./verify.js";
import { boardToJSON } from "./formats/board-json.js";

export interface ScoredBoard {
  board: Board;
  /** Matched inner edges. */
  score: number;
  /** Inner edges of the board (the score of a solution). */
  maxScore: number;
  /** Cells holding a piece. */
  placed: number;
  /** The inner edges whose sides disagree, as [cell, neighbour] with the neighbour east or south. */
  mismatches: Array<[number, number]>;
}

export type ScoreAcceptance = { ok: true; scored: ScoredBoard } | { ok: false; reason: string };

/** Checks and scores `placements` (any subset of cells) against `puzzle`. */
export function acceptScored(puzzle: Puzzle, placements: readonly Placement[]): ScoreAcceptance {
  const cells = puzzle.rows * puzzle.cols;
  const seen = new Set<number>();
  for (const p of placements) {
    if (!(Number.isInteger(p.cell) && p.cell >= 0 && p.cell < cells)) return { ok: false, reason: `cell ${p.cell} is off the board` };
    if (seen.has(p.cell)) return { ok: false, reason: `cell ${p.cell} is given twice` };
    seen.add(p.cell);
  }
  const board = boardFromPlacements(puzzle, placements);
  const result = verifyPartial(puzzle, board);
  const mismatches: Array<[number, number]> = [];
  if (!result.ok) {
    for (const v of result.violations) {
      if (v.kind === "edge-mismatch") mismatches.push([v.cells[0], v.cells[1]]);
      else return { ok: false, reason: v.message };
    }
  }
  const score = scoreBoard(puzzle, board);
  return { ok: true, scored: { board, score, maxScore: innerEdgeCount(puzzle), placed: seen.size, mismatches } };
}

/** Better of two scored boards: the higher score, then more cells placed. */
export function betterScored(a: ScoredBoard | null, b: ScoredBoard): boolean {
  return a === null || b.score > a.score || (b.score === a.score && b.placed > a.placed);
}

/** The `best` object of `solve --json`: score, the most it can be, cells placed, mismatches, rows of [id, rot]. */
export function bestJSON(puzzle: Puzzle, best: ScoredBoard): Record<string, unknown> {
  return { score: best.score, maxScore: best.maxScore, placed: best.placed, mismatches: best.mismatches.length, board: boardToJSON(best.board, puzzle) };
}
