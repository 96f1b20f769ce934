/** `cubist run priority RUN P`: change a run's priority; workers pick the highest first on their next pull. */
import { UsageError, type CommandSpec, type ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON } from "../control-format.js";
import type { RunInfo, SetRunPriorityRequest } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run priority",
  summary: "Change a run's priority (higher first): each worker slot takes it into account on its next pull.",
  usage: "cubist run priority <run> <priority> [--coordinator HOST:PORT] [--token T] [--json]",
  positionals: { min: 2, max: 2 },
  options: {
    ...CLIENT_OPTIONS,
  },
  details: `PRIORITY is an integer in -1000..1000 (submit's --priority; default 0). Cubes already running keep running;
the change is recorded in the run's ledger, so it survives a coordinator restart. A negative value needs "--"
before it (cubist run priority RUN -- -5).

Exit codes: 0 changed; 1 error (FAILED_PRECONDITION: the run already ended; NOT_FOUND; UNAUTHENTICATED: pass
--token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error (PRIORITY is not an integer in range).`,
};

export async function run(values: ParsedValues, [runId, text]: string[]): Promise<number> {
  const priority = Number(text);
  if (!/^-?\d+$/.test(text.trim()) || priority < -1000 || priority > 1000) {
    throw new UsageError(`priority must be an integer in -1000..1000, got "${text}"`);
  }
  return withControlApi(values, async (api) => {
    const info = await api.call<SetRunPriorityRequest, RunInfo>(api.client.setRunPriority, { runId, priority });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`run ${info.runId} priority ${info.status?.priority ?? priority}\n`);
    return EXIT.OK;
  });
}
