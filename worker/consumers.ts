/**
 * The settings of each run's pull consumers (main and front, keyed by consumer name) that a worker needs: `ack_wait` (heartbeats go out every half of it)
 * and `max_deliver` (for logs). Read once per run with a consumer-info request, re-read after a pull went
 * unanswered (the server does not answer pulls on a consumer that does not exist). A slot only pulls from runs
 * whose consumer is known, so a run published before its consumer exists is simply waited for.
 *
 * A slot that is about to pull waits (briefly, `ready`) for the consumer of a run ranked above every run it knows:
 * without that, the first pull after a higher-priority run appears goes to a lower one whose consumer is known,
 * and a slot busy with long cubes keeps the new run waiting for a whole cube (issue 13).
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { Logger } from "../cluster/log.js";
import type { Names } from "../proto/contract.js";

export interface ConsumerSettings {
  ackWaitMs: number;
  maxDeliver: number;
}

type Entry =
  | { kind: "known"; settings: ConsumerSettings }
  | { kind: "fetching" }
  | { kind: "failed"; retryAt: number; failures: number };

/** First retry after a failed info request; doubles up to MAX_RETRY_MS. */
const RETRY_MS = 500;
const MAX_RETRY_MS = 5000;

export class ConsumerBook {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly names: Names,
    private readonly log: Logger,
  ) {}

  /** The consumer's settings, or undefined while they are being (re)read. Starts a read when needed. */
  settings(consumer: string): ConsumerSettings | undefined {
    const e = this.entries.get(consumer);
    if (e?.kind === "known") return e.settings;
    if (e?.kind === "fetching") return undefined;
    if (e?.kind === "failed" && Date.now() < e.retryAt) return undefined;
    const p = this.fetch(consumer, e?.kind === "failed" ? e.failures : 0).finally(() => this.pending.delete(consumer));
    this.pending.set(consumer, p);
    return undefined;
  }

  /**
   * The run's consumer settings, waiting up to `timeoutMs` for a read in flight (or one started now). Undefined
   * when the read failed recently (no wait then: the retry backoff applies), timed out, or `signal` aborted.
   */
  async ready(consumer: string, timeoutMs: number, signal?: AbortSignal): Promise<ConsumerSettings | undefined> {
    const now = this.settings(consumer);
    if (now) return now;
    const inFlight = this.pending.get(consumer);
    if (!inFlight || signal?.aborted) return undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      onAbort = resolve;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([inFlight, stop]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
    const e = this.entries.get(consumer);
    return e?.kind === "known" ? e.settings : undefined;
  }

  /** Forget what we know: the consumer may be gone or recreated. */
  invalidate(consumer: string): void {
    if (this.entries.get(consumer)?.kind === "known") this.entries.delete(consumer);
  }

  private async fetch(consumer: string, failures: number): Promise<void> {
    this.entries.set(consumer, { kind: "fetching" });
    try {
      const info = await this.jsm.consumers.info(this.names.cubesStream, consumer);
      const ackWaitMs = Math.round((info.config.ack_wait ?? 30_000_000_000) / 1_000_000);
      const settings = { ackWaitMs: Math.max(1, ackWaitMs), maxDeliver: info.config.max_deliver ?? -1 };
      this.entries.set(consumer, { kind: "known", settings });
      this.log.debug("run consumer", { consumer, ackWaitMs: settings.ackWaitMs, maxDeliver: settings.maxDeliver });
    } catch (err) {
      const n = failures + 1;
      if (n === 1 || n % 20 === 0) this.log.info("waiting for the run's consumer", { consumer, attempt: n, err: (err as Error).message });
      this.entries.set(consumer, { kind: "failed", retryAt: Date.now() + Math.min(MAX_RETRY_MS, RETRY_MS * 2 ** (n - 1)), failures: n });
    }
  }
}
