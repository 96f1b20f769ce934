/**
 * Starts a private nats-server child process with JetStream: on a free port (the server picks it, `-p -1`, and
 * reports it in a ports file), with a temporary store directory unless one is given. Used by the embedded local
 * cluster (`cubist solve --workers N`) and by the integration tests. `restart()` keeps the port and the store, so
 * clients reconnect to the same URL and JetStream state survives, as after a real server restart. The server runs
 * through host/child.ts, in its own process group: stopped with SIGTERM, then SIGKILL after 5 s, always reaped.
 */

import { CubistError } from "../core/errors.js";
import { spawnChild, type Child } from "../host/child.js";
import { mkdtemp, readdir, readFile, rm, mkdir, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface NatsServerOptions {
  /** Binary path; default `nats-server` on PATH. */
  binary?: string;
  /** Client port; default: a free port chosen by the server. */
  port?: number;
  /** JetStream store directory; default: a new temp dir, removed on stop(). */
  storeDir?: string;
  /** Host to bind; default 127.0.0.1. */
  host?: string;
  /** Extra configuration file text (nats-server config syntax), e.g. authorization or cluster blocks. */
  config?: string;
  /** Extra command-line arguments. */
  args?: string[];
  /** Time to wait for the server to come up. Default 10 s. */
  startTimeoutMs?: number;
  /** Where the server's log goes; default: kept in memory (last 64 KB) and shown when start fails. */
  logFile?: string;
}

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  readonly pid: number;
  /**
   * Stops the server (SIGTERM, then SIGKILL after 5 s) and removes the temp store if we created it. `now`: SIGKILL
   * at once, for a store that is thrown away anyway (JetStream's orderly shutdown costs ~60 ms).
   */
  stop(options?: { now?: boolean }): Promise<void>;
  /** Stops the server and starts it again on the same port with the same store. */
  restart(): Promise<void>;
  /** Kills the server with SIGKILL (a crash) without cleaning up; `start()` brings it back. */
  kill(): Promise<void>;
  /** Starts a stopped or killed server again (same port, same store). */
  start(): Promise<void>;
  /** The server's recent output (for error messages). */
  log(): string;
}

/** nats-server could not be started on this machine (missing, refused its options, no port in time). */
export class NatsServerStartError extends CubistError {
  override readonly name = "NatsServerStartError";
  override readonly fault = "worker";
}

/** How long a stopping server may take before it is killed. */
const STOP_GRACE_MS = 5000;

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServer> {
  const binary = options.binary ?? "nats-server";
  const host = options.host ?? "127.0.0.1";
  const ownStore = options.storeDir === undefined;
  const workDir = await mkdtemp(join(tmpdir(), "cubist-nats-"));
  const storeDir = options.storeDir ?? join(workDir, "store");
  await mkdir(storeDir, { recursive: true });
  const portsDir = join(workDir, "ports");
  await mkdir(portsDir, { recursive: true });
  let configPath: string | undefined;
  if (options.config) {
    configPath = join(workDir, "nats.conf");
    // It may hold passwords (the embedded cluster's users): readable by its owner only.
    await writeFile(configPath, options.config, { mode: 0o600 });
  }

  let port = options.port ?? -1;
  let child: Child | undefined;
  let logText = "";
  let stopped = false;

  const launch = async (): Promise<void> => {
    for (const f of await readdir(portsDir)) await rm(join(portsDir, f), { force: true });
    const args = ["-a", host, "-p", String(port), "-js", "-sd", storeDir, "--ports_file_dir", portsDir];
    if (configPath) args.push("-c", configPath);
    if (options.logFile) args.push("-l", options.logFile);
    args.push(...(options.args ?? []));
    const onData = (d: Buffer): void => {
      logText = (logText + d.toString()).slice(-65536);
    };
    const proc = spawnChild(binary, args, { onStdout: onData, onStderr: onData, killGraceMs: STOP_GRACE_MS });
    child = proc;
    const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
    for (;;) {
      if (proc.state === "exited") {
        const { spawnError, code } = await proc.exited;
        if (spawnError?.code === "ENOENT") throw new NatsServerStartError(`nats-server not found ("${binary}"); run scripts/setup.sh to install it`);
        if (spawnError) throw new NatsServerStartError(`cannot start nats-server: ${spawnError.message}`);
        throw new NatsServerStartError(`nats-server exited during start (code ${code}):\n${logText.trim()}`);
      }
      const file = join(portsDir, `nats-server_${proc.pid}.ports`);
      if (existsSync(file)) {
        try {
          const info = JSON.parse(await readFile(file, "utf8")) as { nats?: string[] };
          const u = info.nats?.[0];
          if (u) {
            port = Number(new URL(u).port);
            return;
          }
        } catch {
          // partially written: retry
        }
      }
      if (Date.now() > deadline) {
        proc.kill();
        await proc.exited;
        throw new NatsServerStartError(`nats-server did not report its port within the start timeout:\n${logText.trim()}`);
      }
      await Promise.race([sleep(20), proc.exited]);
    }
  };

  /** Stops the server (SIGTERM, SIGKILL after the grace; `now`: SIGKILL at once) and waits until it is reaped. */
  const terminate = async (now: boolean): Promise<void> => {
    const proc = child;
    if (!proc) return;
    if (now) proc.kill();
    else proc.stop();
    await proc.exited;
  };

  await launch();

  const handle: NatsServer = {
    get url() {
      return `nats://${host}:${port}`;
    },
    get port() {
      return port;
    },
    storeDir,
    get pid() {
      return child?.pid ?? -1;
    },
    async stop(stopOptions?: { now?: boolean }) {
      if (stopped) return;
      stopped = true;
      await terminate(stopOptions?.now === true);
      if (ownStore) await rm(workDir, { recursive: true, force: true });
      else await rm(portsDir, { recursive: true, force: true }).then(() => rm(workDir, { recursive: true, force: true }));
    },
    async restart() {
      await terminate(false);
      await launch();
    },
    async kill() {
      await terminate(true);
    },
    async start() {
      if (child && child.state !== "exited") return;
      await launch();
    },
    log() {
      return logText;
    },
  };
  return handle;
}
