/**
 * Pulling one cube task at a time from a run's pull consumer, with the JetStream pull protocol spoken directly:
 * a request on `$JS.API.CONSUMER.MSG.NEXT.<stream>.<consumer>` with `{batch: 1, expires | no_wait}` and the
 * reply going to this slot's own inbox. Compared with `consumer.next()` this gives
 * - `no_wait` pulls (answered at once with 404 when the queue is empty), so a slot can scan several runs cheaply;
 * - one long-lived subscription per slot instead of one per pull;
 * - a message that arrives after we stopped waiting (a late answer to a timed-out request) is seen and handed
 *   back with a nak instead of silently waiting out ack_wait on a dead inbox.
 * The server drops waiting pull requests whose reply subject lost interest, so closing the subscription is clean.
 *
 * A pulled message is a PulledTask: the JetStream ack protocol (+ACK, -NAK {delay}, +WPI, +TERM) on its reply
 * subject, and the delivery info parsed from that subject.
 */

import { createInbox, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";

const ACK = new TextEncoder().encode("+ACK");
const WPI = new TextEncoder().encode("+WPI");
const TERM = new TextEncoder().encode("+TERM");

/** What the ack subject of a JetStream message says about its delivery. */
export interface DeliveryInfo {
  stream: string;
  consumer: string;
  /** How many times this message has been delivered (1 = first time). */
  deliveryCount: number;
  streamSequence: number;
  consumerSequence: number;
  /** Messages still pending for the consumer after this one. */
  pending: number;
}

/**
 * Parses `$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>.<cseq>.<ts>.<pending>` and the newer form with a domain
 * and account hash after `ACK` (and a random token at the end). Null when it is not an ack subject.
 */
export function parseAckSubject(reply: string): DeliveryInfo | null {
  let t = reply.split(".");
  if (t[0] !== "$JS" || t[1] !== "ACK") return null;
  if (t.length === 9) t = [t[0], t[1], "_", "", ...t.slice(2)];
  if (t.length < 11) return null;
  const n = (s: string): number => (/^\d+$/.test(s) ? Number(s) : NaN);
  const info: DeliveryInfo = {
    stream: t[4],
    consumer: t[5],
    deliveryCount: n(t[6]),
    streamSequence: n(t[7]),
    consumerSequence: n(t[8]),
    pending: n(t[10]),
  };
  if (![info.deliveryCount, info.streamSequence, info.consumerSequence, info.pending].every(Number.isSafeInteger)) return null;
  return info;
}

/** A cube task as pulled: its payload and the ack protocol. Every final ack (ack, nak, term) is sent at most once. */
export class PulledTask {
  private finished = false;

  constructor(
    private readonly nc: NatsConnection,
    readonly subject: string,
    readonly data: Uint8Array,
    readonly reply: string,
    readonly info: DeliveryInfo,
    /** performance.now() when it arrived. */
    readonly receivedAt: number,
  ) {}

  /** True once ack, ackAck, nak or term was sent. */
  get done(): boolean {
    return this.finished;
  }

  /** Extends the ack deadline (+WPI). */
  working(): void {
    if (!this.finished) this.send(WPI);
  }

  ack(): void {
    if (this.finish()) this.send(ACK);
  }

  /** Redeliver after `delayMs` (0: as soon as someone pulls). */
  nak(delayMs = 0): void {
    if (!this.finish()) return;
    const payload = delayMs > 0 ? `-NAK ${JSON.stringify({ delay: Math.round(delayMs) * 1_000_000 })}` : "-NAK";
    this.send(new TextEncoder().encode(payload));
  }

  /** Never redeliver. (A reason is only understood by servers >= 2.11, so none is sent; the worker logs it.) */
  term(): void {
    if (this.finish()) this.send(TERM);
  }

  /** Acks and waits for the server to confirm. Throws on timeout (the caller may retry with `retryAckAck`). */
  async ackAck(timeoutMs = 5000): Promise<void> {
    this.finished = true;
    await this.nc.request(this.reply, ACK, { timeout: timeoutMs });
  }

  /** Publishes on the ack subject; a closed connection is not an error here (the task is redelivered). */
  private send(payload: Uint8Array): void {
    try {
      this.nc.publish(this.reply, payload);
    } catch {
      // closed or draining
    }
  }

  private finish(): boolean {
    if (this.finished) return false;
    this.finished = true;
    return true;
  }
}

export type PullResult =
  | { kind: "message"; message: PulledTask }
  /** 404 (no_wait, queue empty) or 408 (expired, or a no_wait refused because other pulls wait). */
  | { kind: "empty" }
  /** No answer in time to a long poll: the consumer may not exist (the server does not answer then), or NATS is away. */
  | { kind: "timeout" }
  /** Any other status: 409 consumer deleted / max waiting exceeded / leadership change, 400 bad request. */
  | { kind: "status"; code: number; description: string };

export interface PullOptions {
  /**
   * Ask without waiting: the server answers at once, 404 when the queue is empty. Sent with a reply subject of
   * its own that is dropped after `noWaitTimeoutMs`: nats-server 2.9 does not answer a no_wait pull at all while
   * a message that used up max_deliver is still pending, and keeps the request waiting; once our reply subject
   * has no interest the server drops it instead of delivering a later message into the void. No answer counts
   * as "empty".
   */
  noWait?: boolean;
  /** How long a no_wait pull waits for its answer. @default 500 */
  noWaitTimeoutMs?: number;
  /** Long-poll for this long (ms). @default 5000 */
  expiresMs?: number;
  /** How long past `expiresMs` we wait for the server's 408 before calling it a timeout. @default 3000 */
  marginMs?: number;
  /** Stop waiting (the result is then "empty"). */
  signal?: AbortSignal;
}

/** Called with a message that arrived while nobody was waiting; the owner hands it back (nak). */
export type StrayHandler = (message: PulledTask) => void;

/** The result a status message (no reply subject, a code in its headers) stands for; null for a heartbeat. */
function statusResult(msg: Msg): PullResult | null {
  const code = msg.headers?.code ?? 0;
  if (code === 404 || code === 408) return { kind: "empty" };
  if (code === 100) return null;
  return { kind: "status", code, description: msg.headers?.description ?? "" };
}

/**
 * One slot's puller: long polls share one wildcard subscription (token per request), no_wait pulls use a
 * subscription each. At most one pull is waited for at a time.
 */
export class Puller {
  private readonly prefix: string;
  private readonly sub: Subscription;
  private token = 0;
  private waiting: { token: string; resolve: (r: PullResult) => void } | null = null;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly stream: string,
    private readonly onStray: StrayHandler,
    /** Inbox prefix of reply subjects (a worker's NATS user may subscribe only to its own). @default "_INBOX" */
    private readonly inboxPrefix?: string,
  ) {
    this.prefix = createInbox(inboxPrefix);
    this.sub = nc.subscribe(`${this.prefix}.*`, { callback: (err, msg) => (err ? undefined : this.onMessage(msg)) });
  }

  /** Pulls one message from `consumer`. Never throws: failures are "timeout" results. */
  pull(consumer: string, options: PullOptions = {}): Promise<PullResult> {
    if (this.waiting) throw new Error("Puller.pull: a pull is already waiting");
    if (options.signal?.aborted || this.closed) return Promise.resolve({ kind: "empty" });
    const subject = `$JS.API.CONSUMER.MSG.NEXT.${this.stream}.${consumer}`;
    return options.noWait ? this.pullNoWait(subject, options) : this.longPoll(subject, options);
  }

  /** Stops listening; the server drops our waiting requests (no interest left). */
  close(): void {
    this.closed = true;
    this.waiting?.resolve({ kind: "empty" });
    if (!this.sub.isClosed()) this.sub.unsubscribe();
  }

  private longPoll(subject: string, options: PullOptions): Promise<PullResult> {
    const token = String(++this.token);
    const expires = Math.max(1, Math.round(options.expiresMs ?? 5000));
    const waitMs = expires + (options.marginMs ?? 3000);
    return new Promise<PullResult>((resolve) => {
      const finish = (r: PullResult): void => {
        if (this.waiting?.token !== token) return;
        this.waiting = null;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        resolve(r);
      };
      const onAbort = (): void => finish({ kind: "empty" });
      const timer = setTimeout(() => finish({ kind: "timeout" }), waitMs);
      this.waiting = { token, resolve: finish };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        this.nc.publish(subject, JSON.stringify({ batch: 1, expires: expires * 1_000_000 }), { reply: `${this.prefix}.${token}` });
      } catch {
        // Connection closed (or draining): report like a lost request, after a moment so callers do not spin.
        clearTimeout(timer);
        setTimeout(() => finish({ kind: "timeout" }), Math.min(waitMs, 500));
      }
    });
  }

  private pullNoWait(subject: string, options: PullOptions): Promise<PullResult> {
    const inbox = createInbox(this.inboxPrefix);
    const token = `nowait:${++this.token}`;
    return new Promise<PullResult>((resolve) => {
      let sub: Subscription | null = null;
      const finish = (r: PullResult): void => {
        if (this.waiting?.token !== token) return;
        this.waiting = null;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        if (sub && !sub.isClosed()) sub.unsubscribe();
        resolve(r);
      };
      const onAbort = (): void => finish({ kind: "empty" });
      const timer = setTimeout(() => finish({ kind: "empty" }), options.noWaitTimeoutMs ?? 500);
      this.waiting = { token, resolve: finish };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        sub = this.nc.subscribe(inbox, {
          callback: (err, msg) => {
            if (err) return finish({ kind: "empty" });
            const message = this.toPulledTask(msg);
            if (message) {
              if (this.waiting?.token === token) finish({ kind: "message", message });
              else this.onStray(message);
              return;
            }
            const r = statusResult(msg);
            if (r) finish(r);
          },
        });
        this.nc.publish(subject, JSON.stringify({ batch: 1, no_wait: true }), { reply: inbox });
      } catch {
        clearTimeout(timer);
        setTimeout(() => finish({ kind: "timeout" }), 500);
      }
    });
  }

  private toPulledTask(msg: Msg): PulledTask | null {
    const info = parseAckSubject(msg.reply ?? "");
    return info === null ? null : new PulledTask(this.nc, msg.subject, msg.data, msg.reply!, info, performance.now());
  }

  private onMessage(msg: Msg): void {
    const message = this.toPulledTask(msg);
    if (message === null) {
      // A status for one of our requests: only the current one matters.
      const token = msg.subject.slice(this.prefix.length + 1);
      if (this.waiting?.token !== token) return;
      const r = statusResult(msg);
      if (r) this.waiting.resolve(r);
      return;
    }
    // A late answer to an earlier long poll is as good as any while a pull waits.
    if (this.waiting) this.waiting.resolve({ kind: "message", message });
    else this.onStray(message);
  }
}
