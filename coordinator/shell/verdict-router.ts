/**
 * Which verdicts a run takes (coordinator/shell/coordinator.ts reads them through VerdictIntake): a message that does
 * not decode as a verdict is terminated; one for a run the coordinator does not hold, or that ended, is acked and
 * dropped; one whose lease or sender a run does not recognise (coordinator/model/leases.ts) is dropped and counted,
 * or held unacked while its task is still in flight (coordinator/model/verdict-hold.ts). The rest go to their runs, a
 * batch per run (coordinator/shell/run.ts handleVerdicts), and are acked once each run recorded its batch: after a failed
 * record they are handed back, and JetStream delivers them again after a second or more (recording is idempotent).
 */

import type { EventEmitter } from "node:events";
import type { JsMsg } from "@nats-io/jetstream";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import type { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { NotLeaderError } from "../errors.js";
import { awaitsRecord, checkVerdict } from "../model/leases.js";
import type { HeldVerdicts } from "../model/verdict-hold.js";
import type { Rejections } from "./heartbeats.js";
import { LedgerFencedError } from "./ledger.js";
import type { RunController } from "./run.js";
import { decodeVerdict } from "./verdict-intake.js";

/** How soon verdicts whose recording failed are delivered again: 1 s after the first failure, doubling up to the ack wait. */
function redeliverMs(m: JsMsg): number {
  return Math.min(60_000, 1000 * 2 ** Math.min(6, Math.max(0, m.info.deliveryCount - 1)));
}

/** What the coordinator counts for its metrics. */
export interface CoordinatorCounters {
  /** Messages read from the verdict stream (a held message is counted once). */
  verdicts: number;
  /** Messages terminated as malformed. */
  badVerdicts: number;
  /** Well-formed verdicts for runs the coordinator does not hold. */
  foreignVerdicts: number;
  /** Verdicts that arrived before their task was recorded: held, then taken. */
  heldVerdicts: number;
  /** Times this coordinator took the lead. */
  takeovers: number;
}

/** What routing verdicts reads and changes of the coordinator. */
export interface RouterContext {
  readonly names: Names;
  readonly log: Logger;
  readonly counters: CoordinatorCounters;
  readonly rejections: Rejections;
  /** Every accepted verdict, as it arrives. */
  readonly verdictTap: EventEmitter<{ verdict: [Verdict] }>;
  /** Verdicts whose tasks are still in flight, unacked until their run records them. */
  readonly held: HeldVerdicts<JsMsg>;
  /** A run in memory. */
  run(id: string): RunController | undefined;
  /** Resolves while the coordinator leads; rejects once it does not (coordinator/shell/coordinator.ts whenLeading). */
  whenLeading(): Promise<void>;
}

export class VerdictRouter {
  /** Messages handed back from `held`: processed again, not counted again. */
  private readonly rechecked = new WeakSet<JsMsg>();

  constructor(private readonly x: RouterContext) {}

  /** One batch of verdict messages (VerdictIntake hands them over): recorded by their runs, then acked. */
  async processVerdicts(msgs: JsMsg[]): Promise<void> {
    if (!(await this.x.whenLeading().then(() => true, () => false))) {
      // No longer leading: not a verdict is taken or acked; they go back to JetStream for the next leader.
      for (const m of msgs) m.nak();
      return;
    }
    const byRun = new Map<string, { verdicts: Verdict[] }>();
    const taken: JsMsg[] = [];
    for (const m of msgs) {
      if (!this.rechecked.has(m)) this.x.counters.verdicts++;
      const v = decodeVerdict(m.data, m.subject, this.x.names, this.x.log);
      if (!v) {
        this.x.counters.badVerdicts++;
        // A plain term: nats-server 2.9 does not understand a term with a reason and would redeliver.
        m.term();
        continue;
      }
      const run = this.x.run(v.runId);
      if (!run || isTerminal(run.state)) {
        if (!run) this.x.counters.foreignVerdicts++;
        m.ack();
        continue;
      }
      // Leases and identities (coordinator/model/leases.ts): acked, so a dropped verdict is never redelivered.
      const rejection = checkVerdict(this.x.names, run.table, v, m.subject);
      if (rejection !== null && awaitsRecord(rejection, v, run.model)) {
        this.hold(run.id, m);
        continue;
      }
      if (rejection !== null) {
        this.x.rejections.add(rejection, { subject: m.subject.slice(0, 200), run: v.runId, cube: v.cubeId, worker: v.workerId.slice(0, 80) });
        m.ack();
        continue;
      }
      this.x.verdictTap.emit("verdict", v);
      let g = byRun.get(v.runId);
      if (!g) byRun.set(v.runId, (g = { verdicts: [] }));
      g.verdicts.push(v);
      taken.push(m);
    }
    for (const [id, g] of byRun) {
      try {
        await this.x.run(id)!.handleVerdicts(g.verdicts);
      } catch (err) {
        // Handed back: JetStream delivers them again soon (to the next leader if this one stepped down), and
        // recording is idempotent: what the stopped decision applied was recorded by its run (coordinator/shell/run.ts).
        const fenced = err instanceof LedgerFencedError || err instanceof NotLeaderError;
        if (!fenced) this.x.log.error("recording verdicts failed; they will be redelivered", { run: id, err: (err as Error).message });
        for (const m of taken) m.nak(redeliverMs(m));
        return;
      }
    }
    for (const m of taken) m.ack();
  }

  /** Holds a verdict whose task is in flight; handed back to JetStream for later when the run holds too many. */
  private hold(run: string, m: JsMsg): void {
    if (!this.rechecked.has(m)) this.x.counters.heldVerdicts++;
    this.rechecked.add(m);
    if (!this.x.held.hold(run, m)) m.nak(1000);
  }
}
