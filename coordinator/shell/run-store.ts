/**
 * The runs a coordinator holds in memory, and where JetStream keeps them: each run's ledger (replayed to rebuild it,
 * coordinator/shell/ledger.ts), its record in the runs bucket, its tasks and consumers, and its stored objects. The
 * coordinator (coordinator/shell/coordinator.ts) decides who may do what; this file does it.
 */

import { deleteRunConsumer, purgeRunTasks, subjectsUnder } from "../../cluster/layout.js";
import { RUN_ID_RE } from "../../proto/contract.js";
import { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import { RunRecord } from "../../proto/gen/cubist/v1/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { NotLeaderError, RunExistsError } from "../errors.js";
import type { RunRequest } from "../run-spec.js";
import { buildAnyRunSpec } from "../formula-run-spec.js";
import { releaseDeletedRun, releaseFormula, releaseProofs } from "./formula-upload.js";
import { LedgerFencedError } from "./ledger.js";
import { RunController } from "./run.js";
import type { RunDeps } from "./run-deps.js";
import { distrustedIn, type Orphans } from "./worker-table.js";

/** What the store needs: where runs live, and the coordinator's part in every run's effects (RunDeps, coordinator/shell/run-deps.ts). */
export interface RunStoreOptions extends Pick<RunDeps, "layout" | "jsm" | "ledger" | "names" | "settings" | "log" | "publishCancel" | "liveSlots" | "checkers" | "distrustedElsewhere" | "running"> {
  /** Before every effect of a run: resolves while this coordinator leads (coordinator/shell/coordinator.ts whenLeading). */
  readonly fence: () => Promise<void>;
  /** A run recorded tasks that were in flight: the verdicts held for them are looked at again. */
  readonly settled: (run: string) => void;
}

export class RunStore {
  private readonly byId = new Map<string, RunController>();

  constructor(private readonly opts: RunStoreOptions) {}

  get size(): number {
    return this.byId.size;
  }

  get(id: string): RunController | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<RunController> {
    return this.byId.values();
  }

  /** Forgets every run in memory (the coordinator stepped down); returns them. */
  clear(): RunController[] {
    const runs = [...this.byId.values()];
    this.byId.clear();
    return runs;
  }

  /** What every run's controller needs (coordinator/shell/run.ts). */
  private deps(): RunDeps {
    const { layout, log } = this.opts;
    return {
      layout, jsm: this.opts.jsm, ledger: this.opts.ledger, names: this.opts.names, settings: this.opts.settings, log,
      fence: this.opts.fence, publishCancel: this.opts.publishCancel, settled: this.opts.settled, liveSlots: this.opts.liveSlots, checkers: this.opts.checkers, running: this.opts.running,
      distrustedElsewhere: this.opts.distrustedElsewhere,
      ownCheckFree: (runId) => this.byId.get(runId)?.certifier?.hasFreeSlot(this.opts.settings.ownProofChecks) ?? false,
      releaseFormula: (sha, runId) => releaseFormula(layout.formulas, sha, runId, this.byId.values(), log),
      releaseProofs: (proofs, runId) =>
        releaseProofs(layout.proofs, proofs, runId, [...this.byId.values()].map((r) => ({ id: r.id, state: r.state, proofs: r.model.certification.proofs })), log),
    };
  }

  /**
   * Replays the ledger of every run whose record is not terminal, and notes the takeover in each (the entry that
   * fences the coordinator before this one out of the run's ledger).
   */
  async resumeOpen(takeover: { actor: string; term: number }): Promise<void> {
    const { ledger, log } = this.opts;
    const t0 = performance.now();
    for (const id of await ledger.runs()) {
      if (!RUN_ID_RE.test(id) || (await this.recordedTerminal(id))) continue;
      try {
        const entries = ledger.entries(id, (seq, err) => log.warn("undecodable ledger entry skipped", { run: id, seq, err: err.message }));
        const run = await RunController.resume(this.deps(), entries, takeover);
        if (run) this.adopt(run);
      } catch (err) {
        if (err instanceof LedgerFencedError || err instanceof NotLeaderError) throw err;
        log.error("cannot resume run", { run: id, err: (err as Error).message });
      }
    }
    if (this.byId.size > 0) log.info("runs resumed", { runs: this.byId.size, ms: Math.round(performance.now() - t0) });
  }

  /** Whether the run's record says it ended (an unreadable record: no, replay decides). */
  private async recordedTerminal(id: string): Promise<boolean> {
    const entry = await this.opts.layout.runs.get(id).catch(() => null);
    if (!entry || entry.value.length === 0) return false;
    try {
      const rec = RunRecord.decode(entry.value);
      return rec.status !== undefined && isTerminal(rec.status.state);
    } catch {
      return false;
    }
  }

  /** A new run (coordinator/run-spec.ts checks the request); RunExistsError when its id was ever used. */
  async submit(req: RunRequest): Promise<RunController> {
    const { spec, puzzle } = buildAnyRunSpec(req, Date.now(), this.opts.settings.limits);
    // Ids are never reused, also those of finished runs that are not in memory (their ledger and tasks remain).
    if (this.byId.has(spec.runId) || (await this.record(spec.runId)) !== null || (await this.opts.ledger.runs()).includes(spec.runId)) {
      throw new RunExistsError(spec.runId);
    }
    const run = await RunController.create(this.deps(), spec, puzzle);
    // Workers another run's spot checks disproved are distrusted here from the start (coordinator/model/run-trust.ts).
    const distrusted = distrustedIn(this.byId.values());
    this.adopt(run);
    for (const [worker, why] of distrusted) await run.distrust(worker, why);
    return run;
  }

  /** A run not in memory, rebuilt from its ledger (a finished run after a restart); undefined when it has none. */
  async load(id: string): Promise<RunController | undefined> {
    const run = await RunController.resume(this.deps(), this.opts.ledger.entries(id));
    if (!run) return undefined;
    this.adopt(run);
    return run;
  }

  /** Keeps a run in memory; a worker its spot checks disprove is distrusted in every other open run at once. */
  private adopt(run: RunController): void {
    this.byId.set(run.id, run);
    run.on("distrusted", (worker, why) => {
      for (const other of this.byId.values()) {
        if (other === run || other.model.ended) continue;
        other.distrust(worker, why).catch((err) => this.opts.log.warn("distrusting a worker in another run failed", { run: other.id, worker, err: (err as Error).message }));
      }
    });
  }

  /**
   * JetStream gave up delivering a cube's task (a MAX_DELIVERIES advisory on the cube stream): its run decides what
   * follows (coordinator/model/run-model.ts giveUpCube).
   */
  async onMaxDeliveries(data: Uint8Array): Promise<void> {
    const { jsm, names, log } = this.opts;
    try {
      const adv = JSON.parse(new TextDecoder().decode(data)) as { stream?: string; consumer?: string; stream_seq?: number };
      if (adv.stream !== names.cubesStream || typeof adv.stream_seq !== "number") return;
      const sm = await jsm.streams.getMessage(adv.stream, { seq: adv.stream_seq });
      if (!sm) return;
      const task = CubeTask.decode(sm.data);
      await this.byId.get(task.runId)?.onMaxDeliveries(task.cubeId);
    } catch (err) {
      log.debug("max-deliveries advisory not handled", { err: (err as Error).message });
    }
  }

  /** A worker started again: what its old process held waits for nobody; sent out again now, not after ack_wait. */
  requeueOrphans(orphans: Orphans): void {
    const { log } = this.opts;
    log.info("worker started again; its cubes are sent again", { worker: orphans.workerId, cubes: orphans.cubes.length });
    for (const o of orphans.cubes) {
      void this.byId.get(o.runId)?.requeueOrphan(o.cubeId).catch((err: Error) => log.debug("orphan not sent again", { run: o.runId, cube: o.cubeId, err: err.message }));
    }
  }

  /** The run's record in the KV bucket (every run, also finished ones not in memory). */
  async record(id: string): Promise<RunRecord | null> {
    const live = this.byId.get(id);
    if (live) return live.record();
    const e = await this.opts.layout.runs.get(id).catch(() => null);
    if (!e || e.value.length === 0) return null;
    try {
      return RunRecord.decode(e.value);
    } catch {
      return null;
    }
  }

  /**
   * The keys of the runs bucket, from its stream's subjects: one request, where `kv.keys()` creates a consumer each
   * time (a dashboard polling the runs list made one every two seconds). Deleted runs' markers are among them; their
   * records read as null.
   */
  private async recordedIds(): Promise<string[]> {
    const bucket = this.opts.names.runsBucket;
    return subjectsUnder(this.opts.jsm, `KV_${bucket}`, `$KV.${bucket}.`, ">");
  }

  /** Every run's record: those in memory and those in the runs bucket. */
  async listRecords(): Promise<RunRecord[]> {
    const ids = new Set<string>(this.byId.keys());
    for (const k of await this.recordedIds()) ids.add(k);
    const out: RunRecord[] = [];
    for (const id of ids) {
      const r = await this.record(id);
      if (r?.spec && r.status) out.push(r);
    }
    return out;
  }

  /**
   * Forgets a run that has ended (the caller checks that): out of memory (and so out of the metrics), its record out
   * of the runs bucket, its ledger and any task left in the cube stream purged, its consumer deleted, and its stored
   * objects released unless a kept run shares them (`load` reads a kept run: formula-upload.ts releaseDeletedRun).
   */
  async delete(id: string, load: (id: string) => Promise<RunController | undefined>): Promise<void> {
    const { jsm, names, ledger, layout, log } = this.opts;
    const sha = (await this.record(id))?.spec?.formulaSha256 ?? "";
    const certification = this.byId.get(id)?.model.certification;
    const proofs = certification ? [...certification.proofs.values(), certification.coverageProof].filter((p) => p !== "") : [];
    this.byId.delete(id);
    await deleteRunConsumer(jsm, names, id).catch(() => undefined);
    await purgeRunTasks(jsm, names, id).catch(() => undefined);
    await jsm.streams.purge(names.ledgerStream, { filter: names.ledgerSubject(id) });
    ledger.forget(id);
    await layout.runs.purge(id);
    await releaseDeletedRun(layout, { id, sha, proofs }, await this.listRecords().catch(() => []), load, log);
    log.info("run deleted", { run: id });
  }
}
