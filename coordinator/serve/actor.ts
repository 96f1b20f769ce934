/**
 * Who asked for a manual action, as the run's timeline names them (coordinator/model/run-timeline.ts): the caller's
 * address, and the user the CLI says it runs as (metadata "cubist-user", `user@host`). The name is the caller's own
 * claim, shown as such; it grants nothing (the API token does, serve/auth.ts).
 */

import type { IncomingMessage } from "node:http";
import type { Metadata } from "@grpc/grpc-js";

/** The metadata key the CLI sends its user in. */
export const USER_METADATA_KEY = "cubist-user";

/** Printable, short: a claim from outside must not break a log line or a terminal. */
function clean(s: string, max: number): string {
  return s.replace(/[^\x21-\x7e]/g, "").slice(0, max);
}

/** A gRPC caller: "alice@laptop (grpc 10.0.0.7)", or "grpc 10.0.0.7" without a user. */
export function grpcActor(metadata: Metadata, peer: string): string {
  const user = clean(String(metadata.get(USER_METADATA_KEY)[0] ?? ""), 100);
  const where = `grpc ${clean(peer.replace(/^ipv[46]:/, "").replace(/:\d+$/, ""), 100)}`;
  return user ? `${user} (${where})` : where;
}

/** A dashboard caller: "dashboard 10.0.0.7". */
export function httpActor(req: IncomingMessage): string {
  return `dashboard ${clean(req.socket.remoteAddress ?? "", 100)}`;
}
