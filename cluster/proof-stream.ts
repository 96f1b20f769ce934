/**
 * The proofs stream (`<P>_PROOFS`, created by cluster/layout.ts) as one identity sees it: DRAT proofs of certified
 * runs, each stored in chunks on `<p>.proofs.<sha256>.<uploader>` (certify/proof-uploads.ts has the format;
 * certify/proof-store.ts stores and reads whole proofs through this).
 *
 * Workers add proofs and can do nothing else to them: their NATS users may publish only on their own uploader
 * subject (cluster/nats-users.ts) and on none of the JetStream calls that delete, purge or read messages, and the
 * stream refuses rollup headers, so no message removes another. (The Object Store this replaces could not be made
 * so: its put and its delete are both a publish on the same meta subject.) Reading and deleting need the
 * coordinator's user.
 *
 * A coordinator and workers in one process on one machine (the embedded cluster of `cubist solve`, cli/local-cluster.ts)
 * hand proofs over as files instead (`handoffDir`): a proof is stored as the file `<handoffDir>/<sha256>`
 * (certify/proof-store.ts moves it there and reads it from there, hashing it again), so its bytes do not cross NATS
 * twice. The reader's checks are the same: the bytes must hash to the name and stay under the limit.
 */

import { randomBytes } from "node:crypto";
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg, type PubAck } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { PROOF_HEADERS, type Names } from "../proto/contract.js";
import { NatsUnavailableError } from "./nats.js";
import { isSha256Hex } from "../core/sha256.js";

/** Chunk publishes awaiting JetStream's ack at once, per upload. */
const PUBLISH_WINDOW = 16;
/** A reading that receives nothing for this long gives up (NATS away). */
const READ_IDLE_MS = 30_000;

/** `uploader` is the worker id (or PROOF_UPLOADER_COORDINATOR) under which this handle stores proofs. */
export class ProofStream {
  private readonly js: JetStreamClient;
  private jsm: Promise<JetStreamManager> | null = null;

  constructor(
    private readonly nc: NatsConnection,
    readonly names: Names,
    readonly uploader: string,
    /** Where proofs are handed over as files (the module comment), or null: through the stream. */
    readonly handoffDir: string | null = null,
  ) {
    this.js = jetstream(nc);
  }

  private manager(): Promise<JetStreamManager> {
    const jsm = (this.jsm ??= jetstreamManager(this.nc));
    jsm.catch(() => {
      if (this.jsm === jsm) this.jsm = null;
    });
    return jsm;
  }

  private filter(name: string): string {
    return this.names.proofSubject(name, "*");
  }

  /** Stores `chunks` as one upload of proof `name` under this handle's uploader; resolves once JetStream has them all. */
  async publishUpload(name: string, chunks: AsyncIterable<Uint8Array>, description: string): Promise<void> {
    const subject = this.names.proofSubject(name, this.uploader);
    const upload = randomBytes(16).toString("hex");
    const inFlight = new Set<Promise<PubAck>>();
    const send = async (data: Uint8Array, index: number, size: number | null): Promise<void> => {
      const h = headers();
      h.set(PROOF_HEADERS.upload, upload);
      h.set(PROOF_HEADERS.chunk, String(index));
      if (index === 0) h.set(PROOF_HEADERS.description, description.replace(/[\r\n]/g, " "));
      if (size !== null) h.set(PROOF_HEADERS.size, String(size));
      // Message ids make a publish that JetStream stored but whose ack got lost harmless to send again.
      const p = this.js.publish(subject, data, { headers: h, msgID: `${upload}.${index}`, timeout: 10_000 });
      inFlight.add(p);
      p.then(() => inFlight.delete(p), () => undefined);
      if (inFlight.size >= PUBLISH_WINDOW) await Promise.race(inFlight);
    };
    let failure: { err: unknown } | null = null;
    try {
      // One chunk is held back, so that the last one is known when it goes out (it carries the size).
      let held: Uint8Array | null = null;
      let index = 0;
      let bytes = 0;
      for await (const chunk of chunks) {
        if (held !== null) await send(held, index++, null);
        held = chunk;
        bytes += chunk.length;
      }
      await send(held ?? new Uint8Array(0), index, bytes);
    } catch (err) {
      failure = { err };
    }
    // Every publish is settled before this returns or throws.
    const rejected = (await Promise.allSettled(inFlight)).find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failure !== null) throw failure.err;
    if (rejected) throw rejected.reason;
  }

  /** Messages stored under `name` now, every uploader's: 0 when the proof is not in the store. */
  async count(name: string): Promise<number> {
    if (this.handoffDir !== null) return stat(join(this.handoffDir, name)).then(() => 1, () => 0);
    const jsm = await this.manager();
    const info = await jsm.streams.info(this.names.proofsStream, { subjects_filter: this.filter(name) });
    return Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  }

  /** Every message under `name`, every uploader's, in stream order, up to the last one there when reading began. */
  async *messages(name: string): AsyncGenerator<JsMsg> {
    const consumer = await this.js.consumers.get(this.names.proofsStream, { filter_subjects: this.filter(name) });
    const iter = await consumer.consume();
    let idle = false;
    const stall = (): void => {
      idle = true;
      iter.stop();
    };
    let timer = setTimeout(stall, READ_IDLE_MS);
    try {
      for await (const msg of iter) {
        clearTimeout(timer);
        timer = setTimeout(stall, READ_IDLE_MS);
        yield msg;
        if (msg.info.pending === 0) return;
      }
      if (idle) throw new NatsUnavailableError(`proof ${name.slice(0, 12)}: nothing received from the proofs stream for ${READ_IDLE_MS / 1000} s`);
    } finally {
      clearTimeout(timer);
      iter.stop();
    }
  }

  /** Removes every upload of proof `name`; true when there was one. */
  async delete(name: string): Promise<boolean> {
    // Only a name can be deleted: a wildcard in it would purge other proofs.
    if (!isSha256Hex(name)) return false;
    if (this.handoffDir !== null) return rm(join(this.handoffDir, name)).then(() => true, () => false);
    const jsm = await this.manager();
    const r = await jsm.streams.purge(this.names.proofsStream, { filter: this.filter(name) });
    return r.purged > 0;
  }
}
