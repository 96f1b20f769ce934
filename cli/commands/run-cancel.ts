/** `cubist run cancel RUN [--reason R]`: ends a run for good; its queued cubes are dropped, running solvers stopped. */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON, runStateName } from "../control-format.js";
import type { CancelRunRequest, RunInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run cancel",
  summary: "Cancel a run: it ends (state cancelled), its queued cubes are dropped and its running solvers stopped. Cannot be undone.",
  usage: "cubist run cancel <run> [--reason R] [--coordinator HOST:PORT] [--token T]",
  positionals: { min: 1, max: 1 },
  options: {
    reason: { type: "string", arg: "R", description: "why (kept as the run's message, at most 500 characters)" },
    ...CLIENT_OPTIONS,
  },
  details: `Exit codes: 0 cancelled; 1 error (FAILED_PRECONDITION: the run already ended; NOT_FOUND; UNAUTHENTICATED:
pass --token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const reason = typeof values.reason === "string" ? values.reason : "";
    const info = await api.call<CancelRunRequest, RunInfo>(api.client.cancelRun, { runId, reason });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`run ${info.runId} ${runStateName(info.status?.state)}${info.status?.message ? `: ${terminalSafe(info.status.message)}` : ""}\n`);
    return EXIT.OK;
  });
}
