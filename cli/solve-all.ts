/**
 * Single-machine counting and enumeration (`cubist solve --all`): the native engine counts every solution, split
 * over one process per core (`--part k/n`: the parts' subtrees are disjoint and together cover the space, so their
 * counts add up exactly). A solution is a board: copies of identical pieces are interchangeable and a symmetric
 * piece's equal rotations are one board (docs/engine.md). With `onBoard` every board is printed by the engine,
 * verified here by the independent verifier and handed over; a board that fails verification is an EncoderBugError.
 * The count is complete only when every part exhausted its subtrees. With `upToSymmetry` every board is printed and
 * only one board per orbit under the board's symmetries is counted (core/symmetry.ts).
 */

import { acceptBoard } from "../core/accept.js";
import { EncoderBugError } from "../core/errors.js";
import { squareFolder } from "../core/symmetry.js";
import { boardFromPlacements, type Board, type Placement, type Puzzle } from "../core/puzzle.js";
import { engineProblem, runEngine, type EngineOutcome } from "../worker/engine/index.js";

export interface CountOptions {
  /** Engine processes (parts of the space). */
  threads: number;
  /** Stop after this many solutions (the count is then a lower bound). */
  limit?: number;
  timeLimitSec?: number;
  /** Called with every verified board (the engine prints them only when this is given or when folding). */
  onBoard?: (board: Board) => void;
  /** Count (and hand over) one board per orbit under the board's symmetries (core/symmetry.ts). */
  upToSymmetry?: boolean;
  signal?: AbortSignal;
}

export interface CountResult {
  count: number;
  /** True when the whole space was searched: `count` is then exact. */
  complete: boolean;
  /** Why it is not complete: "limit", "time-limit", "aborted". */
  reason?: string;
  placements: number;
  wallMs: number;
}

export async function countLocal(puzzle: Puzzle, options: CountOptions): Promise<CountResult> {
  const started = performance.now();
  const problem = engineProblem(puzzle, []);
  if (problem === null) throw new EncoderBugError("the puzzle's hints contradict each other, which validation should have caught");
  const shape = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };
  const n = Math.max(1, options.threads);
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (options.signal?.aborted) stop.abort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  let seen = 0;
  let failure: Error | null = null;
  const fold = options.upToSymmetry ? squareFolder(puzzle) : null;
  const onBoard = options.onBoard || fold
    ? (placements: Placement[]): void => {
        if (failure || (options.limit && seen >= options.limit)) return;
        const accepted = acceptBoard(puzzle, boardFromPlacements(puzzle, placements));
        if (!accepted.ok) {
          failure = new EncoderBugError(`placement engine board: ${accepted.reason}`);
          stop.abort();
          return;
        }
        if (fold && !fold(accepted.board)) return;
        seen++;
        options.onBoard?.(accepted.board);
        if (options.limit && seen >= options.limit) stop.abort();
      }
    : undefined;
  let outcomes: EngineOutcome[];
  try {
    outcomes = await Promise.all(
      Array.from({ length: n }, (_, k) =>
        runEngine(problem, shape, {
          order: "short",
          count: true,
          // Folding keeps one board of each orbit: the engine must go on past `limit` boards.
          solutionLimit: fold ? undefined : options.limit,
          printAll: onBoard !== undefined,
          onBoard,
          keepBoards: false,
          part: n > 1 ? { k, n } : undefined,
          timeLimitMs: options.timeLimitSec ? options.timeLimitSec * 1000 : undefined,
          signal: stop.signal,
        }),
      ),
    );
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
  if (failure) throw failure;
  const total = outcomes.reduce((s, o) => s + o.stats.solutions, 0);
  const count = onBoard ? seen : options.limit ? Math.min(total, options.limit) : total;
  const exhausted = outcomes.every((o) => o.stats.end === "exhausted");
  const complete = fold ? exhausted : exhausted && count === total;
  const reason = complete
    ? undefined
    : options.signal?.aborted ? "aborted"
    : options.limit && (fold ? seen : total) >= options.limit ? "limit"
    : outcomes.some((o) => o.kind === "unknown" && o.reason === "time-limit") ? "time-limit" : "aborted";
  return {
    count,
    complete,
    reason,
    placements: outcomes.reduce((s, o) => s + o.stats.nodes, 0),
    wallMs: performance.now() - started,
  };
}
