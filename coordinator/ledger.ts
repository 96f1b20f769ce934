/**
 * The run ledger: an append-only stream of LedgerEntry messages per run (subject <p>.ledger.<run>). It is the
 * source of truth for resuming: replaying it rebuilds the cube table. Entries are written after the fact they
 * record is durable elsewhere (cubes after their tasks were acknowledged by JetStream), so a crash between the
 * two repeats work, never loses it.
 */

import { randomUUID } from "node:crypto";
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { LedgerEntry } from "../proto/gen/cubist/v1/ledger.js";
import type { Names } from "../proto/contract.js";

/** How long an append keeps retrying (a stream leader election after a NATS node died takes seconds). */
export const LEDGER_RETRY_MS = 120_000;

export class Ledger {
  constructor(
    private readonly js: JetStreamClient,
    private readonly names: Names,
    private readonly onRetry: (attempt: number, err: Error) => void = () => undefined,
  ) {}

  /**
   * Appends entries in order; resolves once JetStream has stored all of them. The caller may already have applied
   * the entries to its in-memory state, so a failed write is retried in place (for up to LEDGER_RETRY_MS) rather than
   * left to a redelivery that the state would ignore. Each entry has a message id, so an append that was stored but
   * not acknowledged is not doubled by the retry (the stream's duplicate window is 2 minutes).
   */
  async append(run: string, entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const subject = this.names.ledgerSubject(run);
    const base = `${run}:${randomUUID()}`;
    const payloads = entries.map((e) => LedgerEntry.encode(e).finish());
    const deadline = Date.now() + LEDGER_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        // One at a time, so that a retry after a partial failure cannot store them out of order.
        for (let i = 0; i < payloads.length; i++) await this.js.publish(subject, payloads[i], { msgID: `${base}:${i}` });
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        this.onRetry(attempt, err as Error);
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  /** Every entry of a run, in order. Undecodable entries are reported through `onBad` and skipped. */
  async replay(run: string, onBad: (seq: number, err: Error) => void = () => undefined): Promise<LedgerEntry[]> {
    const subject = this.names.ledgerSubject(run);
    const jsm = await this.js.jetstreamManager();
    let last = 0;
    try {
      const info = await jsm.streams.info(this.names.ledgerStream, { subjects_filter: subject });
      const subjects = info.state.subjects as Record<string, number> | undefined;
      if (!subjects || !subjects[subject]) return [];
      last = info.state.last_seq;
    } catch {
      return [];
    }
    const consumer = await this.js.consumers.get(this.names.ledgerStream, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.All,
    });
    const out: LedgerEntry[] = [];
    const messages = await consumer.consume({ max_messages: 4096 });
    try {
      for await (const m of messages) {
        try {
          out.push(LedgerEntry.decode(m.data));
        } catch (err) {
          onBad(m.seq, err as Error);
        }
        if (m.info.pending === 0 || m.seq >= last) break;
      }
    } finally {
      await messages.close();
    }
    return out;
  }

  /** Run ids that have a ledger (for resuming every run after a restart). */
  async runs(): Promise<string[]> {
    const jsm = await this.js.jetstreamManager();
    const prefix = `${this.names.prefix}.ledger.`;
    try {
      const info = await jsm.streams.info(this.names.ledgerStream, { subjects_filter: `${prefix}*` });
      const subjects = (info.state.subjects ?? {}) as Record<string, number>;
      return Object.keys(subjects).map((s) => s.slice(prefix.length));
    } catch {
      return [];
    }
  }
}
