/**
 * `cubist solution show RUN [--index I]`: a verified solution of a run, as `cubist solve` prints one: the text
 * grid (and the e2.bucas.name link for 16x16), `--svg FILE`, or `--json` in the `cubist solve --json` shape.
 * The board is verified again here before it is printed.
 */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { ClusterError, CLIENT_OPTIONS } from "../client.js";
import { withControlApi, type ControlApi } from "../control-client.js";
import { BOARD_OUTPUT_OPTIONS } from "../board-output.js";
import { formatTime } from "../control-format.js";
import { runPuzzleView } from "../formula-view.js";
import type { GetRunRequest, GetSolutionRequest, RunInfo, SolutionInfo } from "../../proto/gen/cubist/v1/api.js";
import { status as Status } from "@grpc/grpc-js";

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
turns applied to the piece as listed. A triangle run's board (--json: "shape": "triangle", "side") is board[row][pos],
row 0 at the apex with 2*row+1 cells, rot = clockwise 120-degree turns; it is checked by the triangle verifier.

A run with no solution but a best board (a score run's best complete board so far, or the deepest partial board of
another run) says so and names the command that shows it: cubist run best RUN.

Exit codes: 0 shown; 1 error (NOT_FOUND: no such run, or no solution with that index; unreachable coordinator);
3 the board failed verification here (a coordinator bug; nothing is printed as a solution); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const index = values.index as number;
    const info = await api.call<GetSolutionRequest, SolutionInfo>(api.client.getSolution, { runId, index }).catch((err: unknown) => pointToBest(api, runId, err));
    const sol = info.solution!;
    const view = runPuzzleView(info.puzzleText, await runEncoding(api, runId), `<run ${runId}>`);
    view.verify(sol.cells, `solution ${index} of run ${runId} as sent by the coordinator`);
    if (values.json) {
      const out = {
        status: "sat",
        ...view.size,
        board: view.boardJSON(sol.cells),
        puzzle: view.name ?? null,
        run: runId,
        index: sol.index,
        cube: sol.cubeId,
        worker: sol.workerId,
        foundUnixMs: sol.foundUnixMs,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      if (typeof values.svg === "string") await view.show(sol.cells, values, () => undefined);
      return EXIT.OK;
    }
    process.stdout.write(`solution ${sol.index} (verified) of run ${runId} (${terminalSafe(view.name ?? "puzzle")}, ${view.sizeText}): cube ${terminalSafe(sol.cubeId)}, worker ${terminalSafe(sol.workerId) || "?"}, found ${formatTime(sol.foundUnixMs)}\n`);
    await view.show(sol.cells, values);
    return EXIT.OK;
  });
}

/** The run's encoding (a formula run's puzzle text is a DIMACS formula or a Sudoku). */
async function runEncoding(api: ControlApi, runId: string): Promise<string> {
  return (await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId })).encoding;
}

/**
 * A NOT_FOUND for a run without solutions that has a best board (a score run's, above all) names `cubist run best`,
 * the command that shows it; any other error passes unchanged.
 */
async function pointToBest(api: ControlApi, runId: string, err: unknown): Promise<never> {
  if (!(err instanceof ClusterError) || err.code !== Status.NOT_FOUND) throw err;
  const info = await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId }).catch(() => null);
  const best = info?.status?.best;
  if (!best || (info?.status?.solutions ?? 0) > 0) throw err;
  const what = info?.solver?.objective === "score" ? "a score run: its best board so far" : "its best board so far";
  throw new ClusterError(Status.NOT_FOUND, `NOT_FOUND: run ${runId} has no solution; ${what} has score ${best.score} of ${best.maxScore} (${best.placed} cells): cubist run best ${runId}`);
}
