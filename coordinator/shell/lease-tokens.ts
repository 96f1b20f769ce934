/**
 * Lease tokens: the random token each cube task carries (coordinator/model/leases.ts says what a lease means and which
 * verdicts it admits). Random bits are drawn here, in the shell, and handed to the run model as its `lease` option, so
 * the model stays free of I/O and tests can give it tokens of their own.
 */
import { randomBytes } from "node:crypto";

const LEASE_BYTES = 16;
let pool = Buffer.alloc(0);
let used = 0;

/** A fresh lease token: 128 random bits, base64url (22 characters). Drawn from a pooled buffer: 200,000 per split. */
export function newLease(): string {
  if (used + LEASE_BYTES > pool.length) {
    pool = randomBytes(LEASE_BYTES * 1024);
    used = 0;
  }
  used += LEASE_BYTES;
  return pool.toString("base64url", used - LEASE_BYTES, used);
}
