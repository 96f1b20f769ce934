/**
 * Certification, a part of the run model (coordinator/model/run-model.ts; a run with --certify, docs/operations.md
 * "Certificates"): the checked proof of every refuted cube, the UNSAT answers held while their proofs are checked and
 * what each checker found (proof-checks.ts decides), the UNSAT answers whose proof was missing or not verified, and
 * the coverage proof. Changed only by `apply` ("closed", "proofCheck", "rejectedProof" and "coverage" entries), but
 * for one live mark: the coverage check in progress, which a coordinator that takes the run over starts again. The
 * shell runs the coordinator's checks (coordinator/shell/certify.ts); the decisions that record what it found are here.
 */

import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, ProofCheck } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState, type Certification, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import { isOpen } from "./cube-entry.js";
import type { CubeTableView } from "./cube-table.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import { closedOf } from "./run-answers.js";
import { close, failCube, flushClosed, requeue, type CubesRun } from "./run-cubes.js";
import type { RunEnd } from "./run-life.js";
import { checkComplete, type OutcomeRun } from "./run-outcome.js";
import type { RunShape } from "./shape.js";

type CertificationEntry = Extract<LedgerBody, { $case: "rejectedProof" | "coverage" | "proofCheck" }>;

/** Who checked proofs (ProofCheck.checker): the coordinator, or a worker (any other name). */
export const COORDINATOR_CHECKER = "coordinator";

/** A producer's UNSAT held while its proof is checked (a "sent" ProofCheck), and what checkers said of it since. */
export interface PendingProof {
  readonly sent: ProofCheck;
  /** The checkers' findings on this proof so far, in ledger order. */
  readonly reports: ProofCheck[];
}

/** Proof checks done, and the checkers' time, by who checked: workers or the coordinator. */
export interface CheckerTotals {
  checks: number;
  cpuMs: number;
  wallMs: number;
}

/** The coverage proof's state: "" until it is started, "checking" while the shell proves it, then checked or failed. */
export type CoverageState = "" | "checking" | "checked" | "failed";

export class RunCertification {
  private rejectedCount = 0;
  private recorded: "" | "checked" | "failed" = "";
  private checking = false;
  private proofName = "";
  private why = "";
  private readonly cubeProofs = new Map<string, string>();
  private readonly pendingProofs = new Map<string, PendingProof>();
  private readonly checksOf = new Map<string, ProofCheck[]>();
  /** Proof checks and their checkers' time, workers' apart from the coordinator's. */
  readonly checkers: Record<"worker" | "coordinator", CheckerTotals> = { worker: { checks: 0, cpuMs: 0, wallMs: 0 }, coordinator: { checks: 0, cpuMs: 0, wallMs: 0 } };

  /** Cube id -> its producer's UNSAT held while its proof is checked. */
  get pending(): ReadonlyMap<string, PendingProof> {
    return this.pendingProofs;
  }

  /** Cube id -> every finding of a checker on its proofs ("verified" or "rejected", who and how long), ledger order. */
  get checks(): ReadonlyMap<string, readonly ProofCheck[]> {
    return this.checksOf;
  }

  /** UNSAT answers whose proof was missing or not verified. */
  get rejectedProofs(): number {
    return this.rejectedCount;
  }

  get coverage(): CoverageState {
    return this.recorded !== "" ? this.recorded : this.checking ? "checking" : "";
  }

  /** The checked coverage proof (object name), "" before. */
  get coverageProof(): string {
    return this.proofName;
  }

  /** Cube id -> its checked DRAT proof (object name). */
  get proofs(): ReadonlyMap<string, string> {
    return this.cubeProofs;
  }

  /** One cube of a "closed" entry: an UNSAT with a proof (checked before it was recorded) keeps the proof's name. */
  applyClosed(c: CubeClosed): void {
    if (c.proofSha256 !== "" && c.kind === VerdictKind.VERDICT_KIND_UNSAT) this.cubeProofs.set(c.id, c.proofSha256);
    // Closed either way (certified, or its proof rejected): the held UNSAT is no longer waiting.
    this.pendingProofs.delete(c.id);
  }

  private applyCheck(p: ProofCheck): void {
    if (p.outcome === "sent") {
      this.pendingProofs.set(p.cubeId, { sent: p, reports: [] });
      return;
    }
    const pending = this.pendingProofs.get(p.cubeId);
    if (pending && pending.sent.proofSha256 === p.proofSha256) pending.reports.push(p);
    const list = this.checksOf.get(p.cubeId) ?? [];
    list.push(p);
    this.checksOf.set(p.cubeId, list);
    const totals = this.checkers[p.checker === COORDINATOR_CHECKER ? "coordinator" : "worker"];
    totals.checks++;
    totals.cpuMs += p.cpuMs;
    totals.wallMs += p.wallMs;
  }

  apply(b: CertificationEntry): void {
    switch (b.$case) {
      case "rejectedProof":
        this.rejectedCount += b.value;
        break;
      case "coverage":
        this.recorded = b.value.ok ? "checked" : "failed";
        this.proofName = b.value.proofSha256;
        this.why = b.value.message;
        break;
      case "proofCheck":
        this.applyCheck(b.value);
        break;
    }
  }

  /** The shell starts proving the coverage (live only: a coordinator that takes the run over proves it again). */
  startCoverageCheck(): void {
    this.checking = true;
  }

  /**
   * How a certified run ends once every cube is refuted (`unsat` of them): after its coverage proof is checked; first
   * "check-coverage" (the proof is to be started), null while it is being checked.
   */
  outcome(unsat: number): RunEnd | "check-coverage" | null {
    const coverage = this.coverage;
    if (coverage === "") return "check-coverage";
    if (coverage === "failed") return { state: RunState.RUN_STATE_FAILED, message: `every cube refuted with a checked proof, but ${this.why}` };
    if (coverage === "checked") {
      return { state: RunState.RUN_STATE_UNSAT, message: `certified: ${unsat}/${unsat} cube proofs checked, coverage checked; closed weights sum to 1` };
    }
    return null;
  }
}

/** What `run show` and the API report about a run's certificate (undefined for a run without --certify). */
export function certificationOf(spec: Pick<RunSpec, "certify">, c: RunCertification, checked: number, pending: number): Certification | undefined {
  if (!spec.certify) return undefined;
  return {
    enabled: true,
    cubeProofsChecked: checked,
    cubeProofsRejected: c.rejectedProofs,
    cubeProofsPending: pending,
    coverage: c.coverage,
    coverageProofSha256: c.coverageProof,
    checksByWorkers: c.checkers.worker.checks,
    checksByCoordinator: c.checkers.coordinator.checks,
    workerCheckCpuSeconds: c.checkers.worker.cpuMs / 1000,
    coordinatorCheckCpuSeconds: c.checkers.coordinator.cpuMs / 1000,
    workerCheckWallSeconds: c.checkers.worker.wallMs / 1000,
    coordinatorCheckWallSeconds: c.checkers.coordinator.wallMs / 1000,
  };
}

/** The unit literals of a cube, from the run's own table (never from a verdict). */
export function cubeUnits(table: CubeTableView, shape: Pick<RunShape, "placementLiterals">, cube: string): number[] | null {
  const e = table.get(cube);
  if (!e) return null;
  const units: number[] = [];
  for (const p of e.placements) units.push(...shape.placementLiterals(p));
  return units;
}

/** Every cube closed UNSAT, as unit literals: the cubes the coverage proof negates. */
export function refutedCubes(table: CubeTableView, shape: Pick<RunShape, "placementLiterals">): Array<{ id: string; units: number[] }> {
  const out: Array<{ id: string; units: number[] }> = [];
  for (const e of table.entries()) if (e.state === "unsat") out.push({ id: e.id, units: cubeUnits(table, shape, e.id)! });
  return out;
}

/** What the certification decisions read: the run's cubes and outcome, and its certification. */
export interface CertifiedRun extends CubesRun, OutcomeRun {
  readonly certification: RunCertification;
}

/** An UNSAT answer whose proof is missing or did not check: an error of the cube, which is sent out again or failed. */
export function* rejectProof(run: CertifiedRun, v: Verdict, reason: string): RunSteps {
  if (run.life.ended) return;
  const entry = run.cubes.table.get(v.cubeId);
  if (!entry || !isOpen(entry)) return;
  run.log.warn("UNSAT answer rejected: no checked proof", { cube: v.cubeId, worker: v.workerId, reason });
  yield* run.recorder.applyAndRecord({ $case: "rejectedProof", value: 1 });
  const closed: CubeClosed[] = [];
  if (!close(run, closedOf(v, VerdictKind.VERDICT_KIND_ERROR, `rejected proof: ${reason}`), closed)) return;
  yield* flushClosed(run, closed);
  if (entry.errors >= run.opts.maxDeliver) yield* failCube(run, entry, `no checked proof after ${entry.errors} answers: ${reason}`);
  else if (entry.state === "queued") yield* requeue(run, entry, entry.unknowns + entry.errors);
  yield* checkComplete(run);
}

/** The coverage proof was checked (or not): the run ends UNSAT or FAILED. */
export function* recordCoverage(run: CertifiedRun, r: { ok: boolean; proofSha256: string; message: string }): RunSteps {
  if (run.life.ended) return;
  yield* run.recorder.record({ $case: "coverage", value: r });
  yield* checkComplete(run);
}
