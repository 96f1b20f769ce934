/**
 * Publishing cube tasks into the work-queue stream: many publishes in flight at once (JetStream acknowledges
 * each), with a bounded window so memory stays flat for hundreds of thousands of cubes. Each task has a msg id
 * (`<run>:<cube>[:a<attempt>]`), so a publish repeated after a coordinator restart within the stream's duplicate
 * window is dropped by the server.
 */

import type { JetStreamClient } from "@nats-io/jetstream";
import { CubeTask } from "../proto/gen/cubist/v1/cube.js";

export const PUBLISH_WINDOW = 256;

/** Publishes the tasks; returns each task's stream sequence, in order. */
export async function publishTasks(
  js: JetStreamClient,
  subject: string,
  tasks: ReadonlyArray<{ task: CubeTask; msgId: string }>,
  window: number = PUBLISH_WINDOW,
): Promise<number[]> {
  const seqs: number[] = new Array(tasks.length);
  for (let start = 0; start < tasks.length; start += window) {
    const end = Math.min(tasks.length, start + window);
    const acks: Promise<void>[] = [];
    for (let i = start; i < end; i++) {
      const { task, msgId } = tasks[i];
      acks.push(
        js.publish(subject, CubeTask.encode(task).finish(), { msgID: msgId, timeout: 30_000 }).then((ack) => {
          seqs[i] = ack.seq;
        }),
      );
    }
    await Promise.all(acks);
  }
  return seqs;
}
