/** `cubist run pause RUN [--now]`: workers take no new cubes of the run; `--now` also stops its running cubes. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON, runStateName } from "../control-format.js";
import type { PauseRunRequest, RunInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run pause",
  summary: "Pause a running run: workers take none of its cubes until it is resumed. Running cubes finish, unless --now.",
  usage: "cubist run pause <run> [--now] [--coordinator HOST:PORT] [--token T]",
  positionals: { min: 1, max: 1 },
  options: {
    now: { type: "boolean", description: "also stop the cubes running now (they are queued again and rerun after resume)" },
    ...CLIENT_OPTIONS,
  },
  details: `Exit codes: 0 paused; 1 error (FAILED_PRECONDITION: the run is not running; NOT_FOUND; UNAUTHENTICATED:
pass --token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<PauseRunRequest, RunInfo>(api.client.pauseRun, { runId, now: values.now === true });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`run ${info.runId} ${runStateName(info.status?.state)}${values.now ? " (running cubes stopped and queued again)" : ""}\n`);
    return EXIT.OK;
  });
}
