/**
 * Carries out one effect of a run's decisions (coordinator/model/run-effects.ts) against JetStream: ledger appends,
 * task publishes, cancels, task deletions and purges, the consumer's deletion at the end, the run record. The run's
 * shell (coordinator/shell/run.ts) owns the run; this file only knows how each effect talks to NATS.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import { deleteRunConsumer, purgeRunTasks, type Layout } from "../../cluster/layout.js";
import type { Logger } from "../../cluster/log.js";
import type { Names } from "../../proto/contract.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { Solution } from "../../proto/gen/cubist/v1/run.js";
import type { RunEffect } from "../model/run-effects.js";
import type { Ledger } from "./ledger.js";
import { publishTasks } from "./task-publisher.js";

/** What an effect needs from its run's shell: its NATS handles and the run-side reactions. */
export interface EffectHost {
  readonly id: string;
  readonly layout: Layout;
  readonly jsm: JetStreamManager;
  readonly ledger: Ledger;
  readonly names: Names;
  readonly log: Logger;
  readonly publishCancel: (run: string, cube: string, reason: string) => void;
  /** Throws unless this coordinator leads: before every effect that writes. */
  readonly fence?: () => Promise<void>;
  /** Ledger entries written: the run samples its rate from the closed ones. */
  appended(entries: readonly LedgerEntry[]): void;
  /** The consumer is gone: the run's end is carried out. */
  ended(): Promise<void>;
  writeRecord(): Promise<void>;
  solution(solution: Solution): void;
  /** Starts the coverage check in the background; its result goes back to the model. */
  checkCoverage(): void;
  /** Checks a held proof of the cube in the background (certified run); its result goes back to the model. */
  checkProof(cube: string): void;
}

/** Effects that write nothing to NATS and so need no fence. */
const UNFENCED = new Set<RunEffect["type"]>(["solution", "breathe"]);

export async function performEffect(host: EffectHost, effect: RunEffect): Promise<void> {
  if (!UNFENCED.has(effect.type)) await host.fence?.();
  switch (effect.type) {
    case "append":
      await host.ledger.append(host.id, effect.entries);
      host.appended(effect.entries);
      return;
    case "publish": {
      const { names } = host;
      const subject = effect.lead ? names.leadSubject(host.id) : effect.front ? names.frontSubject(host.id) : names.cubesSubject(host.id);
      effect.seqs.push(...(await publishTasks(host.layout.js, subject, effect.tasks, undefined, { manager: host.jsm, stream: host.names.cubesStream })));
      return;
    }
    case "cancel":
      host.publishCancel(host.id, effect.cube, effect.reason);
      return;
    case "delete-task":
      // Already consumed or gone is fine.
      await host.jsm.streams.deleteMessage(host.names.cubesStream, effect.seq, false).catch(() => undefined);
      return;
    case "purge-tasks":
      await purgeRunTasks(host.jsm, host.names, host.id)
        .catch((err) => host.log.warn("purging queued cubes failed", { err: (err as Error).message }));
      return;
    case "delete-consumer":
      await deleteRunConsumer(host.jsm, host.names, host.id).catch(() => undefined);
      await host.ended();
      return;
    case "write-record":
      // The record is a view of the ledger: one NATS could not take now (a bucket between leaders) is written by the
      // next status round, and the decision goes on.
      await host.writeRecord().catch((err) => host.log.warn("run record not written; the next status round writes it", { err: (err as Error).message }));
      return;
    case "breathe":
      // Let API calls, heartbeats and verdicts of other runs in before the decision goes on.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return;
    case "solution":
      host.solution(effect.solution);
      return;
    case "check-coverage":
      host.checkCoverage();
      return;
    case "check-proof":
      host.checkProof(effect.cube);
      return;
  }
}
