/**
 * The bearer tokens of the coordinator's two APIs: the gRPC API (grpc-server.ts, the `authorization` metadata) and
 * the dashboard's HTTP API (http-server.ts, the `Authorization` header), `Bearer <token>`, compared in constant time.
 *
 * Which token a server requires (`apiTokensFor`): the configured one (`--auth-token`, `--auth-token-file`) on both;
 * without one, a server bound to a loopback address requires none, and a server bound to any other address gets a
 * generated token, one for both servers, logged once, so that an API reachable from other machines never takes
 * anonymous writes.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { parseListen } from "../../cluster/http.js";
import type { Logger } from "../../cluster/log.js";
import { isLoopbackHost } from "./http-guard.js";

export function bearerOk(header: unknown, token: string): boolean {
  if (typeof header !== "string") return false;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token each API server requires; undefined: none. */
export interface ApiTokens {
  readonly grpc?: string;
  readonly http?: string;
}

/** The servers' bind addresses (HOST:PORT), null for a server that is not started. */
export interface ApiBinds {
  readonly grpc: string | null;
  readonly http: string | null;
}

/** True when `listen` (HOST:PORT; an empty host is every address) is reachable from this machine only. */
export function isLoopbackBind(listen: string): boolean {
  return isLoopbackHost(parseListen(listen).host);
}

/** The tokens of the API servers (see the module note); a generated one is logged here, once. */
export function apiTokensFor(binds: ApiBinds, configured: string | undefined, log: Logger): ApiTokens {
  if (configured) return { grpc: configured, http: configured };
  const grpcOpen = binds.grpc !== null && !isLoopbackBind(binds.grpc);
  const httpOpen = binds.http !== null && !isLoopbackBind(binds.http);
  if (!grpcOpen && !httpOpen) return {};
  const made = randomBytes(18).toString("base64url");
  log.warn(
    "the API is bound to a non-loopback address without --auth-token: its mutating calls (cubist run submit, pause, resume, priority, cancel, delete, cube resplit; the dashboard's buttons) need this generated token (shown once; clients pass it with --token or CUBIST_AUTH_TOKEN; set --auth-token or --auth-token-file to choose one)",
    { ...(grpcOpen ? { grpc: binds.grpc } : {}), ...(httpOpen ? { http: binds.http } : {}), token: made },
  );
  return { grpc: grpcOpen ? made : undefined, http: httpOpen ? made : undefined };
}
