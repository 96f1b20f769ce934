/**
 * How verdict messages reach the coordinator (coordinator/shell/coordinator.ts): the loop over the single durable
 * consumer of verdicts, and the checks a message passes before it counts as a verdict at all (never trusted).
 * What a verdict then means for its run (leases, recording, acks) is coordinator/shell/verdict-router.ts's business.
 */

import type { ConsumerMessages, JetStreamClient, JsMsg } from "@nats-io/jetstream";
import type { Logger } from "../../cluster/log.js";
import { CUBE_ID_RE, RUN_ID_RE, type Names } from "../../proto/contract.js";
import { Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

const MAX_VERDICT_BYTES = 16 * 1024 * 1024;

/** How long the verdict consumer's pulls wait on the server (ms); its idle heartbeats come at half that. */
const VERDICT_PULL_EXPIRES_MS = 4000;

export interface VerdictLoopOptions {
  js: JetStreamClient;
  names: Names;
  log: Logger;
  /** The verdict consumer to read (the leader's term's, cluster/layout.ts takeVerdictConsumer). */
  consumer: string;
  /** The loop goes on while this holds (the coordinator is running). */
  running: () => boolean;
  /** One batch: whatever has arrived since the previous batch was done. */
  process: (batch: JsMsg[]) => Promise<void>;
}

/**
 * The loop over the coordinator's verdict consumer. Verdicts arrive through a pull `consume` (it keeps pulls open
 * and resumes after reconnects); whatever has arrived is processed as one batch as soon as the previous batch is
 * done, so a lone verdict waits for nothing. Messages held back by the coordinator (a verdict whose task is still in
 * flight, coordinator/model/in-flight.ts) come back through `requeue` and go with the next batch.
 */
export class VerdictIntake {
  private readonly queue: JsMsg[] = [];
  private wake: (() => void) | null = null;
  private messages: ConsumerMessages | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly opts: VerdictLoopOptions) {}

  /** Starts the loop (once). */
  start(): void {
    this.loop ??= this.consume();
  }

  /** Messages to process again with the next batch. */
  requeue(msgs: readonly JsMsg[]): void {
    if (msgs.length === 0) return;
    this.queue.push(...msgs);
    this.wake?.();
  }

  /** Stops consuming and waits for the batch in progress; messages not processed stay unacked (JetStream redelivers). */
  async close(): Promise<void> {
    await this.messages?.close().catch(() => undefined);
    this.wake?.();
    await this.loop?.catch(() => undefined);
  }

  private async consume(): Promise<void> {
    const { names, log } = this.opts;
    while (this.opts.running()) {
      try {
        const consumer = await this.opts.js.consumers.get(names.verdictsStream, this.opts.consumer);
        let ended = false;
        const messages = await consumer.consume({
          max_messages: 1000,
          // Pulls that expire every few seconds, with heartbeats at half that: a pull lost with the consumer's leader
          // (a NATS node died) is noticed after two missed heartbeats, 4 s, not the client's default 30 s.
          expires: VERDICT_PULL_EXPIRES_MS,
          callback: (m) => {
            this.queue.push(m);
            this.wake?.();
          },
        });
        this.messages = messages;
        void messages.closed().then(() => {
          ended = true;
          this.wake?.();
        });
        await this.drain(() => !ended);
        await messages.close().catch(() => undefined);
      } catch (err) {
        if (!this.opts.running()) break;
        log.warn("verdict consumer interrupted; retrying", { err: (err as Error).message });
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Processes batches while the consumer is open. */
  private async drain(open: () => boolean): Promise<void> {
    while (this.opts.running() && open()) {
      if (this.queue.length === 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
        continue;
      }
      await this.opts.process(this.queue.splice(0, this.queue.length));
    }
  }
}

/** A verdict, or null when the message is not one we accept (never trusted). */
export function decodeVerdict(data: Uint8Array, subject: string, names: Names, log: Logger): Verdict | null {
  if (data.length > MAX_VERDICT_BYTES) return null;
  let v: Verdict;
  try {
    v = Verdict.decode(data);
  } catch {
    log.warn("undecodable verdict terminated", { subject, bytes: data.length });
    return null;
  }
  const bad = (why: string): null => {
    log.warn("invalid verdict terminated", { subject, why, run: v.runId.slice(0, 80), cube: v.cubeId.slice(0, 80) });
    return null;
  };
  if (!RUN_ID_RE.test(v.runId)) return bad("bad run id");
  if (!subject.startsWith(names.verdictsSubject(v.runId, ""))) return bad("run id does not match the subject");
  if (!CUBE_ID_RE.test(v.cubeId)) return bad("bad cube id");
  if (!(v.kind in VerdictKind) || v.kind === VerdictKind.VERDICT_KIND_UNSPECIFIED) return bad("bad verdict kind");
  if (v.kind !== VerdictKind.VERDICT_KIND_SAT && (v.model.length > 0 || v.board.length > 0)) return bad("a model on a non-SAT verdict");
  for (const n of [v.stats?.wallMs, v.stats?.cpuMs, v.stats?.solverSeconds]) if (n !== undefined && !Number.isFinite(n)) return bad("non-finite statistics");
  v.workerId = v.workerId.slice(0, 128);
  v.host = v.host.slice(0, 128);
  v.reason = v.reason.slice(0, 1000);
  return v;
}
