/**
 * A heartbeat's proof that its worker holds a task (RunningCube.lease_proof): the first 16 bytes of
 * SHA-256(lease ":" worker id), in hex. Only a worker that pulled the task knows its lease; heartbeats go out on core
 * NATS where other clients may read them, so they carry this proof instead of the lease itself, and the proof of one
 * worker does not serve another. The coordinator computes it from the lease it recorded (coordinator/shell/heartbeats.ts).
 */

import { createHash } from "node:crypto";

export function leaseProof(lease: string, workerId: string): string {
  return createHash("sha256").update(`${lease}:${workerId}`).digest("hex").slice(0, 32);
}
