/**
 * The run ledger: an append-only stream of LedgerEntry messages per run (subject <p>.ledger.<run>). It is the
 * source of truth for resuming: replaying it rebuilds the cube table. Entries are written after the fact they
 * record is durable elsewhere (cubes after their tasks were acknowledged by JetStream), so a crash between the
 * two repeats work, never loses it.
 *
 * Fencing: every append expects the run's ledger to end where this coordinator last saw it end (JetStream's
 * expected last subject sequence), and a run's appends go one after another. A coordinator that takes a run over
 * replays its ledger and appends a takeover entry at once (coordinator/shell/coordinator.ts), so an old leader that wakes
 * up after losing its lease can no longer append to that run: its write is refused (LedgerFencedError) and it steps
 * down. A retried append is not refused: JetStream de-duplicates by message id before it checks the sequence.
 */

import { randomUUID } from "node:crypto";
import { DeliverPolicy, type JetStreamClient } from "@nats-io/jetstream";
import { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { Names } from "../../proto/contract.js";
import { subjectsUnder } from "../../cluster/layout.js";
import { retryUntil } from "./retry.js";

/** How long an append keeps retrying (a stream leader election after a NATS node died takes seconds). */
export const LEDGER_RETRY_MS = 120_000;

/** Another coordinator appended to the run's ledger since this one last did: this one no longer leads. */
/** Bytes of ledger entries in flight to the replay at a time. */
const REPLAY_BYTES = 8 << 20;

export class LedgerFencedError extends Error {
  constructor(readonly run: string, detail: string) {
    super(`run ${run}: another coordinator wrote to the ledger (${detail}); this coordinator no longer leads`);
    this.name = "LedgerFencedError";
  }
}

/** JetStream refused a publish that expected another last sequence (error 10071). */
function isWrongLastSequence(err: unknown): boolean {
  const e = err as { code?: number; message?: string };
  return e?.code === 10071 || /wrong last sequence/i.test(e?.message ?? "");
}

export class Ledger {
  /** Per run: the stream sequence of its last entry as this coordinator knows it (0: none). */
  private readonly last = new Map<string, number>();
  /** The leader term this coordinator writes in (stamped on every entry it appends). */
  term = 0;
  /** Per run: the append in progress, which the next one waits for. */
  private readonly tails = new Map<string, Promise<void>>();

  constructor(
    private readonly js: JetStreamClient,
    private readonly names: Names,
    private readonly onRetry: (attempt: number, err: Error) => void = () => undefined,
    private readonly onFenced: (err: LedgerFencedError) => void = () => undefined,
  ) {}

  /** Forgets what this coordinator knew of the runs' ledgers (it stepped down, or the run was deleted). */
  forget(run?: string): void {
    if (run === undefined) this.last.clear();
    else this.last.delete(run);
  }

  /**
   * Appends entries in order, after the run's append in progress; resolves once JetStream has stored all of them. The caller may already have applied
   * the entries to its in-memory state, so a failed write is retried in place (for up to LEDGER_RETRY_MS) rather than
   * left to a redelivery that the state would ignore. Each entry has a message id, so an append that was stored but
   * not acknowledged is not doubled by the retry (the stream's duplicate window is 2 minutes).
   */
  append(run: string, entries: readonly LedgerEntry[]): Promise<void> {
    if (entries.length === 0) return Promise.resolve();
    const before = this.tails.get(run) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.appendNow(run, entries));
    this.tails.set(run, mine);
    void mine.catch(() => undefined).finally(() => { if (this.tails.get(run) === mine) this.tails.delete(run); });
    return mine;
  }

  private async appendNow(run: string, entries: readonly LedgerEntry[]): Promise<void> {
    const subject = this.names.ledgerSubject(run);
    const base = `${run}:${randomUUID()}`;
    const payloads = entries.map((e) => LedgerEntry.encode({ ...e, term: this.term }).finish());
    let done = 0;
    try {
      await retryUntil(LEDGER_RETRY_MS, async () => {
        // One at a time, so that a retry after a partial failure cannot store them out of order.
        for (; done < payloads.length; done++) {
          const ack = await this.js.publish(subject, payloads[done], { msgID: `${base}:${done}`, expect: { lastSubjectSequence: this.last.get(run) ?? 0 } });
          this.last.set(run, Math.max(this.last.get(run) ?? 0, ack.seq));
        }
      }, (err) => !isWrongLastSequence(err), this.onRetry);
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
      const fenced = new LedgerFencedError(run, (err as Error).message);
      this.onFenced(fenced);
      throw fenced;
    }
  }

  /**
   * The run's entries in order, read as they are applied (a million-cube ledger is hundreds of MB: it is never held
   * whole). Records the last sequence, so that the next append is fenced on it; undecodable entries go to `onBad`.
   */
  async *entries(run: string, onBad: (seq: number, err: Error) => void = () => undefined): AsyncGenerator<LedgerEntry> {
    const subject = this.names.ledgerSubject(run);
    const jsm = await this.js.jetstreamManager();
    let last = 0;
    try {
      const info = await jsm.streams.info(this.names.ledgerStream, { subjects_filter: subject });
      const subjects = info.state.subjects as Record<string, number> | undefined;
      if (!subjects || !subjects[subject]) {
        this.last.set(run, 0);
        return;
      }
      last = info.state.last_seq;
    } catch {
      return;
    }
    const consumer = await this.js.consumers.get(this.names.ledgerStream, {
      filter_subjects: subject,
      deliver_policy: DeliverPolicy.All,
    });
    // Bounded in bytes, not messages: split batches are large (about 150 kB for 1,000 Eternity II cubes), and 4,096 of
    // them at once overran the client's pending limit (a slow consumer) on a million-cube run, and the replay waited.
    const messages = await consumer.consume({ max_bytes: REPLAY_BYTES });
    try {
      for await (const m of messages) {
        this.last.set(run, m.seq);
        let entry: LedgerEntry | null = null;
        try {
          entry = LedgerEntry.decode(m.data);
        } catch (err) {
          onBad(m.seq, err as Error);
        }
        if (entry) yield entry;
        if (m.info.pending === 0 || m.seq >= last) break;
      }
    } finally {
      await messages.close();
    }
  }

  /** Every entry of a run, in order, in one array (small ledgers: tests, tools). */
  async replay(run: string, onBad?: (seq: number, err: Error) => void): Promise<LedgerEntry[]> {
    const out: LedgerEntry[] = [];
    for await (const e of this.entries(run, onBad)) out.push(e);
    return out;
  }

  /** Run ids that have a ledger (for resuming every run after a restart). */
  async runs(): Promise<string[]> {
    const jsm = await this.js.jetstreamManager();
    try {
      return await subjectsUnder(jsm, this.names.ledgerStream, `${this.names.prefix}.ledger.`, "*");
    } catch {
      return [];
    }
  }
}
