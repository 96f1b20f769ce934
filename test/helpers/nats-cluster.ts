/**
 * Test fixture: a clustered nats-server with JetStream on loopback, the way a real deployment runs it (three
 * servers with `cluster { name, listen, routes }`, each with its own store and server name). Client ports are
 * chosen by the servers; cluster ports are picked up front (routes must name them) and kept across restarts.
 * `startNatsCluster` returns once JetStream has a meta leader and a replicated stream can be created.
 */

import { freePort } from "../../cluster/free-port.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { connectNats } from "../../cluster/nats.js";
import { startNatsServer, type NatsServer } from "../../cli/nats-launcher.js";

export interface NatsClusterNode {
  /** Server name (`server_name`), also what stream info reports as a leader or replica. */
  readonly name: string;
  readonly server: NatsServer;
  /** Its cluster (route) port. */
  readonly clusterPort: number;
}

export interface NatsCluster {
  readonly name: string;
  readonly nodes: readonly NatsClusterNode[];
  /** Client URLs of every node. */
  readonly urls: readonly string[];
  /** Comma-separated client URLs: what `--nats` takes. */
  readonly url: string;
  /** A client connection to every node (closed with the cluster). */
  connect(name?: string): Promise<NatsConnection>;
  /** The node with this server name. */
  node(name: string): NatsClusterNode;
  /** Resolves when JetStream answers and a replicated stream can be created (after start or a node loss). */
  waitReady(timeoutMs?: number): Promise<void>;
  /** Closes the connections and stops every node, removing the stores. Idempotent. */
  close(): Promise<void>;
}

export interface NatsClusterOptions {
  /** Number of servers. @default 3 */
  size?: number;
  /** How long `waitReady` waits at start. @default 30000 */
  readyTimeoutMs?: number;
}

export class NatsClusterNotReadyError extends Error {
  override readonly name = "NatsClusterNotReadyError";
}

/** The nats-server configuration text of one node. */
export function clusterConfig(opts: { serverName: string; clusterName: string; clusterPort: number; routePorts: readonly number[] }): string {
  const routes = opts.routePorts.map((p) => `    nats-route://127.0.0.1:${p}`).join("\n");
  return `server_name: ${opts.serverName}
cluster {
  name: ${opts.clusterName}
  listen: 127.0.0.1:${opts.clusterPort}
  routes: [
${routes}
  ]
}
`;
}

/** Tries once to get JetStream account info and to create (then delete) an R<size> stream. */
async function probe(jsm: JetStreamManager, size: number): Promise<void> {
  await jsm.getAccountInfo();
  const name = `PROBE_${randomBytes(4).toString("hex")}`;
  await jsm.streams.add({ name, subjects: [`probe.${name}`], num_replicas: size, storage: StorageType.Memory, retention: RetentionPolicy.Limits });
  await jsm.streams.delete(name);
}

export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const clusterName = `cubist-test-${randomBytes(3).toString("hex")}`;
  const clusterPorts: number[] = [];
  while (clusterPorts.length < size) {
    const p = await freePort();
    if (!clusterPorts.includes(p)) clusterPorts.push(p);
  }
  const base = await mkdtemp(join(tmpdir(), "cubist-nats-cluster-"));
  const nodes: NatsClusterNode[] = [];
  const connections: NatsConnection[] = [];
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
      await Promise.all(nodes.map((n) => n.server.stop()));
      await rm(base, { recursive: true, force: true });
    })();
    return closing;
  };
  try {
    // Started together: a node waits for its peers before JetStream comes up, and each reports its port at once.
    const started = await Promise.all(
      clusterPorts.map(async (clusterPort, i) => {
        const name = `n${i + 1}`;
        const server = await startNatsServer({
          storeDir: join(base, name),
          config: clusterConfig({ serverName: name, clusterName, clusterPort, routePorts: clusterPorts }),
        });
        return { name, server, clusterPort };
      }),
    );
    nodes.push(...started);
  } catch (err) {
    await close();
    throw err;
  }
  const urls = nodes.map((n) => n.server.url);
  const connect = async (name = "cubist-test"): Promise<NatsConnection> => {
    const c = await connectNats({ servers: urls.join(","), name });
    connections.push(c);
    return c;
  };
  const waitReady = async (timeoutMs = options.readyTimeoutMs ?? 30_000): Promise<void> => {
    const nc = await connectNats({ servers: urls.join(","), name: "cubist-test-probe" });
    const deadline = Date.now() + timeoutMs;
    let last: unknown;
    try {
      for (;;) {
        try {
          await probe(await jetstreamManager(nc, { timeout: 2000 }), size);
          return;
        } catch (err) {
          last = err;
        }
        if (Date.now() > deadline) {
          throw new NatsClusterNotReadyError(`JetStream cluster not ready within ${timeoutMs} ms: ${(last as Error)?.message}`);
        }
        await sleep(250);
      }
    } finally {
      await nc.close().catch(() => undefined);
    }
  };
  const cluster: NatsCluster = {
    name: clusterName,
    nodes,
    urls,
    url: urls.join(","),
    connect,
    node(name) {
      const n = nodes.find((x) => x.name === name);
      if (!n) throw new Error(`no node named ${name} (have ${nodes.map((x) => x.name).join(", ")})`);
      return n;
    },
    waitReady,
    close,
  };
  try {
    await waitReady();
  } catch (err) {
    const logs = nodes.map((n) => `--- ${n.name}\n${n.server.log().slice(-2000)}`).join("\n");
    await close();
    throw new NatsClusterNotReadyError(`${(err as Error).message}\n${logs}`);
  }
  return cluster;
}
