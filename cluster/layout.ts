/**
 * The JetStream layout of docs/cluster.md: streams, consumers and buckets. The coordinator creates them
 * (`ensureLayout`, idempotent: an existing stream is kept as it is); workers and clients only open them.
 * Everything is created with a configurable replica count, for clustered NATS.
 */

import type { NatsConnection } from "@nats-io/transport-node";
import {
  AckPolicy,
  DeliverPolicy,
  DiscardPolicy,
  jetstream,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
  type StreamConfig,
} from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import { Objm, type ObjectStore } from "@nats-io/obj";
import { PROOF_CHUNK_BYTES, PROOF_UPLOADER_COORDINATOR, type Names } from "../proto/contract.js";
import { ProofStream } from "./proof-stream.js";

export interface LayoutOptions {
  /** Stream and bucket replicas (1 for a single server, 3 for a 3-node cluster). @default 1 */
  replicas?: number;
  /** Largest message the cube and verdict streams accept (a SAT verdict carries the model bitset). @default 8 MiB */
  maxMsgBytes?: number;
  /** Proofs handed over as files in this directory instead of the proofs stream (cluster/proof-stream.ts): the embedded cluster's. @default null */
  proofHandoffDir?: string | null;
}

export interface Layout {
  readonly names: Names;
  readonly js: JetStreamClient;
  readonly runs: KV;
  readonly formulas: ObjectStore;
  /** DRAT proofs of certified runs (docs/operations.md "Certificates"), stored under this process's identity. */
  readonly proofs: ProofStream;
}

const NS = 1_000_000;

function isNotFound(err: unknown): boolean {
  const e = err as { code?: number | string; api_error?: { err_code?: number }; message?: string };
  return e?.api_error?.err_code === 10059 || e?.api_error?.err_code === 10014 || /not found/i.test(e?.message ?? "");
}

async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.info(config.name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add(config);
  }
}

/** Creates the streams and the buckets if missing (the leading coordinator makes the verdict consumer, `takeVerdictConsumer`). */
export async function ensureLayout(nc: NatsConnection, jsm: JetStreamManager, names: Names, options: LayoutOptions = {}): Promise<Layout> {
  const replicas = options.replicas ?? 1;
  const maxMsgBytes = options.maxMsgBytes ?? 8 * 1024 * 1024;
  await ensureStream(jsm, {
    name: names.cubesStream,
    subjects: [`${names.prefix}.cubes.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: replicas,
    max_msg_size: maxMsgBytes,
    discard: DiscardPolicy.Old,
    duplicate_window: 120 * 1000 * NS,
  });
  await ensureStream(jsm, {
    name: names.verdictsStream,
    subjects: [`${names.prefix}.verdicts.>`],
    retention: RetentionPolicy.Workqueue,
    storage: StorageType.File,
    num_replicas: replicas,
    max_msg_size: maxMsgBytes,
    duplicate_window: 120 * 1000 * NS,
  });
  await ensureStream(jsm, {
    name: names.ledgerStream,
    subjects: [`${names.prefix}.ledger.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: replicas,
    max_msg_size: maxMsgBytes,
  });
  // Proofs are only ever added, in chunks; nothing a worker may publish removes one (certify/proof-store.ts):
  // no rollup headers, and a full store refuses new proofs rather than dropping old ones.
  await ensureStream(jsm, {
    name: names.proofsStream,
    subjects: [`${names.prefix}.proofs.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    num_replicas: replicas,
    max_msg_size: 2 * PROOF_CHUNK_BYTES,
    discard: DiscardPolicy.New,
    allow_rollup_hdrs: false,
    duplicate_window: 120 * 1000 * NS,
  });
  const kvm = new Kvm(nc);
  const runs = await kvm.create(names.runsBucket, { replicas, history: 1 });
  const formulas = await new Objm(nc).create(names.formulasBucket, { replicas });
  return { names, js: jetstream(nc), runs, formulas, proofs: new ProofStream(nc, names, PROOF_UPLOADER_COORDINATOR, options.proofHandoffDir ?? null) };
}

/** The bucket of the coordinators' leader lease (coordinator/shell/leadership.ts), created if missing; workers never open it. */
export function ensureLeaderBucket(nc: NatsConnection, names: Names, replicas = 1): Promise<KV> {
  return new Kvm(nc).create(names.leaderBucket, { replicas, history: 1 });
}

/**
 * The verdict consumer of a leader's term (`<verdictsConsumer>-<term>`), made the only consumer of the verdict
 * stream: every other consumer on it is deleted first, so the previous leader's open pulls end with it and none of
 * its late acks can touch a message (they name a consumer that is gone). A work-queue stream keeps every message
 * not acked, and the new consumer delivers them all from the start. Returns the consumer's name.
 */
export async function takeVerdictConsumer(jsm: JetStreamManager, names: Names, term: number): Promise<string> {
  const name = `${names.verdictsConsumer}-${term}`;
  for await (const c of jsm.consumers.list(names.verdictsStream)) {
    if (c.name !== name) await jsm.consumers.delete(names.verdictsStream, c.name).catch((err: unknown) => { if (!isNotFound(err)) throw err; });
  }
  await ensureVerdictConsumer(jsm, names, name);
  return name;
}

/** The verdict stream's consumer `name`, created if missing (the leader's, or a test's that reads verdicts itself). */
export async function ensureVerdictConsumer(jsm: JetStreamManager, names: Names, name: string): Promise<void> {
  try {
    await jsm.consumers.info(names.verdictsStream, name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(names.verdictsStream, {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      ack_wait: 60 * 1000 * NS,
      max_ack_pending: 100_000,
      deliver_policy: DeliverPolicy.All,
    });
  }
}

/**
 * Opens an existing layout (workers, clients); `uploader` is the worker id its proofs are stored under. Fails if
 * the coordinator has not created it yet. `proofHandoffDir`: as LayoutOptions's.
 */
export async function openLayout(nc: NatsConnection, names: Names, uploader: string, proofHandoffDir: string | null = null): Promise<Layout> {
  const runs = await new Kvm(nc).open(names.runsBucket);
  const formulas = await new Objm(nc).open(names.formulasBucket);
  return { names, js: jetstream(nc), runs, formulas, proofs: new ProofStream(nc, names, uploader, proofHandoffDir) };
}

export interface RunConsumerOptions {
  /** How long a worker may hold a cube without a heartbeat before JetStream redelivers it. */
  ackWaitMs: number;
  /** Deliveries of one cube before it is given up (then the coordinator marks it failed). */
  maxDeliver: number;
}

/**
 * The run's pull consumers on the cube stream with their subjects, in the order workers ask them: the lead queue (a
 * portfolio member going on), the front queue (cubes that go before the rest: a re-split's children), the main one.
 */
export function runQueues(names: Names, run: string): Array<{ consumer: string; subject: string }> {
  return [
    { consumer: names.leadConsumer(run), subject: names.leadSubject(run) },
    { consumer: names.frontConsumer(run), subject: names.frontSubject(run) },
    { consumer: names.runConsumer(run), subject: names.cubesSubject(run) },
  ];
}

/** The run's pull consumers on the cube stream (runQueues), shared by every worker. */
export async function ensureRunConsumer(jsm: JetStreamManager, names: Names, run: string, options: RunConsumerOptions): Promise<void> {
  for (const q of runQueues(names, run)) await ensureConsumer(jsm, names, q.consumer, q.subject, options);
}

async function ensureConsumer(jsm: JetStreamManager, names: Names, durable: string, subject: string, options: RunConsumerOptions): Promise<void> {
  try {
    await jsm.consumers.info(names.cubesStream, durable);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(names.cubesStream, {
      durable_name: durable,
      filter_subject: subject,
      ack_policy: AckPolicy.Explicit,
      ack_wait: options.ackWaitMs * NS,
      max_deliver: options.maxDeliver,
      max_ack_pending: 100_000,
      // Every worker slot keeps one pull waiting on its top run; the server's default (512) would cap slots per run.
      max_waiting: 8192,
      deliver_policy: DeliverPolicy.All,
    });
  }
}

export async function deleteRunConsumer(jsm: JetStreamManager, names: Names, run: string): Promise<void> {
  for (const { consumer } of runQueues(names, run)) {
    try {
      await jsm.consumers.delete(names.cubesStream, consumer);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * The last tokens of the subjects a stream holds under `prefix` (`prefix` + `wildcard`): one request for the stream's
 * subject counts, where listing through a consumer would make one each time.
 */
export async function subjectsUnder(jsm: JetStreamManager, stream: string, prefix: string, wildcard: "*" | ">"): Promise<string[]> {
  const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}${wildcard}` });
  const subjects = (info.state.subjects ?? {}) as Record<string, number>;
  return Object.keys(subjects).map((s) => s.slice(prefix.length));
}

/** Removes every task of the run still in the cube stream (every queue's subject). */
export async function purgeRunTasks(jsm: JetStreamManager, names: Names, run: string): Promise<void> {
  for (const { subject } of runQueues(names, run)) await jsm.streams.purge(names.cubesStream, { filter: subject });
}
