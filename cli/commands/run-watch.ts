/**
 * `cubist run watch RUN [--verdicts]`: follows a run until it ends. A live progress block on a terminal, plain
 * lines (every --interval seconds and on every change of state) otherwise, JSON lines with --json. The exit code
 * is the run's (0 sat, 20 unsat, 30 cancelled, 1 failed); Ctrl-C stops watching and leaves the run running.
 */
import type { CommandSpec, ParsedValues } from "../args.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { followRunFromCli, WATCH_EXIT_CODES, WATCH_OPTIONS } from "../control-watch.js";
import type { GetRunRequest, RunInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run watch",
  summary: "Follow a run until it ends: progress, cubes by state, cubes/s, ETA, solutions (and verdicts with --verdicts).",
  usage: "cubist run watch <run> [--verdicts] [--interval S] [--coordinator HOST:PORT] [--json]",
  positionals: { min: 1, max: 1 },
  options: { ...WATCH_OPTIONS, ...CLIENT_OPTIONS },
  details: `On a terminal the progress is redrawn in place; otherwise one line per --interval seconds and on every
change of state or solution count. --json prints one JSON object per event: {"run","event":"status"|"verdict"|
"solution"|"dropped"|"end", ...}. Watching a run that already ended prints its end and exits with its code.

${WATCH_EXIT_CODES}
  2    usage error`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    // The name for the display, and a clear NOT_FOUND before the stream starts.
    const info = await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId });
    return followRunFromCli(api, info, values);
  });
}
