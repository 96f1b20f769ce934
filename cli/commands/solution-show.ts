/**
 * `cubist solution show RUN [--index I]`: a verified solution of a run, as `cubist solve` prints one: the text
 * grid (and the e2.bucas.name link for 16x16), `--svg FILE`, or `--json` in the `cubist solve --json` shape.
 * The board is verified again here before it is printed.
 */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";
import { formatTime } from "../control-format.js";
import { boardToJSON, parsePuzzle } from "../../core/formats/index.js";
import { boardFromPlacements } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { EncoderBugError } from "../../core/errors.js";
import type { GetSolutionRequest, SolutionInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "solution show",
  summary: "Show a verified solution of a run: the board as a text grid (a viewer link for 16x16), SVG or JSON.",
  usage: "cubist solution show <run> [--index I] [--svg FILE] [--json] [--coordinator HOST:PORT]",
  positionals: { min: 1, max: 1 },
  options: {
    index: { type: "integer", arg: "I", description: "which solution (0 = the first found)", min: 0, max: 1_000_000, default: 0 },
    ...BOARD_OUTPUT_OPTIONS,
    ...CLIENT_OPTIONS,
    json: { type: "boolean", description: 'print {"status":"sat","rows","cols","board":[[[id,rot],...],...],...} as cubist solve --json does' },
  },
  details: `The board: board[row][col] = [id, rot], row 0 at the top, id as in the puzzle file, rot = clockwise quarter
turns applied to the piece as listed.

Exit codes: 0 shown; 1 error (NOT_FOUND: no such run, or no solution with that index; unreachable coordinator);
3 the board failed verification here (a coordinator bug; nothing is printed as a solution); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const index = values.index as number;
    const info = await api.call<GetSolutionRequest, SolutionInfo>(api.client.getSolution, { runId, index });
    const sol = info.solution!;
    const puzzle = parsePuzzle(info.puzzleText, `<run ${runId}>`, "canonical");
    const board = boardFromPlacements(puzzle, sol.cells);
    const verdict = verifySolution(puzzle, board);
    if (!verdict.ok) throw new EncoderBugError(`solution ${index} of run ${runId} as sent by the coordinator: ${verdict.violations[0].message}`);
    if (values.json) {
      const out = {
        status: "sat",
        rows: puzzle.rows,
        cols: puzzle.cols,
        board: boardToJSON(board, puzzle),
        puzzle: puzzle.name ?? null,
        run: runId,
        index: sol.index,
        cube: sol.cubeId,
        worker: sol.workerId,
        foundUnixMs: sol.foundUnixMs,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      if (typeof values.svg === "string") await showBoard(puzzle, board, values, () => undefined);
      return EXIT.OK;
    }
    process.stdout.write(`solution ${sol.index} (verified) of run ${runId} (${terminalSafe(puzzle.name ?? "puzzle")}, ${puzzle.rows}x${puzzle.cols}): cube ${terminalSafe(sol.cubeId)}, worker ${terminalSafe(sol.workerId) || "?"}, found ${formatTime(sol.foundUnixMs)}\n`);
    await showBoard(puzzle, board, values);
    return EXIT.OK;
  });
}
