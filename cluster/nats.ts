/**
 * Connecting to NATS the same way in every process: unlimited reconnects (a week-long run must survive server
 * restarts; the client's default gives up after 10 attempts), credentials and TLS from one options object, and
 * clear errors when the server is unreachable or has no JetStream.
 */

import { CubistError } from "../core/errors.js";
import { fileProblem, readSmallFile } from "./read-bounded.js";
import { connect, credsAuthenticator, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";

export interface NatsOptions {
  /** Server URL(s), comma-separated. */
  servers: string;
  /** Connection name shown in server monitoring. */
  name?: string;
  user?: string;
  pass?: string;
  token?: string;
  /** Path of a .creds file (JWT + nkey seed). */
  credsFile?: string;
  /** TLS: CA bundle to trust, and a client certificate + key for mutual TLS. */
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
  /** Prefix of reply subjects (`_INBOX` by default); a worker uses its own (cluster/nats-users.ts). */
  inboxPrefix?: string;
  /** Fail at start when the first connection does not succeed within this time. @default 5000 */
  connectTimeoutMs?: number;
  /**
   * Time between two client pings: a connection is given up as dead (then reconnected) once three pings in a row go
   * unanswered, so a silent network cut is noticed after about three to four intervals. @default DEFAULT_PING_INTERVAL_MS
   */
  pingIntervalMs?: number;
}

/** Client ping interval: a cut-off process notices its dead connection after 30 to 40 s. */
export const DEFAULT_PING_INTERVAL_MS = 10_000;

/** NATS could not be reached (or refused us) at start. */
export class NatsUnavailableError extends CubistError {
  override readonly name = "NatsUnavailableError";
  override readonly fault = "transient";
}

/** The server answers but JetStream is not enabled for this account. */
export class JetStreamUnavailableError extends CubistError {
  override readonly name = "JetStreamUnavailableError";
  override readonly fault = "transient";
}

/** The file's bytes (at most 1 MiB: cluster/read-bounded.ts); a missing, unreadable or huge file names `what`. */
function readable(path: string, what: string): Buffer {
  try {
    return readSmallFile(path);
  } catch (err) {
    throw new NatsUnavailableError(`${what} ${path}: ${fileProblem(err)}`);
  }
}

/** Connects with unlimited reconnects; throws NatsUnavailableError with the URL and reason on failure. */
export async function connectNats(options: NatsOptions): Promise<NatsConnection> {
  const servers = options.servers.split(",").map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw new NatsUnavailableError("no NATS server URL given (--nats)");
  const tls = options.tlsCa || options.tlsCert || options.tlsKey
    ? { caFile: options.tlsCa, certFile: options.tlsCert, keyFile: options.tlsKey }
    : undefined;
  if (options.tlsCa) readable(options.tlsCa, "NATS TLS CA");
  if (options.tlsCert) readable(options.tlsCert, "NATS TLS certificate");
  if (options.tlsKey) readable(options.tlsKey, "NATS TLS key");
  let authenticator;
  if (options.credsFile) {
    authenticator = credsAuthenticator(new Uint8Array(readable(options.credsFile, "NATS credentials file")));
  }
  try {
    return await connect({
      servers,
      name: options.name,
      user: options.user,
      pass: options.pass,
      token: options.token,
      authenticator,
      tls,
      inboxPrefix: options.inboxPrefix,
      timeout: options.connectTimeoutMs ?? 5000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      reconnectJitter: 200,
      pingInterval: options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS,
      maxPingOut: 3,
      waitOnFirstConnect: false,
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    throw new NatsUnavailableError(`cannot connect to NATS at ${servers.join(",")}: ${e.message}`, { cause: err });
  }
}

/** A JetStream manager, or JetStreamUnavailableError when the server has no JetStream. */
export async function requireJetStream(nc: NatsConnection): Promise<JetStreamManager> {
  try {
    const jsm = await jetstreamManager(nc, { timeout: 5000 });
    await jsm.getAccountInfo();
    return jsm;
  } catch (err) {
    throw new JetStreamUnavailableError(
      `JetStream is not available on ${nc.getServer()}: ${(err as Error).message} (start nats-server with -js)`,
      { cause: err },
    );
  }
}
