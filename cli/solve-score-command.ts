/**
 * The CLI side of `solve --objective score`: a line on stderr each time the best score improves and a progress line
 * between them (cli/solve-progress.ts), the best board at the end (grid, or JSON with --json). Ctrl-C ends the search and still prints the best board: that is how a
 * score search is meant to be stopped.
 */

import { terminalSafe } from "../cluster/terminal-text.js";
import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { onInterrupt } from "./interrupt.js";
import { showBoard } from "./board-output.js";
import { scoreLocal } from "./solve-score.js";
import { countOf, PLAIN_INTERVAL_MS, SolveProgress } from "./solve-progress.js";
import { bestJSON } from "../core/score.js";
import { boardToJSON } from "../core/formats/index.js";
import type { Puzzle } from "../core/puzzle.js";

export async function runScore(puzzle: Puzzle, values: ParsedValues, threads: number): Promise<number> {
  const stop = onInterrupt();
  // Between improvements (minutes apart on a long run) the elapsed time and the best score: redrawn on a terminal,
  // a line every 10 s in a pipe; not with --json.
  const progress = values.json ? null : new SolveProgress(process.stderr.isTTY === true, Date.now(), `score search (${countOf(threads, "thread")})`, PLAIN_INTERVAL_MS);
  progress?.updateScore(undefined);
  const ticker = progress ? setInterval(() => process.stderr.write(progress.tick(Date.now())), 1000) : undefined;
  try {
    const result = await scoreLocal(puzzle, {
      threads,
      timeLimitSec: values.time as number | undefined,
      seed: values.seed as number | undefined,
      ...(values.lns !== undefined ? { lnsMs: (values.lns as number) * 1000 } : {}),
      signal: stop.signal,
      onImprove: (b, seconds) => {
        progress?.updateScore({ score: b.score, maxScore: b.maxScore, mismatches: b.mismatches.length });
        process.stderr.write(`${progress?.finish() ?? ""}score ${b.score}/${b.maxScore} (${b.mismatches.length} mismatched edges) after ${seconds.toFixed(1)} s\n`);
      },
    });
    clearInterval(ticker);
    if (progress) process.stderr.write(progress.finish());
    for (const r of result.rejected.slice(0, 3)) process.stderr.write(`cubist: warning: an engine board was refused: ${r}\n`);
    const secs = (result.wallMs / 1000).toFixed(2);
    const reason = stop.interrupted ? "interrupted" : "time-limit";
    if (values.json) {
      process.stdout.write(JSON.stringify({
        status: result.status,
        objective: "score",
        rows: puzzle.rows,
        cols: puzzle.cols,
        board: result.solution ? boardToJSON(result.solution, puzzle) : null,
        ...(result.status === "unknown" ? { reason } : {}),
        best: result.best ? bestJSON(puzzle, result.best) : null,
        history: result.history.map((h) => ({ seconds: Math.round(h.seconds * 1000) / 1000, score: h.score })),
        puzzle: puzzle.name ?? null,
        stats: { wallMs: Math.round(result.wallMs), placements: result.placements, threads },
      }) + "\n");
      const board = result.solution ?? result.best?.board;
      if (board && typeof values.svg === "string") await showBoard(puzzle, board, values, () => undefined);
    } else if (result.status === "sat" && result.solution) {
      process.stdout.write(`solution (verified) for ${terminalSafe(puzzle.name ?? "puzzle")} in ${secs} s (found by the score search):\n`);
      await showBoard(puzzle, result.solution, values);
    } else if (result.best) {
      const b = result.best;
      process.stdout.write(`best board (verified): score ${b.score} of ${b.maxScore}, ${b.mismatches.length} mismatched edges, after ${secs} s (${reason}):\n`);
      await showBoard(puzzle, b.board, values);
    } else {
      process.stdout.write(`unknown: no complete board (${reason}) after ${secs} s\n`);
    }
    if (result.status === "sat") return EXIT.OK;
    if (stop.interrupted) return values.json ? EXIT.UNKNOWN : EXIT.INTERRUPTED;
    // A score search that ran to its time limit and has a board did what it was asked.
    return result.best ? EXIT.OK : EXIT.UNKNOWN;
  } finally {
    clearInterval(ticker);
    stop.dispose();
  }
}
