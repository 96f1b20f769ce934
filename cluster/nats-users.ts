/**
 * NATS identities for a Cubist installation (docs/operations.md, "Identities and leases"): the users of the
 * account that holds Cubist's streams, as nats-server configuration text.
 *
 * - The coordinator's user has the whole account (it creates streams, reads the ledger, publishes tasks).
 * - Each worker has its own user, allowed to publish only what a worker needs: its own verdicts
 *   (`<p>.verdicts.*.<worker>`) and heartbeats (`<p>.workers.<worker>`), pulls from the runs' consumers, acks of
 *   the tasks it pulled, and the read-only JetStream calls behind the runs bucket and the formula store. It may
 *   subscribe only to cancels and to its own inbox prefix (`_INBOX_<worker>`, which `cubist worker` uses), so it
 *   sees no other worker's tasks and no lease it was not given; it cannot read the cube stream, the verdicts or the
 *   ledger, create consumers on them, or publish tasks or cancels.
 *
 * Used by `cubist nats-users` (cli/commands/nats-users.ts), the deploy files and the identity tests, so all three
 * stay the same.
 */

import type { Names } from "../proto/contract.js";
import { WORKER_ID_RE } from "../proto/contract.js";

/** The inbox prefix a worker uses for replies (its NATS user may subscribe only there). */
export function workerInboxPrefix(workerId: string): string {
  return `_INBOX_${workerId}`;
}

export interface Permissions {
  publish: string[];
  subscribe: string[];
}

/** What a worker's NATS user may publish and subscribe to. */
export function workerPermissions(names: Names, workerId: string): Permissions {
  if (!WORKER_ID_RE.test(workerId)) throw new Error(`invalid worker id "${workerId}": use 1-64 letters, digits, _ or -`);
  const p = names.prefix;
  const cubes = names.cubesStream;
  const kv = `KV_${names.runsBucket}`;
  const obj = `OBJ_${names.formulasBucket}`;
  const readOnly = (stream: string): string[] => [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    // Ordered consumers (the runs watch, formula downloads): created, looked at and deleted by the client.
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.FC.${stream}.>`,
  ];
  return {
    publish: [
      names.verdictsSubject("*", workerId),
      names.workerSubject(workerId),
      "$JS.API.INFO",
      `$JS.API.STREAM.INFO.${cubes}`,
      `$JS.API.STREAM.INFO.${names.verdictsStream}`,
      `$JS.API.CONSUMER.INFO.${cubes}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${cubes}.*`,
      `$JS.ACK.${cubes}.>`,
      ...readOnly(kv),
      ...readOnly(obj),
      // Certified runs: the DRAT proof of each refuted cube goes to the proofs store (chunks and meta; the
      // coordinator hashes every proof against its name and checks it against the cube it built itself).
      ...readOnly(`OBJ_${names.proofsBucket}`),
      `$O.${names.proofsBucket}.C.>`,
      `$O.${names.proofsBucket}.M.>`,
    ],
    subscribe: [`${p}.cancel.>`, `${workerInboxPrefix(workerId)}.>`],
  };
}

/** A user entry of the accounts block. `password` is written as is: a literal or a `$VARIABLE` reference. */
export interface UserEntry {
  user: string;
  password: string;
  permissions?: Permissions;
}

function quote(s: string): string {
  return s.startsWith("$") && /^\$[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : JSON.stringify(s);
}

function list(items: string[], indent: string): string {
  return `[\n${items.map((x) => `${indent}  ${JSON.stringify(x)}`).join("\n")}\n${indent}]`;
}

/** The `users: [...]` list of the Cubist account in nats-server configuration syntax. */
export function usersConfig(users: readonly UserEntry[], indent = ""): string {
  const lines = [`${indent}users: [`];
  for (const u of users) {
    if (!u.permissions) {
      lines.push(`${indent}  { user: ${JSON.stringify(u.user)}, password: ${quote(u.password)} }`);
      continue;
    }
    const i = `${indent}      `;
    lines.push(
      `${indent}  {`,
      `${indent}    user: ${JSON.stringify(u.user)}, password: ${quote(u.password)}`,
      `${indent}    permissions: {`,
      `${i}publish: { allow: ${list(u.permissions.publish, i)} }`,
      `${i}subscribe: { allow: ${list(u.permissions.subscribe, i)} }`,
      `${indent}    }`,
      `${indent}  }`,
    );
  }
  lines.push(`${indent}]`);
  return lines.join("\n");
}

/** Users of one installation: the coordinator (whole account) and one user per worker, named after the worker. */
export function cubistUsers(names: Names, coordinator: { user: string; password: string }, workers: ReadonlyArray<{ id: string; password: string }>): UserEntry[] {
  return [
    { user: coordinator.user, password: coordinator.password },
    ...workers.map((w) => ({ user: w.id, password: w.password, permissions: workerPermissions(names, w.id) })),
  ];
}
