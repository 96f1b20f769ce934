/**
 * A solver slot: a loop that picks a run, pulls one task and works it to its final ack, until the worker drains.
 * States: idle (no runnable run) -> pulling -> working -> pulling ... -> stopped.
 *
 * Picking (steps 1-2 of docs/cluster.md): the RUNNING runs whose consumer is known, highest priority first, each
 * run's lead consumer (a portfolio member going on) and front consumer (a re-split's children) before its main one.
 * After a portfolio member's attempt the slot first waits up to LEAD_WAIT_MS on that run's lead queue: the
 * coordinator sends the member on once it has the verdict (or at its next status round, once the member is within
 * its share), and a slot that took a cube meanwhile would keep the member waiting for a whole cube. A run ranked
 * above all of those whose consumer is not read yet (it was just submitted) is waited for, up to CONSUMER_WAIT_MS,
 * so a higher-priority run gets the next pull instead of the one after the next cube. With one consumer to ask the
 * slot long-polls it (`expires`); with several it asks each in order with `no_wait` (answered at once) and, when
 * all are empty, long-polls the top run's main consumer for a second before asking again.
 * A pull nobody answers (NATS away, consumer missing) is retried with backoff after re-reading the consumer.
 * A check task (another worker's proof to check: worker/check-proof.ts) runs beside the slot's solving, one at a
 * time per slot (its checker slot): the slot goes on pulling while it runs; a second one meanwhile runs in the slot.
 * While the worker is quarantined (worker/quarantine.ts) slots do not pull at all.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { WorkerContext } from "./context.js";
import { handleTask } from "./cube-task.js";
import { Puller, type PullResult, type PulledTask } from "./pull.js";
import { workerInboxPrefix } from "../cluster/nats-users.js";
import { runOfConsumer } from "./validate-task.js";
import { runQueues } from "../cluster/layout.js";
import { isMemberId } from "../proto/contract.js";
import { CubeTask } from "../proto/gen/cubist/v1/cube.js";

/**
 * What the slot needs to know of a pulled message before it works on it: whether it is a check task, and the run of
 * a portfolio member's attempt (coordinator/model/scan-member.ts), else null. A malformed one is neither: the slot
 * terminates it as usual.
 */
function peek(message: PulledTask): { check: boolean; memberRun: string | null } {
  try {
    const task = CubeTask.decode(message.data);
    return { check: task.check !== undefined, memberRun: isMemberId(task.cubeId) ? task.runId : null };
  } catch {
    return { check: false, memberRun: null };
  }
}

export type SlotState = "idle" | "quarantined" | "pulling" | "working" | "stopped";

/** Long-poll length when several runs are runnable and all were empty. */
const MULTI_RUN_POLL_MS = 1000;
/** How long a slot waits for the consumer of a run ranked above every run it can pull from. */
const CONSUMER_WAIT_MS = 2000;
/**
 * How long a slot that ran a portfolio member's attempt waits on the run's lead queue for the member to go on: the
 * verdict's way to the coordinator and back, and one status round (coordinator/config.ts DEFAULT_STATUS_INTERVAL_MS).
 */
const LEAD_WAIT_MS = 1500;

interface Candidate {
  run: string;
  consumer: string;
  ackWaitMs: number;
  queue: "lead" | "front" | "main";
}

export class Slot {
  private current: SlotState = "idle";
  private readonly puller: Puller;
  private loopDone: Promise<void> = Promise.resolve();
  private failures = 0;
  /** The check task running beside the slot's solving (its checker slot), if any. */
  private check: Promise<void> | null = null;
  /** The run whose portfolio member this slot ran last: its lead queue is waited on first. */
  private leadRun: string | null = null;

  constructor(
    readonly index: number,
    private readonly ctx: WorkerContext,
  ) {
    this.puller = new Puller(ctx.nc, ctx.config.names.cubesStream, (m) => this.onStray(m), workerInboxPrefix(ctx.config.workerId));
  }

  get state(): SlotState {
    return this.current;
  }

  start(): void {
    this.loopDone = this.loop();
  }

  /** Resolves when the loop has ended (after draining, with its last cube finished). */
  done(): Promise<void> {
    return this.loopDone;
  }

  /** Releases the inbox subscription; call after done(). */
  async close(): Promise<void> {
    this.puller.close();
  }

  private setState(next: SlotState): void {
    if (next === this.current) return;
    this.ctx.log.debug("slot state", { slot: this.index, from: this.current, to: next });
    this.current = next;
  }

  private async candidates(): Promise<Candidate[]> {
    const { names } = this.ctx.config;
    const { consumers } = this.ctx;
    // The top run's consumers are waited for (briefly: a run just submitted is read in a few ms), so a run ranked
    // above every other gets this pull; the list is read again afterwards, since runs may have been seen meanwhile.
    const top = this.ctx.table.runnable()[0];
    if (top) {
      await Promise.all(runQueues(names, top.id).map((q) => consumers.ready(q.consumer, CONSUMER_WAIT_MS, this.ctx.draining)));
    }
    const out: Candidate[] = [];
    for (const r of this.ctx.table.runnable()) {
      // settings() starts reading a consumer not known yet; the run is a candidate once its main one is known.
      if (!consumers.settings(names.runConsumer(r.id))) continue;
      const [lead, front, main] = runQueues(names, r.id);
      // The lead and front queues are usually empty; a run without them (made before they existed) just has none.
      for (const [q, queue] of [[lead, "lead"], [front, "front"], [main, "main"]] as const) {
        const s = consumers.settings(q.consumer);
        if (s) out.push({ run: r.id, consumer: q.consumer, ackWaitMs: s.ackWaitMs, queue });
      }
    }
    return out;
  }

  private async loop(): Promise<void> {
    const { ctx } = this;
    try {
      while (!ctx.draining.aborted) {
        if (ctx.quarantine.state === "quarantined") {
          this.setState("quarantined");
          await ctx.quarantine.wait(ctx.draining);
          continue;
        }
        const runs = await this.candidates();
        if (runs.length === 0) {
          this.setState("idle");
          // Also woken by the clock: a run's consumer may have become known meanwhile.
          await ctx.table.changed(250, ctx.draining);
          continue;
        }
        this.setState("pulling");
        const got = await this.pullOne(runs);
        if (got === null) continue;
        if (ctx.draining.aborted) {
          got.message.nak();
          break;
        }
        const seen = peek(got.message);
        if (this.check === null && seen.check) {
          this.check = this.work(got.message, got.ackWaitMs).finally(() => { this.check = null; });
          continue;
        }
        this.setState("working");
        this.leadRun = seen.memberRun;
        await this.work(got.message, got.ackWaitMs);
      }
    } finally {
      // The check beside it is part of the slot: done() waits for it, and a hard stop stops it (it is an active cube).
      await this.check;
      this.setState("stopped");
    }
  }

  private async work(message: PulledTask, ackWaitMs: number): Promise<void> {
    try {
      await handleTask(this.ctx, this, message, ackWaitMs);
    } catch (err) {
      this.ctx.log.error("unexpected failure handling a task; handing it back", { slot: this.index, err: (err as Error).stack ?? String(err) });
      if (!message.done) message.nak(this.ctx.config.retryDelayMs);
    }
  }

  /** One message from the candidates, or null (nothing now, or a failure already waited out). */
  private async pullOne(runs: Candidate[]): Promise<{ message: PulledTask; ackWaitMs: number } | null> {
    const { ctx } = this;
    const signal = ctx.draining;
    const lead = runs.find((c) => c.queue === "lead" && c.run === this.leadRun);
    this.leadRun = null;
    if (lead) {
      const r = await this.longPoll(lead.consumer, LEAD_WAIT_MS);
      if (r.kind === "message") return this.settle(r, lead);
    }
    if (runs.length === 1) {
      const r = await this.longPoll(runs[0].consumer, ctx.config.longPollMs);
      return this.settle(r, runs[0]);
    }
    for (const c of runs) {
      const r = await this.puller.pull(c.consumer, { noWait: true, signal });
      if (r.kind !== "empty") return this.settle(r, c);
      if (signal.aborted) return null;
    }
    const top = runs.find((c) => c.queue === "main") ?? runs[0];
    const r = await this.longPoll(top.consumer, MULTI_RUN_POLL_MS);
    return this.settle(r, top);
  }

  /**
   * A long poll that also ends ("empty") when the runnable runs or their order change: a run submitted (or
   * reprioritised) meanwhile is considered at once, not after the poll expires.
   */
  private async longPoll(consumer: string, expiresMs: number): Promise<PullResult> {
    const { ctx } = this;
    const wake = new AbortController();
    const done = new AbortController();
    void ctx.table.rankingChanged(expiresMs + 5000, done.signal).then(() => wake.abort());
    try {
      return await this.puller.pull(consumer, { expiresMs, signal: AbortSignal.any([ctx.draining, wake.signal]) });
    } finally {
      done.abort();
    }
  }

  private async settle(r: PullResult, asked: Candidate): Promise<{ message: PulledTask; ackWaitMs: number } | null> {
    const { ctx } = this;
    if (r.kind === "message") {
      this.failures = 0;
      // Usually from the consumer just asked; a late answer to an earlier pull may come from another one.
      const from = r.message.info.consumer;
      const ackWaitMs = from !== asked.consumer && runOfConsumer(ctx.config.names, from) !== null
        ? ctx.consumers.settings(from)?.ackWaitMs ?? asked.ackWaitMs
        : asked.ackWaitMs;
      return { message: r.message, ackWaitMs };
    }
    if (r.kind === "empty") {
      this.failures = 0;
      return null;
    }
    this.failures++;
    if (r.kind === "timeout") {
      ctx.consumers.invalidate(asked.consumer);
      if (this.failures === 1 || this.failures % 10 === 0) ctx.log.info("pull not answered; retrying", { slot: this.index, run: asked.run, attempt: this.failures });
    } else {
      if (/consumer deleted|not found/i.test(r.description)) ctx.consumers.invalidate(asked.consumer);
      ctx.log.info("pull refused", { slot: this.index, run: asked.run, code: r.code, status: r.description });
    }
    await sleep(Math.min(5000, 100 * 2 ** Math.min(this.failures, 6)), undefined, { signal: ctx.draining }).catch(() => undefined);
    return null;
  }

  /** A message that arrived while this slot was not waiting: hand it back at once. */
  private onStray(message: PulledTask): void {
    message.nak();
    this.ctx.log.debug("late delivery handed back", { slot: this.index, consumer: message.info.consumer, seq: message.info.streamSequence });
  }
}
