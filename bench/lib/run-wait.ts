/**
 * A run submitted through the coordinator's API and followed to its end, for the benchmarks that time runs on a
 * cluster they started (bench/cnf-cluster.ts, bench/cnf-certify.ts).
 */

import type { RunInfo } from "../../proto/gen/cubist/v1/api.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { Call } from "../../test/helpers/api.js";

/** Submits `request` (a SubmitRunRequest) and polls every 50 ms until the run ends: the wall seconds from the submit and the final RunInfo. */
export async function submitAndWait(call: Call, request: Record<string, unknown>): Promise<{ wallS: number; info: RunInfo }> {
  const t0 = performance.now();
  const { run } = await call<unknown, { run: RunInfo }>("submitRun", request);
  for (;;) {
    const info = await call<unknown, RunInfo>("getRun", { runId: run.runId });
    if (isTerminal(info.status!.state)) return { wallS: (performance.now() - t0) / 1000, info };
    await new Promise((r) => setTimeout(r, 50));
  }
}
