/**
 * The NATS side of the wire contract: stream, consumer, bucket and subject names. The payloads are the
 * ts-proto messages in proto/gen/cubist/v1 (generated from proto/cubist/v1/*.proto).
 *
 * Everything lives under one prefix (default "cubist") so several installations can share a NATS account:
 *
 *   stream  <P>_CUBES      subjects <p>.cubes.<run>        work queue: one message per queued cube (CubeTask)
 *                          and <p>.cubes.<run>.front       cubes that go before the rest (children of a manual re-split)
 *   stream  <P>_VERDICTS   subjects <p>.verdicts.<run>.<worker>  work queue: worker answers (Verdict), consumed by the coordinator
 *   stream  <P>_LEDGER     subjects <p>.ledger.<run>       limits: the coordinator's durable record of each run
 *   KV      <p>-runs       key <run>                       RunRecord (spec + status) — workers watch it
 *   KV      <p>-leader     key leader                      the coordinators' leader lease (JSON LeaderRecord)
 *   objects <p>-formulas   name <sha256>                   DIMACS of a run's base formula, puzzle texts
 *   stream  <P>_PROOFS     subjects <p>.proofs.<sha256>.<uploader>  limits: DRAT proofs of certified runs, in chunks
 *                          (certify/proof-store.ts); a worker may add proofs only under its own id, never delete one
 *   core    <p>.cancel.<run>[.<cube>]                      stop solvers (Cancel)
 *   core    <p>.workers.<worker>                           worker heartbeats (WorkerStatus)
 *
 * Run ids and cube ids are restricted to [A-Za-z0-9_-] and "." (cube ids only), so they are safe as subject tokens
 * (cube ids use "." as the tree separator, which is why a cancel for one cube is <p>.cancel.<run>.<cube...>).
 */

export interface Names {
  readonly prefix: string;
  readonly cubesStream: string;
  readonly verdictsStream: string;
  readonly ledgerStream: string;
  readonly runsBucket: string;
  /** KV bucket of the coordinators' leader lease (key `leader`; coordinator/shell/leadership.ts). */
  readonly leaderBucket: string;
  readonly formulasBucket: string;
  /** Stream of the DRAT proofs of certified runs (certify/proof-store.ts). */
  readonly proofsStream: string;
  /** The verdict consumer's base name: the leader of term T consumes through `<verdictsConsumer>-<T>`. */
  readonly verdictsConsumer: string;
  cubesSubject(run: string): string;
  /** Where `worker` publishes its verdicts for `run` (per-worker NATS users may publish only on their own). */
  verdictsSubject(run: string, worker: string): string;
  ledgerSubject(run: string): string;
  /** Where `uploader` (a worker id, or PROOF_UPLOADER_COORDINATOR) stores the proof whose SHA-256 is `sha256`. */
  proofSubject(sha256: string, uploader: string): string;
  cancelSubject(run: string, cube?: string): string;
  cancelWildcard(): string;
  workerSubject(worker: string): string;
  workerWildcard(): string;
  runConsumer(run: string): string;
  /** The subject and consumer of the run's front queue: workers ask it before the run's main consumer. */
  frontSubject(run: string): string;
  frontConsumer(run: string): string;
  /**
   * The subject and consumer of the run's lead queue: a portfolio member going on (coordinator/model/scan-member.ts),
   * which workers ask before the front queue, so it does not wait behind a re-split's children.
   */
  leadSubject(run: string): string;
  leadConsumer(run: string): string;
  maxDeliveriesAdvisory(run: string): string;
}

export const DEFAULT_PREFIX = "cubist";

/**
 * Worker liveness: a worker whose last heartbeat (WorkerStatus) is older than WORKER_SILENCE_MS is not live (its
 * cubes are no longer shown running), and the coordinator forgets it after WORKER_FORGET_MS. Workers send
 * heartbeats at most MAX_STATUS_INTERVAL_MS apart, so one lost heartbeat never makes a live worker look dead.
 */
export const WORKER_SILENCE_MS = 10_000;
export const WORKER_FORGET_MS = 30_000;
export const MAX_STATUS_INTERVAL_MS = WORKER_SILENCE_MS / 2;

/** Cubes one ListCubes call (or dashboard cube list) returns when the caller sets no limit, and at most. */
export const DEFAULT_CUBE_LIMIT = 1000;
export const MAX_CUBE_LIMIT = 100_000;

const PREFIX_RE = /^[a-z][a-z0-9_-]{0,31}$/;
export const RUN_ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
export const CUBE_ID_RE = /^[A-Za-z0-9_-]+(\.[0-9]+){0,64}$/;
/**
 * A scan run's portfolio member's id (a whole-board task in one of the trees `cubist solve` searches, not a cube:
 * coordinator/model/scan-trees.ts): its scan order, pinned corner piece and direction. Workers know a member's task
 * by it (worker/slot.ts: the slot waits for the member's next attempt in the lead queue).
 */
export const MEMBER_ID_RE = /^member-(short|long)(?:-c([1-3]))?(-m)?$/;

/** Whether `id` is a portfolio member's (MEMBER_ID_RE). */
export function isMemberId(id: string): boolean {
  return MEMBER_ID_RE.test(id);
}
/**
 * Worker ids: one subject token of `<p>.workers.<worker>` (no "."), starting with a letter or digit so that it never
 * reads as a flag, at most 64 characters. The worker refuses another id at start; the coordinator drops heartbeats
 * whose id does not match (coordinator/shell/heartbeats.ts).
 */
export const WORKER_ID_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** What WORKER_ID_RE allows, for error messages. */
export const WORKER_ID_RULE = "1-64 letters, digits, _ or -, starting with a letter or digit (it is a NATS subject token)";

/** The uploader token of the coordinator's own proofs (coverage): never a worker id, which cannot start with "_". */
export const PROOF_UPLOADER_COORDINATOR = "_coordinator";

/**
 * Header names of a proof's chunk messages on `<p>.proofs.<sha256>.<uploader>` (certify/proof-uploads.ts says how
 * a reader uses them).
 */
export const PROOF_HEADERS = Object.freeze({
  /** The upload's id (random hex), the same on all its chunks. */
  upload: "Cubist-Proof-Upload",
  /** The chunk's index in its upload, from 0. */
  chunk: "Cubist-Proof-Chunk",
  /** On the last chunk only: the proof's size in bytes. */
  size: "Cubist-Proof-Size",
  /** On the first chunk: what the proof is (for an operator looking at the stream). */
  description: "Cubist-Proof-Description",
});

/** Bytes of proof per chunk message at most (JetStream's own Object Store uses the same). */
export const PROOF_CHUNK_BYTES = 128 * 1024;

export function createNames(prefix: string = DEFAULT_PREFIX): Names {
  if (!PREFIX_RE.test(prefix)) {
    throw new Error(`invalid prefix "${prefix}": use 1-32 lowercase letters, digits, _ or -, starting with a letter`);
  }
  const P = prefix.toUpperCase().replace(/-/g, "_");
  return {
    prefix,
    cubesStream: `${P}_CUBES`,
    verdictsStream: `${P}_VERDICTS`,
    ledgerStream: `${P}_LEDGER`,
    runsBucket: `${prefix}-runs`,
    leaderBucket: `${prefix}-leader`,
    formulasBucket: `${prefix}-formulas`,
    proofsStream: `${P}_PROOFS`,
    verdictsConsumer: "coordinator",
    cubesSubject: (run) => `${prefix}.cubes.${run}`,
    verdictsSubject: (run, worker) => `${prefix}.verdicts.${run}.${worker}`,
    ledgerSubject: (run) => `${prefix}.ledger.${run}`,
    proofSubject: (sha256, uploader) => `${prefix}.proofs.${sha256}.${uploader}`,
    cancelSubject: (run, cube) => (cube ? `${prefix}.cancel.${run}.${cube}` : `${prefix}.cancel.${run}`),
    cancelWildcard: () => `${prefix}.cancel.>`,
    workerSubject: (w) => `${prefix}.workers.${w}`,
    workerWildcard: () => `${prefix}.workers.*`,
    runConsumer: (run) => `run-${run}`,
    frontSubject: (run) => `${prefix}.cubes.${run}.front`,
    frontConsumer: (run) => `front-${run}`,
    leadSubject: (run) => `${prefix}.cubes.${run}.lead`,
    leadConsumer: (run) => `lead-${run}`,
    maxDeliveriesAdvisory: (run) => `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${P}_CUBES.run-${run}`,
  };
}
