/** `cubist run show RUN`: one run's state, cubes by state, progress, ETA, solutions and message. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON } from "../control-format.js";
import { renderRunDetails } from "../control-run-view.js";
import type { BestBoardInfo, GetRunRequest, RunInfo, RunRef } from "../../proto/gen/cubist/v1/api.js";
import type { ControlApi } from "../control-client.js";
import { boardToJSON, parsePuzzle } from "../../core/formats/index.js";
import { boardFromPlacements } from "../../core/puzzle.js";

export const spec: CommandSpec = {
  name: "run show",
  summary: "Show a run: state, settings, progress (closed fraction of the search space), cubes by state, rate, ETA, solutions.",
  usage: "cubist run show <run> [--coordinator HOST:PORT] [--json]",
  positionals: { min: 1, max: 1 },
  options: { ...CLIENT_OPTIONS },
  details: `Exit codes: 0 shown, 1 error (NOT_FOUND: no such run; unreachable coordinator), 2 usage error.
--json carries "best": the run's best board so far ({score, maxScore, placed, board, cube, worker, foundUnixMs},
board[row][col] = [id, rot] or null as in cubist solve --json), null before a worker reported one.
The exit code does not depend on the run's state; use cubist run watch for that.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId });
    if (values.json) process.stdout.write(`${JSON.stringify(await withBestBoard(api, info))}\n`);
    else process.stdout.write(renderRunDetails(info, Date.now()));
    return EXIT.OK;
  });
}

/** The run's JSON with its best board's cells (`best.board`, piece ids from the run's puzzle). */
async function withBestBoard(api: ControlApi, info: RunInfo): Promise<Record<string, unknown>> {
  const out = runJSON(info);
  if (!info.status?.best || info.shape === "triangle") return out;
  const got = await api.call<RunRef, BestBoardInfo>(api.client.getBestBoard, { runId: info.runId });
  const puzzle = parsePuzzle(got.puzzleText, `<run ${info.runId}>`, "canonical");
  const b = got.best!;
  return { ...out, best: { ...(out.best as object), score: b.score, maxScore: b.maxScore, placed: b.placed, board: boardToJSON(boardFromPlacements(puzzle, b.cells), puzzle) } };
}
