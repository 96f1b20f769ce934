/**
 * How `run show`, `run watch` and `solve --workers` describe what a certified run has checked
 * (RunStatus.certification; coordinator/shell/certify.ts).
 */
import type { Certification } from "../proto/gen/cubist/v1/run.js";

/** "16/16 cube proofs checked, coverage checked", or null for a run without --certify. */
export function formatCertification(c: Certification | undefined, unsatCubes: number): string | null {
  if (!c?.enabled) return null;
  const parts = [`${c.cubeProofsChecked}/${unsatCubes} cube proofs checked`];
  if (c.cubeProofsPending > 0) parts.push(`${c.cubeProofsPending} being checked`);
  if (c.cubeProofsRejected > 0) parts.push(`${c.cubeProofsRejected} UNSAT answer(s) rejected (no proof, or not verified)`);
  const coverage: Record<string, string> = { "": "coverage not yet checked", checking: "coverage being proved", checked: "coverage checked", failed: "coverage FAILED" };
  parts.push(coverage[c.coverage] ?? `coverage ${c.coverage}`);
  return parts.join(", ");
}

/** The `--json` shape. */
export function certificationJSON(c: Certification | undefined): Record<string, unknown> | null {
  if (!c?.enabled) return null;
  return {
    cubeProofsChecked: c.cubeProofsChecked,
    cubeProofsRejected: c.cubeProofsRejected,
    cubeProofsPending: c.cubeProofsPending,
    coverage: c.coverage,
  };
}

/** Who checked the cube proofs and their checkers' CPU ("12 by workers (0.8 s CPU), 2 by the coordinator (0.1 s CPU)"), or null. */
export function formatProofChecks(c: Certification | undefined): string | null {
  if (!c?.enabled || c.checksByWorkers + c.checksByCoordinator === 0) return null;
  const s = (x: number): string => x.toFixed(x < 10 ? 2 : 1);
  return `${c.checksByWorkers} by workers (${s(c.workerCheckCpuSeconds)} s CPU), ${c.checksByCoordinator} by the coordinator (${s(c.coordinatorCheckCpuSeconds)} s CPU)`;
}

/** The `--json` shape of who checked the proofs (null for a run without --certify). */
export function proofChecksJSON(c: Certification | undefined): Record<string, unknown> | null {
  if (!c?.enabled) return null;
  return {
    byWorkers: c.checksByWorkers,
    byCoordinator: c.checksByCoordinator,
    workerCpuSeconds: c.workerCheckCpuSeconds,
    coordinatorCpuSeconds: c.coordinatorCheckCpuSeconds,
    workerWallSeconds: c.workerCheckWallSeconds,
    coordinatorWallSeconds: c.coordinatorCheckWallSeconds,
  };
}
