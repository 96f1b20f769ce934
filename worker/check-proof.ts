/**
 * A worker as a checker of another worker's proof (a check task, CubeTask.check; docs/operations.md "Certificates"):
 * it builds the cube's formula itself (the run's base formula + the task's units, which come from the coordinator's
 * ledger, never from the producer's verdict), downloads the proof by its SHA-256 (the download checks the hash),
 * and runs the checker of the proof's format, read from its first byte: lrat-check for LRAT, drat-trim for DRAT
 * (certify/lrat-check.ts; the worker's --lrat-check-path and --drat-trim-path). The answer is what the checker found,
 * with its wall and CPU time: the coordinator closes the cube certified only on a verified proof from a worker other
 * than its producer, and checks a rejection (and a sample of the verifications) itself.
 *
 * A proof that could not be checked at all (no formula, no proof, no checker to run) is an error result: the
 * coordinator then checks the proof itself.
 */

import { checkStoredProof } from "../certify/check-stored.js";
import { openBaseCnf } from "../certify/cnf.js";
import { isSha256Hex } from "../core/sha256.js";
import { faultOf } from "../core/errors.js";
import type { WorkerContext } from "./context.js";
import { cubeFormula, type CubeJob } from "./cube-job.js";
import type { CubeResult } from "./verdict.js";

/** Limit of one check, seconds (the coordinator's own default, coordinator/shell/certify.ts). */
const CHECK_TIME_SEC = 3600;

/** Checks the proof a check task names (the module comment). */
export async function checkProofTask(ctx: WorkerContext, job: CubeJob): Promise<CubeResult> {
  const { task, active } = job;
  const sha = task.check?.proofSha256 ?? "";
  if (!isSha256Hex(sha)) return { kind: "error", fault: "task", reason: "a check task whose proof name is not a SHA-256", stats: { engine: "check" } };
  const formula = await cubeFormula(ctx, job, "check");
  if ("kind" in formula) return formula;
  try {
    const base = await openBaseCnf(formula.path);
    const options = { dratTrim: ctx.config.dratTrimPath, lratCheck: ctx.config.lratCheckPath, timeLimitSec: CHECK_TIME_SEC, signal: active.signal };
    const r = await checkStoredProof({ base, units: task.units, proofs: ctx.layout.proofs, sha256: sha }, options);
    const engine = r.format === "lrat" ? "lrat-check" : "drat-trim";
    if (active.stopReason !== null) return { kind: "stopped", stats: { engine } };
    ctx.log.debug("proof checked", { run: job.run.id, cube: task.cubeId, producer: task.check?.producer, format: r.format, verified: r.verified, ms: r.wallMs });
    return { kind: "checked", proofSha256: sha, verified: r.verified, detail: r.detail, format: r.format, stats: { engine, wallMs: r.wallMs, cpuMs: r.cpuMs } };
  } catch (err) {
    if (active.stopReason !== null) return { kind: "stopped", stats: { engine: "check" } };
    return { kind: "error", fault: faultOf(err, "transient"), reason: `proof not checked: ${(err as Error).message}`, stats: { engine: "check" } };
  }
}
