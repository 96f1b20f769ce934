/**
 * Publishing cube tasks into the work-queue stream: many publishes in flight at once (JetStream acknowledges
 * each), with a bounded window so memory stays flat for hundreds of thousands of cubes. Each task has a msg id
 * (`<run>:<cube>[:a<attempt>]`), so a publish repeated after a coordinator restart within the stream's duplicate
 * window is dropped by the server. Such a duplicate keeps the lease of the message stored first: the task's `lease` is
 * replaced by the stored one, so the ledger records what workers will actually see (coordinator/model/leases.ts).
 * A publish that NATS could not take for the moment (no stream leader after a node died: no responders, or a
 * timeout) is made again, for up to PUBLISH_RETRY_MS, as the ledger's appends are (coordinator/shell/retry.ts).
 */

import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import { retryUntil } from "./retry.js";

export const PUBLISH_WINDOW = 256;

/** How long a task publish keeps retrying while the stream has no leader (an election after a node loss takes seconds). */
const PUBLISH_RETRY_MS = 120_000;

/** An error after which the same publish may succeed: nobody answered (no stream leader yet), or no answer in time. */
function isTransient(err: unknown): boolean {
  const name = (err as Error)?.name ?? "";
  return name === "JetStreamNotEnabled" || name === "TimeoutError" || /no responders|timeout/i.test((err as Error)?.message ?? "");
}

/**
 * Publishes the tasks; returns each task's stream sequence, in order. With `jsm`, a task the server reports as a
 * duplicate gets the lease of the stored message (when it is still there).
 */
export async function publishTasks(
  js: JetStreamClient,
  subject: string,
  tasks: ReadonlyArray<{ task: CubeTask; msgId: string }>,
  window: number = PUBLISH_WINDOW,
  jsm?: { manager: JetStreamManager; stream: string },
): Promise<number[]> {
  const seqs: number[] = new Array(tasks.length);
  for (let start = 0; start < tasks.length; start += window) {
    const end = Math.min(tasks.length, start + window);
    const acks: Promise<void>[] = [];
    for (let i = start; i < end; i++) {
      const { task, msgId } = tasks[i];
      acks.push(
        retryUntil(PUBLISH_RETRY_MS, () => js.publish(subject, CubeTask.encode(task).finish(), { msgID: msgId, timeout: 30_000 }), isTransient).then(async (ack) => {
          seqs[i] = ack.seq;
          if (ack.duplicate && jsm) task.lease = await storedLease(jsm.manager, jsm.stream, ack.seq, task.lease);
        }),
      );
    }
    await Promise.all(acks);
  }
  return seqs;
}

/** The lease of the task stored at `seq`, or `fallback` when it was consumed already (or does not decode). */
async function storedLease(jsm: JetStreamManager, stream: string, seq: number, fallback: string): Promise<string> {
  try {
    const m = await jsm.streams.getMessage(stream, { seq });
    return m ? CubeTask.decode(m.data).lease : fallback;
  } catch {
    return fallback;
  }
}
