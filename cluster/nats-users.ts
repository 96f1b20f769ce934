/**
 * NATS identities for a Cubist installation (docs/operations.md, "Identities and leases"): the users of the
 * account that holds Cubist's streams, as nats-server configuration text.
 *
 * - The coordinator's user has the whole account (it creates streams, reads the ledger, publishes tasks).
 * - Each worker has its own user, allowed only what a worker does: pull tasks from the runs' consumers and ack,
 *   nak or extend the ones it pulled; publish its own verdicts (`<p>.verdicts.*.<worker>`), heartbeats
 *   (`<p>.workers.<worker>`) and proofs (`<p>.proofs.*.<worker>`); watch the runs bucket and download formulas
 *   (read-only JetStream calls on those two), and read proofs through consumers of its own (a check task's proof). It may subscribe only to cancels and to its own inbox prefix
 *   (`_INBOX_<worker>`, which `cubist worker` uses), so it sees no other worker's tasks and no lease it was not
 *   given. It has no JetStream call on the cube, verdict, ledger or proofs streams that reads a message directly
 *   (STREAM.MSG.GET, DIRECT.GET), deletes or purges, nor one that creates a consumer on the first three; it cannot
 *   publish tasks or cancels.
 *
 * Used by `cubist nats users` (cli/commands/nats-users.ts), the embedded local cluster (cli/local-cluster.ts), the
 * deploy files and the identity tests, so all of them stay the same.
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

/**
 * The read-only JetStream calls of a stream whose every message a worker may read (the runs bucket, the formula
 * store): stream info, direct reads, and the ordered consumers behind a watch or a download (created, looked at
 * and deleted by the client, with flow control).
 */
function readOnlyStream(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.CREATE.${stream}`,
    `$JS.API.CONSUMER.CREATE.${stream}.>`,
    `$JS.API.CONSUMER.INFO.${stream}.*`,
    `$JS.API.CONSUMER.DELETE.${stream}.*`,
    `$JS.FC.${stream}.>`,
  ];
}

/** What a worker's NATS user may publish and subscribe to. */
export function workerPermissions(names: Names, workerId: string): Permissions {
  if (!WORKER_ID_RE.test(workerId)) throw new Error(`invalid worker id "${workerId}": use 1-64 letters, digits, _ or -`);
  const cubes = names.cubesStream;
  return {
    publish: [
      // What it sends: verdicts, heartbeats and (certified runs) proofs, each only under its own id.
      names.verdictsSubject("*", workerId),
      names.workerSubject(workerId),
      names.proofSubject("*", workerId),
      // Finding the layout: the account, and that the cube and verdict streams exist (no message is read).
      "$JS.API.INFO",
      `$JS.API.STREAM.INFO.${cubes}`,
      `$JS.API.STREAM.INFO.${names.verdictsStream}`,
      // Tasks: only through the runs' shared consumers, which lease them; then ack, nak, term or extend them.
      `$JS.API.CONSUMER.INFO.${cubes}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${cubes}.*`,
      `$JS.ACK.${cubes}.>`,
      ...readOnlyStream(`KV_${names.runsBucket}`),
      ...readOnlyStream(`OBJ_${names.formulasBucket}`),
      // Check tasks (certified runs): reading a proof through a consumer of its own (cluster/proof-stream.ts), and
      // how many messages a proof has; no direct read of a message, no delete or purge.
      `$JS.API.STREAM.INFO.${names.proofsStream}`,
      `$JS.API.CONSUMER.CREATE.${names.proofsStream}`,
      `$JS.API.CONSUMER.CREATE.${names.proofsStream}.>`,
      `$JS.API.CONSUMER.INFO.${names.proofsStream}.*`,
      `$JS.API.CONSUMER.MSG.NEXT.${names.proofsStream}.*`,
      `$JS.API.CONSUMER.DELETE.${names.proofsStream}.*`,
    ],
    subscribe: [names.cancelWildcard(), `${workerInboxPrefix(workerId)}.>`],
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

/**
 * A whole nats-server `accounts` block holding one installation: account CUBIST, with JetStream, and these users.
 * There is no `no_auth_user`, so a client without credentials is refused. (The embedded cluster and the tests;
 * the deploy files add a system account and include the users from a file.)
 */
export function accountsConfig(users: readonly UserEntry[]): string {
  return `accounts {\n  CUBIST {\n    jetstream: enabled\n${usersConfig(users, "    ")}\n  }\n}\n`;
}
