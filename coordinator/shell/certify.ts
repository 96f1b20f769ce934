/**
 * Certified UNSAT, the coordinator's side (docs/operations.md "Certificates"). The coordinator never trusts a
 * worker: a proof is checked by another worker (coordinator/model/proof-checks.ts) or here, when the model asks
 * (no other worker, a sample, a dispute): it downloads the proof the worker uploaded (checking its
 * hash), builds the cube's formula itself (the run's base formula + the cube's units, from its own ledger, never
 * from the verdict) and runs the proof's checker on it: lrat-check for the prover's LRAT, drat-trim for a solver's
 * DRAT (certify/lrat-check.ts). Once every cube is closed, it proves the coverage (base formula +
 * every refuted cube negated, one clause each) with Kissat writing a proof, checks that proof with drat-trim and
 * stores it. Branches the splitter refuted are not assumed: the coverage proof refutes them too.
 *
 * Checks run in the background, at most `concurrency` at a time, in a temporary directory removed by `close()`.
 */

import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ObjectStore } from "@nats-io/obj";
import type { ProofStream } from "../../cluster/proof-stream.js";
import type { Logger } from "../../cluster/log.js";
import { checkProof } from "../../certify/drat-trim.js";
import { checkStoredProof } from "../../certify/check-stored.js";
import { openBaseCnf, writeCoverageCnf, type BaseCnf } from "../../certify/cnf.js";
import { uploadProof } from "../../certify/proof-store.js";
import { isSha256Hex } from "../../core/sha256.js";
import { FormulaCache } from "../../host/formula-cache.js";
import { objectStoreSource } from "../../cluster/formula-source.js";
import { runSolver } from "../../host/solver/index.js";

export interface CertifySettings {
  /** drat-trim's path or name. @default "drat-trim" */
  dratTrim?: string;
  /** lrat-check's path or name. @default "lrat-check" */
  lratCheck?: string;
  /** Kissat's path or name, for the coverage proof. @default "kissat" */
  kissat?: string;
  /** Limit of one drat-trim check in seconds. @default 3600 */
  checkTimeSec?: number;
  /** Proof checks at a time. @default 2 */
  concurrency?: number;
}

/** What the coordinator's check of a cube's proof found, and the checker's time (CPU: certify/drat-trim.ts checkerCpu). */
export interface CheckResult {
  verified: boolean;
  /** Why not verified; "" when verified. */
  detail: string;
  cpuMs: number;
  wallMs: number;
  /** The proof could not be checked at all (not downloaded, no checker to run): no finding about it. */
  unchecked?: boolean;
}
export interface CoverageResult {
  ok: boolean;
  proofSha256: string;
  message: string;
}

export class RunCertifier {
  private dir: Promise<string> | null = null;
  private baseCnf: Promise<BaseCnf> | null = null;
  private readonly checking = new Set<string>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly formulaSha256: string,
    private readonly stores: { formulas: ObjectStore; proofs: ProofStream },
    private readonly log: Logger,
    private readonly settings: CertifySettings = {},
  ) {}

  /** Proofs being checked now. */
  get pending(): number {
    return this.checking.size;
  }

  /** Whether fewer than `limit` proofs are being checked (or waiting for a slot) now. */
  hasFreeSlot(limit: number): boolean {
    return this.checking.size < limit;
  }

  /** Whether a proof of this cube is being checked (a duplicate verdict is not checked twice at once). */
  isChecking(cube: string): boolean {
    return this.checking.has(cube);
  }

  private workDir(): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), "cubist-certify-"));
    return this.dir;
  }

  /** The run's base formula, downloaded once and checked against its SHA-256. */
  private base(): Promise<BaseCnf> {
    this.baseCnf ??= (async () => {
      const cache = new FormulaCache(join(await this.workDir(), "formula"), objectStoreSource(this.stores.formulas));
      const f = await cache.get(this.formulaSha256);
      return openBaseCnf(f.path);
    })();
    this.baseCnf.catch(() => {
      this.baseCnf = null;
    });
    return this.baseCnf;
  }

  private async slot<T>(work: () => Promise<T>): Promise<T> {
    const limit = Math.max(1, this.settings.concurrency ?? 2);
    while (this.running >= limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Checks the proof a worker sent for cube `cube`, whose units come from the coordinator's own ledger. */
  async checkCube(cube: string, units: readonly number[], proofSha256: string): Promise<CheckResult> {
    const refused = (detail: string): CheckResult => ({ verified: false, detail, cpuMs: 0, wallMs: 0 });
    if (proofSha256 === "") return refused("UNSAT without a proof");
    if (!isSha256Hex(proofSha256)) return refused("the proof name is not a SHA-256");
    this.checking.add(cube);
    try {
      return await this.slot(async () => {
        const { dratTrim, lratCheck } = this.settings;
        const options = { dratTrim, lratCheck, timeLimitSec: this.settings.checkTimeSec ?? 3600 };
        const r = await checkStoredProof({ base: await this.base(), units, proofs: this.stores.proofs, sha256: proofSha256 }, options, await this.workDir());
        this.log.debug("cube proof checked", { cube, format: r.format, verified: r.verified, ms: r.wallMs });
        return { verified: r.verified, detail: r.detail, cpuMs: r.cpuMs, wallMs: r.wallMs, ...(r.detail.startsWith("cannot run ") ? { unchecked: true } : {}) };
      });
    } catch (err) {
      return { ...refused(`proof not checked: ${(err as Error).message}`), unchecked: true };
    } finally {
      this.checking.delete(cube);
    }
  }

  /** Proves and checks that the base formula plus every refuted cube, negated, is unsatisfiable; stores the proof. */
  async proveCoverage(cubes: readonly (readonly number[])[]): Promise<CoverageResult> {
    try {
      return await this.slot(async () => {
        const dir = join(await this.workDir(), "coverage");
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir);
        const cnf = join(dir, "coverage.cnf");
        const proof = join(dir, "coverage.drat");
        const base = await this.base();
        await writeCoverageCnf(base, cubes, cnf);
        const t0 = performance.now();
        const solved = await runSolver(cnf, base.numVars, { solver: "kissat", binary: this.settings.kissat, proofPath: proof });
        if (solved.kind === "sat") return { ok: false, proofSha256: "", message: "the refuted cubes do not cover the search space (the coverage formula is satisfiable)" };
        if (solved.kind !== "unsat") return { ok: false, proofSha256: "", message: `coverage not proved: Kissat ${solved.reason}` };
        const checked = await checkProof(cnf, proof, { binary: this.settings.dratTrim, timeLimitSec: this.settings.checkTimeSec ?? 3600 });
        if (!checked.verified) return { ok: false, proofSha256: "", message: `coverage proof not verified: ${checked.detail}` };
        const sha = await uploadProof(this.stores.proofs, proof, "cubist DRAT proof: coverage");
        this.log.info("coverage proved and checked", { cubes: cubes.length, checkMs: checked.wallMs, totalMs: Math.round(performance.now() - t0) });
        return { ok: true, proofSha256: sha, message: "" };
      });
    } catch (err) {
      return { ok: false, proofSha256: "", message: `coverage not checked: ${(err as Error).message}` };
    }
  }

  /** The base formula on disk (for a certificate bundle). */
  baseFormula(): Promise<BaseCnf> {
    return this.base();
  }

  /** Removes the working directory. */
  async close(): Promise<void> {
    const dir = this.dir;
    this.dir = null;
    this.baseCnf = null;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
