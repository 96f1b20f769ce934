/** `cubist run list [--state S]`: the coordinator's runs, newest first. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { RUN_STATE_NAMES, runJSON, runStateOption } from "../control-format.js";
import { renderRunTable } from "../control-run-view.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { ListRunsRequest, ListRunsResponse } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run list",
  summary: "List the runs the coordinator knows (newest first): state, progress, open and closed cubes, solutions, a score run's best score.",
  usage: "cubist run list [--state S] [--coordinator HOST:PORT] [--json]",
  positionals: { min: 0, max: 0 },
  options: {
    state: { type: "string", arg: "S", description: "only runs in this state", choices: RUN_STATE_NAMES },
    ...CLIENT_OPTIONS,
  },
  details: `OPEN = queued + running + unknown cubes; DONE = cubes answered (unsat, sat, failed); BEST = a score run's best
score so far (its board: cubist run best RUN).
--json prints one JSON array of runs.

Exit codes: 0 listed, 1 error (unreachable coordinator, UNAUTHENTICATED), 2 usage error.`,
};

export async function run(values: ParsedValues): Promise<number> {
  const state = typeof values.state === "string" ? runStateOption(values.state) : RunState.RUN_STATE_UNSPECIFIED;
  return withControlApi(values, async (api) => {
    const res = await api.call<ListRunsRequest, ListRunsResponse>(api.client.listRuns, { state });
    if (values.json) process.stdout.write(`${JSON.stringify(res.runs.map(runJSON))}\n`);
    else process.stdout.write(renderRunTable(res.runs, Date.now()));
    return EXIT.OK;
  });
}
