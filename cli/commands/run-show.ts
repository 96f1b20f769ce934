/** `cubist run show RUN`: one run's state, cubes by state, progress, ETA, solutions and message. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON } from "../control-format.js";
import { renderRunDetails } from "../control-run-view.js";
import type { GetRunRequest, RunInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run show",
  summary: "Show a run: state, settings, progress (closed fraction of the search space), cubes by state, rate, ETA, solutions.",
  usage: "cubist run show <run> [--coordinator HOST:PORT] [--json]",
  positionals: { min: 1, max: 1 },
  options: { ...CLIENT_OPTIONS },
  details: `Exit codes: 0 shown, 1 error (NOT_FOUND: no such run; unreachable coordinator), 2 usage error.
The exit code does not depend on the run's state; use cubist run watch for that.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(renderRunDetails(info, Date.now()));
    return EXIT.OK;
  });
}
