/**
 * `cubist run best RUN`: the best board a run has so far (a score run's incumbent, or the deepest partial board a
 * search reached), as the coordinator checked and scored it. It is checked and scored again here (core/score.ts)
 * before it is printed: the text grid, `--svg FILE`, `--bucas` (the e2.bucas.name viewer's link) or `--json` (with
 * `board` where `cubist render` and `cubist verify` read it).
 */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";
import { formatTime } from "../control-format.js";
import { boardToJSON, parsePuzzle } from "../../core/formats/index.js";
import { acceptScored } from "../../core/score.js";
import { EncoderBugError } from "../../core/errors.js";
import type { BestBoardInfo, RunRef } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run best",
  summary: "Show a run's best board so far (checked and scored by the coordinator and again here): a text grid, SVG, a viewer link or JSON.",
  usage: "cubist run best <run> [--svg FILE] [--bucas] [--json] [--coordinator HOST:PORT]",
  positionals: { min: 1, max: 1 },
  options: {
    ...BOARD_OUTPUT_OPTIONS,
    bucas: { type: "boolean", description: "print only the e2.bucas.name viewer's link to the board (any size, empty cells shown empty)" },
    ...CLIENT_OPTIONS,
    json: { type: "boolean", description: 'print {"run","score","maxScore","placed","mismatches","board":[[[id,rot] or null,...],...],...}' },
  },
  details: `The best board: a score run's best complete board (--objective score: the most matched inner edges), or in
another run the deepest partial board a worker's search reached. board[row][col] = [id, rot] as in cubist solve --json,
null for an empty cell; cubist render PUZZLE FILE draws the --json output and cubist verify checks it. Square boards only.

Exit codes: 0 shown; 1 error (NOT_FOUND: no such run, or no best board reported yet; unreachable coordinator);
3 the board failed the check here (a coordinator bug; nothing is printed); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<RunRef, BestBoardInfo>(api.client.getBestBoard, { runId });
    const best = info.best!;
    const puzzle = parsePuzzle(info.puzzleText, `<run ${runId}>`, "canonical");
    const checked = acceptScored(puzzle, best.cells);
    if (!checked.ok) throw new EncoderBugError(`best board of run ${runId} as sent by the coordinator: ${checked.reason}`);
    const b = checked.scored;
    if (b.score !== best.score) throw new EncoderBugError(`best board of run ${runId}: the coordinator scored it ${best.score}, the verifier ${b.score}`);
    if (values.bucas) {
      const { bucasLink } = await import("../../core/render/index.js");
      process.stdout.write(`${bucasLink(puzzle, b.board)}\n`);
      if (typeof values.svg === "string") await showBoard(puzzle, b.board, values, () => undefined);
      return EXIT.OK;
    }
    if (values.json) {
      const out = {
        run: runId, rows: puzzle.rows, cols: puzzle.cols, score: b.score, maxScore: b.maxScore, placed: b.placed, mismatches: b.mismatches.length,
        board: boardToJSON(b.board, puzzle), puzzle: puzzle.name ?? null, cube: best.cubeId, worker: best.workerId, foundUnixMs: best.foundUnixMs,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      if (typeof values.svg === "string") await showBoard(puzzle, b.board, values, () => undefined);
      return EXIT.OK;
    }
    process.stdout.write(`best board (checked) of run ${runId} (${terminalSafe(puzzle.name ?? "puzzle")}, ${puzzle.rows}x${puzzle.cols}): score ${b.score} of ${b.maxScore}, ` +
      `${b.placed} of ${puzzle.rows * puzzle.cols} cells, ${b.mismatches.length} mismatched edge${b.mismatches.length === 1 ? "" : "s"}; ` +
      `${terminalSafe(best.cubeId)}, worker ${terminalSafe(best.workerId) || "?"}, found ${formatTime(best.foundUnixMs)}\n`);
    await showBoard(puzzle, b.board, values);
    return EXIT.OK;
  });
}
