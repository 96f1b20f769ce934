/**
 * Serving the CubistService over gRPC: optional TLS (certificate + key, optionally a CA for client
 * certificates), a bearer token for every call that is not a read (and for reads too when `authReads` is set),
 * and message size limits so that a huge request is refused while the coordinator keeps serving. Which token
 * applies (the configured one, one generated for a non-loopback bind, or none on loopback) is decided by
 * coordinator/serve/auth.ts `apiTokensFor`.
 */

import { fileProblem, readSmallFile } from "../../cluster/read-bounded.js";
import {
  Server, ServerCredentials, status as Status, type Metadata, type ServerUnaryCall, type ServerWritableStream,
  type UntypedHandleCall, type sendUnaryData,
} from "@grpc/grpc-js";
import { CubistServiceService, type CubistServiceServer } from "../../proto/gen/cubist/v1/api.js";
import { InvalidOptionError } from "../../core/errors.js";
import type { Logger } from "../../cluster/log.js";
import { bearerOk } from "./auth.js";

export interface GrpcServerOptions {
  /** HOST:PORT; port 0 picks a free one. */
  listen: string;
  /** Bearer token; when unset, no call needs one (coordinator/serve/auth.ts decides it). */
  token?: string;
  /** Require the token for read calls too. @default false */
  authReads?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  /** CA for client certificates (mutual TLS). */
  tlsClientCa?: string;
  /** Largest request accepted by gRPC itself; our own field limits are smaller. @default DEFAULT_GRPC_RECEIVE_BYTES */
  maxReceiveBytes?: number;
  log: Logger;
}

/** The largest request gRPC itself accepts unless told otherwise: 8 MiB. */
export const DEFAULT_GRPC_RECEIVE_BYTES = 8 * 1024 * 1024;

/**
 * The calls that only read. Every other call changes state (submit, pause, resume, priority, cancel, delete,
 * re-split) and needs the token; a call added to the service later needs it too until it is listed here.
 */
export const READ_CALLS: ReadonlySet<string> = new Set(["getRun", "listRuns", "watchRun", "listCubes", "getSolution", "getBestBoard", "getCertificate", "listRunEvents"]);

/** True when the call needs the bearer token. */
export function callNeedsToken(name: string, authReads: boolean): boolean {
  return authReads || !READ_CALLS.has(name);
}

const REFUSED = "needs a valid bearer token (authorization: Bearer <token>)";

function tokenOk(metadata: Metadata, token: string): boolean {
  return bearerOk(metadata.get("authorization")[0], token);
}

/** Wraps every handler that needs it with the token check. */
function withAuth(impl: CubistServiceServer, opts: GrpcServerOptions): CubistServiceServer {
  if (!opts.token) return impl;
  const token = opts.token;
  const refuse = (name: string, peer: string): { code: Status; details: string } => {
    opts.log.warn("call refused: missing or wrong bearer token", { call: name, peer });
    return { code: Status.UNAUTHENTICATED, details: `${name} ${REFUSED}` };
  };
  const wrapped: Record<string, UntypedHandleCall> = {};
  for (const [name, handler] of Object.entries(impl)) {
    if (!callNeedsToken(name, opts.authReads === true)) {
      wrapped[name] = handler as UntypedHandleCall;
      continue;
    }
    if (CubistServiceService[name as keyof typeof CubistServiceService].responseStream) {
      wrapped[name] = ((call: ServerWritableStream<unknown, unknown>) => {
        if (!tokenOk(call.metadata, token)) {
          const { code, details } = refuse(name, call.getPeer());
          call.destroy(Object.assign(new Error(details), { code, details }));
          return;
        }
        (handler as (c: typeof call) => void)(call);
      }) as UntypedHandleCall;
      continue;
    }
    wrapped[name] = ((call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
      if (!tokenOk(call.metadata, token)) {
        cb(refuse(name, call.getPeer()));
        return;
      }
      (handler as (c: typeof call, cb: sendUnaryData<unknown>) => void)(call, cb);
    }) as UntypedHandleCall;
  }
  return wrapped as unknown as CubistServiceServer;
}

function credentials(opts: GrpcServerOptions): ServerCredentials {
  if (!opts.tlsCert && !opts.tlsKey) return ServerCredentials.createInsecure();
  if (!opts.tlsCert || !opts.tlsKey) throw new InvalidOptionError("--grpc-tls-cert/--grpc-tls-key", "both are needed for TLS");
  const read = (f: string, what: string): Buffer => {
    try {
      return readSmallFile(f);
    } catch (err) {
      throw new InvalidOptionError(what, `${f}: ${fileProblem(err)}`);
    }
  };
  const ca = opts.tlsClientCa ? read(opts.tlsClientCa, "--grpc-tls-client-ca") : null;
  return ServerCredentials.createSsl(ca, [{ cert_chain: read(opts.tlsCert, "--grpc-tls-cert"), private_key: read(opts.tlsKey, "--grpc-tls-key") }], ca !== null);
}

export interface GrpcServer {
  /** The bound port. */
  readonly port: number;
  close(): Promise<void>;
}

export async function startGrpcServer(impl: CubistServiceServer, opts: GrpcServerOptions): Promise<GrpcServer> {
  const server = new Server({
    "grpc.max_receive_message_length": opts.maxReceiveBytes ?? DEFAULT_GRPC_RECEIVE_BYTES,
    "grpc.max_send_message_length": 64 * 1024 * 1024,
  });
  server.addService(CubistServiceService, withAuth(impl, opts));
  const creds = credentials(opts);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(opts.listen, creds, (err, p) => (err ? reject(new InvalidOptionError("--grpc", `cannot listen on ${opts.listen}: ${err.message}`)) : resolve(p)));
  });
  opts.log.info("gRPC API listening", { address: opts.listen.replace(/:\d+$/, `:${port}`), tls: Boolean(opts.tlsCert), auth: Boolean(opts.token) });
  let closing: Promise<void> | null = null;
  return {
    port,
    close() {
      if (!closing) {
        closing = new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            server.forceShutdown();
            resolve();
          }, 2000);
          server.tryShutdown(() => {
            clearTimeout(force);
            resolve();
          });
        });
      }
      return closing;
    },
  };
}

export type { Metadata };
