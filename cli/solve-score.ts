/**
 * `cubist solve --objective score`: complete boards with as few mismatched edges as possible, the way Eternity II
 * record searches are judged (the score is the number of matched inner edges, 480 at most on 16x16).
 *
 * One score-mode engine process per core (docs/engine.md "Score mode"), each with its own seed (with `lnsMs`,
 * neighbourhood search around its best board after that long); every improvement
 * they print is re-checked and re-scored by core/score.ts (never the engine's own numbers) and kept when it beats
 * the best so far. It runs until --time, Ctrl-C or a perfect board (then a verified solution, status sat).
 */

import { acceptBoard } from "../core/accept.js";
import { acceptScored, betterScored, type ScoredBoard } from "../core/score.js";
import { boardFromPlacements, type Board, type Puzzle } from "../core/puzzle.js";
import { engineProblem, runEngine, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES, type EngineOrder, type EngineOutcome } from "../worker/engine/index.js";
import { EncoderBugError } from "../core/errors.js";

export interface ScoreOptions {
  threads: number;
  timeLimitSec?: number;
  /** First engine's seed; engine i gets seed + i. @default 1 */
  seed?: number;
  /** Mismatches allowed from this percentage of the scan order on. @default SCORE_FROM_PCT */
  fromPct?: number;
  /** Luby unit of the restarts, in placements. @default SCORE_RESTART_NODES */
  restartNodes?: number;
  /** Branch and bound for this many ms, then neighbourhood search around the best board (default: none). */
  lnsMs?: number;
  signal?: AbortSignal;
  /** Every improvement of the run's best, verified. */
  onImprove?: (best: ScoredBoard, seconds: number) => void;
}

export interface ScoreResult {
  /** "sat": a perfect board (a verified solution); otherwise the best board found, if any. */
  status: "sat" | "unknown";
  best: ScoredBoard | null;
  solution: Board | null;
  /** Improvements of the best score over time. */
  history: Array<{ seconds: number; score: number }>;
  placements: number;
  wallMs: number;
  /** Boards an engine printed that the checker refused (an engine bug if ever non-empty). */
  rejected: string[];
}


export async function scoreLocal(puzzle: Puzzle, options: ScoreOptions): Promise<ScoreResult> {
  const problem = engineProblem(puzzle, []);
  if (problem === null) throw new EncoderBugError("the puzzle's hints contradict each other, which validation should have caught");
  const shape = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };
  const started = performance.now();
  const stopAll = new AbortController();
  const onAbort = (): void => stopAll.abort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let best: ScoredBoard | null = null;
  const history: ScoreResult["history"] = [];
  const rejected: string[] = [];
  const orders: EngineOrder[] = puzzle.rows === puzzle.cols ? ["row"] : ["long", "short"];
  const seed = options.seed ?? 1;
  try {
    const runs = Array.from({ length: Math.max(1, options.threads) }, (_, i): Promise<EngineOutcome> => runEngine(problem, shape, {
      order: orders[i % orders.length],
      seed: seed + i,
      restartBase: options.restartNodes ?? SCORE_RESTART_NODES,
      score: { fromPct: options.fromPct ?? SCORE_FROM_PCT, rampPct: SCORE_RAMP_PCT, ...(options.lnsMs !== undefined ? { lnsMs: options.lnsMs } : {}) },
      timeLimitMs: options.timeLimitSec ? options.timeLimitSec * 1000 : undefined,
      signal: stopAll.signal,
      onBest: (b) => {
        const accepted = acceptScored(puzzle, b.board);
        if (!accepted.ok) {
          rejected.push(accepted.reason);
          return;
        }
        if (!betterScored(best, accepted.scored)) return;
        best = accepted.scored;
        const seconds = (performance.now() - started) / 1000;
        history.push({ seconds, score: best.score });
        options.onImprove?.(best, seconds);
      },
    }).then((outcome) => {
      if (outcome.kind === "sat") stopAll.abort();
      return outcome;
    }));
    const outcomes = await Promise.all(runs);
    const placements = outcomes.reduce((n, o) => n + o.stats.nodes, 0);
    const wallMs = performance.now() - started;
    const perfect = outcomes.find((o) => o.kind === "sat");
    if (perfect && perfect.kind === "sat") {
      const accepted = acceptBoard(puzzle, boardFromPlacements(puzzle, perfect.board));
      if (!accepted.ok) throw new EncoderBugError(`placement engine (score mode): ${accepted.reason}`);
      return { status: "sat", best, solution: accepted.board, history, placements, wallMs, rejected };
    }
    return { status: "unknown", best, solution: null, history, placements, wallMs, rejected };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
