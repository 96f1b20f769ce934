/**
 * Test fixture: a private nats-server with JetStream (random port, temp store) plus a client connection and the
 * cluster layout, created the way the coordinator creates it. `withNats` runs a function against a fresh one and
 * always tears it down; `startTestNats` hands back the pieces for suites that share one server across tests.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { ensureLayout, type Layout } from "../../cluster/layout.js";
import { connectNats, requireJetStream, type NatsOptions } from "../../cluster/nats.js";
import { startNatsServer, type NatsServer, type NatsServerOptions } from "../../cli/nats-launcher.js";
import { createNames, type Names } from "../../proto/contract.js";

export interface TestNats {
  readonly server: NatsServer;
  readonly url: string;
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  readonly names: Names;
  /** The layout (streams, verdict consumer, buckets); absent with `layout: false`. */
  readonly layout: Layout;
  /** Another client connection (closed with the fixture), e.g. for a worker under test; `options` add credentials. */
  connect(name?: string, options?: Partial<NatsOptions>): Promise<NatsConnection>;
  /** Closes every connection and stops the server (removing its store). Idempotent. */
  close(): Promise<void>;
}

export interface TestNatsOptions {
  /** Name prefix of streams, buckets and subjects. @default "cubist" */
  prefix?: string;
  /** Create the layout (as the coordinator would). @default true */
  layout?: boolean;
  server?: NatsServerOptions;
  /** A server already started (e.g. the embedded cluster's, cli/local-cluster.ts) instead of a new one; stopped by close(). */
  running?: NatsServer;
  /** Credentials of the fixture's own connections (a server configured with users). */
  auth?: Partial<NatsOptions>;
}

export async function startTestNats(options: TestNatsOptions = {}): Promise<TestNats> {
  const server = options.running ?? (await startNatsServer(options.server));
  const connections: NatsConnection[] = [];
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
      await server.stop();
    })();
    return closing;
  };
  try {
    const connect = async (name = "cubist-test", extra: Partial<NatsOptions> = {}): Promise<NatsConnection> => {
      const c = await connectNats({ servers: server.url, name, ...options.auth, ...extra });
      connections.push(c);
      return c;
    };
    const nc = await connect("cubist-test");
    const jsm = await requireJetStream(nc);
    const names = createNames(options.prefix);
    const layout = options.layout === false ? (undefined as unknown as Layout) : await ensureLayout(nc, jsm, names);
    return { server, url: server.url, nc, jsm, names, layout, connect, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Runs `fn` against a fresh server and layout, and tears everything down afterwards. */
export async function withNats<T>(fn: (t: TestNats) => Promise<T>, options: TestNatsOptions = {}): Promise<T> {
  const t = await startTestNats(options);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}
