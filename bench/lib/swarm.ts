/**
 * Plays many workers for bench/worker-swarm.ts: each one its own NATS connection with its own worker id, pulling the
 * run's cube tasks exactly as a worker does (one pull at a time on the run's consumer), "solving" each for a time
 * drawn from an exponential distribution of the given mean (a stand-in engine: nothing runs), then publishing an
 * UNSAT verdict with the task's lease on its own verdict subject and acking the task, and sending a heartbeat
 * (WorkerStatus, with what it is running and the proof of its lease) every 2 s. Prints one JSON line when done: verdicts published.
 *
 *   node --import tsx bench/lib/swarm.ts NATS_URL RUN_ID WORKERS MEAN_CUBE_MS SECONDS [ID_PREFIX]
 */

import { hostname } from "node:os";
import { jetstream, type Consumer } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { createNames } from "../../proto/contract.js";
import { leaseProof } from "../../proto/lease-proof.js";
import { CubeTask, Verdict, VerdictKind, WorkerStatus } from "../../proto/gen/cubist/v1/cube.js";

const [url, run, workersArg, meanArg, secondsArg, prefix = "sim"] = process.argv.slice(2);
const names = createNames();
const host = hostname();
const mean = Number(meanArg);
const end = Date.now() + Number(secondsArg) * 1000;
let published = 0;
let failed = 0;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function playWorker(id: string, nc: NatsConnection): Promise<void> {
  const js = jetstream(nc);
  const consumer: Consumer = await js.consumers.get(names.cubesStream, names.runConsumer(run));
  let running: { cubeId: string; since: number; lease: string } | null = null;
  let done = 0;
  const started = Date.now();
  const beat = setInterval(() => {
    const s = WorkerStatus.fromPartial({
      workerId: id, host, slots: 1, busy: running ? 1 : 0, cubesDone: done, uptimeSec: (Date.now() - started) / 1000, solver: "none",
      running: running ? [{ runId: run, cubeId: running.cubeId, startedUnixMs: running.since, leaseProof: leaseProof(running.lease, id) }] : [],
    });
    nc.publish(names.workerSubject(id), WorkerStatus.encode(s).finish());
  }, 2000);
  try {
    while (Date.now() < end) {
      const m = await consumer.next({ expires: 5000 }).catch(() => null);
      if (!m) continue;
      const task = CubeTask.decode(m.data);
      running = { cubeId: task.cubeId, since: Date.now(), lease: task.lease };
      const ms = -mean * Math.log(1 - Math.random());
      await sleep(ms);
      const v = Verdict.fromPartial({
        runId: task.runId, cubeId: task.cubeId, kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: id, host, delivery: m.info.deliveryCount,
        taskSeq: m.seq, lease: task.lease, stats: { wallMs: ms, cpuMs: ms, conflicts: 0, decisions: 0, propagations: 0 },
      });
      try {
        await js.publish(names.verdictsSubject(run, id), Verdict.encode(v).finish(), { msgID: `${run}:${task.cubeId}:${m.seq}:${m.info.deliveryCount}` });
        m.ack();
        published++;
        done++;
      } catch {
        m.nak();
        failed++;
      }
      running = null;
    }
  } finally {
    clearInterval(beat);
  }
}

const count = Number(workersArg);
const connections = await Promise.all(Array.from({ length: count }, (_, i) => connect({ servers: url, name: `${prefix}-${i}`, inboxPrefix: `_INBOX_${prefix}-${i}` })));
await Promise.all(connections.map((nc, i) => playWorker(`${prefix}-${i}`, nc)));
await Promise.all(connections.map((nc) => nc.close()));
process.stdout.write(`${JSON.stringify({ workers: count, published, failed })}\n`);
