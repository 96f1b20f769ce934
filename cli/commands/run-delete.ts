/** `cubist run delete RUN`: forget a run that has ended (its record, ledger and metrics); its id becomes free. */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { runJSON, runStateName } from "../control-format.js";
import type { RunInfo, RunRef } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run delete",
  summary: "Delete a run that has ended: its record, ledger, metric series, proofs and (unless another run uses it) formula go.",
  usage: "cubist run delete <run> [--coordinator HOST:PORT] [--token T] [--json]",
  positionals: { min: 1, max: 1 },
  options: {
    ...CLIENT_OPTIONS,
  },
  details: `Only runs that ended (sat, unsat, failed, cancelled) can be deleted: cancel a running one first. Solutions
go with the run, so save them first (cubist solution show RUN --json > board.json). The id can be used again afterwards.
Its DRAT proofs leave the proofs stream, and its base formula the Object Store unless another run that is kept was made from
the same one. Without deletion an ended run stays listed, and its run-labelled metric series are retired after the coordinator's
--metrics-retention (one hour by default).

Exit codes: 0 deleted; 1 error (FAILED_PRECONDITION: the run has not ended; NOT_FOUND; UNAUTHENTICATED: pass
--token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<RunRef, RunInfo>(api.client.deleteRun, { runId });
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`run ${info.runId} (${runStateName(info.status?.state)}) deleted\n`);
    return EXIT.OK;
  });
}
