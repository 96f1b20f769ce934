/**
 * Load generator for bench/watch-load.ts: plays many fast workers. It pulls the run's cube tasks from JetStream
 * exactly as a worker does (the run's pull consumer), publishes an UNSAT verdict for each at a fixed rate (a
 * JetStream publish with the worker's msg-id scheme) and acks the task after the verdict is stored. Each verdict's
 * `reason` carries its publish time (`load t=<epoch ms>`), so the watcher can measure the lag through the
 * coordinator. Prints one JSON line with what it published when done.
 *
 *   node --import tsx bench/lib/verdict-load.ts NATS_URL RUN_ID RATE_PER_S SECONDS
 */

import { hostname } from "node:os";
import { jetstream, type JsMsg } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { createNames } from "../../proto/contract.js";
import { CubeTask, Verdict, VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

const [url, run, rateArg, secondsArg] = process.argv.slice(2);
const rate = Number(rateArg);
const seconds = Number(secondsArg);
const names = createNames();
const nc = await connect({ servers: url });
const js = jetstream(nc);
const consumer = await js.consumers.get(names.cubesStream, names.runConsumer(run));
const subject = names.verdictsSubject(run, "load");
const host = hostname();

let published = 0;
const inFlight = new Set<Promise<void>>();
const t0 = Date.now();
const end = t0 + seconds * 1000;

async function answer(m: JsMsg): Promise<void> {
  const task = CubeTask.decode(m.data);
  const now = Date.now();
  const v = Verdict.fromPartial({
    runId: task.runId, cubeId: task.cubeId, kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: "load", host,
    delivery: m.info.deliveryCount, taskSeq: m.seq, reason: `load t=${now}`, lease: task.lease,
    stats: { wallMs: 1, cpuMs: 1, conflicts: 0, decisions: 0, propagations: 0 },
  });
  try {
    await js.publish(subject, Verdict.encode(v).finish(), { msgID: `${run}:${task.cubeId}:${m.seq}:${m.info.deliveryCount}` });
    m.ack();
    published++;
  } catch {
    m.nak();
  }
}

// The tasks arrive through a continuous pull (consume); each verdict starts on schedule: the i-th at t0 + i / rate.
const messages = await consumer.consume({ max_messages: 2000 });
let started = 0;
for await (const m of messages) {
  const due = t0 + (started * 1000) / rate;
  const wait = due - Date.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  if (Date.now() >= end) {
    m.nak();
    break;
  }
  started++;
  const p = answer(m).finally(() => inFlight.delete(p));
  inFlight.add(p);
}
await Promise.all(inFlight);
const elapsed = (Date.now() - t0) / 1000;
console.log(JSON.stringify({ published, failed: started - published, seconds: elapsed, perSecond: Math.round(published / elapsed) }));
await nc.drain();
