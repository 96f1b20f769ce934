/** `cubist run resume RUN`: a paused run is dispatched again; a FAILED run gets its failed cubes sent again. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON, runStateName } from "../control-format.js";
import type { RunInfo, RunRef } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run resume",
  summary: "Resume a paused run (workers take its cubes again) or a FAILED one (its failed cubes are sent again).",
  usage: "cubist run resume <run> [--coordinator HOST:PORT] [--token T]",
  positionals: { min: 1, max: 1 },
  options: { ...CLIENT_OPTIONS },
  details: `Exit codes: 0 resumed; 1 error (FAILED_PRECONDITION: the run is neither paused nor failed; NOT_FOUND; UNAUTHENTICATED:
pass --token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<RunRef, RunInfo>(api.client.resumeRun, { runId });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`run ${info.runId} ${runStateName(info.status?.state)}\n`);
    return EXIT.OK;
  });
}
