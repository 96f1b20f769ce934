/**
 * Test hosts made of Linux network namespaces: each "host" is a namespace joined to this machine by a veth pair,
 * with addresses on a private /24 that exists only between the two ends (the host side holds `.1`, host i holds
 * `.(10+i)`). Processes run inside with `ip netns exec`; `cut` and `restore` take a host's link down and up.
 * Needs root and iproute2 (`netnsUnavailable` says why not). Every name carries the creating pid and a random
 * tag, so runs never collide, and `close` (or a later run, for namespaces whose creator died) removes them all.
 */

import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { cubistCommand, REPO_ROOT, trackChild, type CubistProcess } from "./processes.js";

const run = promisify(execFile);

/** Runs `ip ARGS`; throws with ip's stderr on failure. */
export async function ip(...args: string[]): Promise<string> {
  try {
    return (await run("ip", args, { timeout: 10_000 })).stdout;
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`ip ${args.join(" ")}: ${(e.stderr ?? "").trim() || e.message}`, { cause: err });
  }
}

const NS_PREFIX = "cubist-t";

/**
 * Null when namespaces can be made here, else the reason they cannot (not root, no `ip`, or the kernel or
 * sandbox refuses `ip netns add`).
 */
export async function netnsUnavailable(): Promise<string | null> {
  if (process.platform !== "linux") return `network namespaces are Linux only (this is ${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return `not running as root (uid ${process.getuid()})`;
  try {
    await run("ip", ["-V"], { timeout: 5000 });
  } catch {
    return "the ip command (iproute2) is not installed";
  }
  const probe = `${NS_PREFIX}-${process.pid}-probe${randomBytes(2).toString("hex")}`;
  try {
    await ip("netns", "add", probe);
  } catch (err) {
    return `ip netns add is refused here: ${(err as Error).message}`;
  }
  await ip("netns", "del", probe).catch(() => undefined);
  return null;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Kills every process in a namespace (SIGKILL) and waits a little for them to go. */
async function killNamespaceProcesses(ns: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const pids = (await ip("netns", "pids", ns).catch(() => "")).split(/\s+/).filter(Boolean).map(Number);
    if (pids.length === 0) return;
    for (const p of pids) {
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Removes namespaces left by test runs whose process is gone (a crash, a SIGKILLed runner). */
export async function sweepStaleNamespaces(): Promise<string[]> {
  const out = await ip("netns", "list").catch(() => "");
  const removed: string[] = [];
  for (const line of out.split("\n")) {
    const name = line.split(/\s+/)[0];
    const m = new RegExp(`^${NS_PREFIX}-(\\d+)-`).exec(name ?? "");
    if (!m || pidAlive(Number(m[1]))) continue;
    await killNamespaceProcesses(name);
    await ip("netns", "del", name).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

/** A test host: a namespace and its link. */
export interface NetnsHost {
  /** Namespace name (for `ip netns exec`). */
  readonly ns: string;
  /** The veth end on this machine (what `cut` takes down). */
  readonly hostDev: string;
  /** The veth end inside the namespace. */
  readonly nsDev: string;
  /** The host's address. */
  readonly address: string;
}

/** A process running in a namespace. */
/** A process in a namespace: the same handle as a local `cubist` process. */
export type NetnsProcess = CubistProcess;

export interface NetnsLab {
  /** The first three octets of the /24, e.g. "10.213.7". */
  readonly subnet: string;
  /** This machine's address on every link (`.1`): where servers for the hosts listen. */
  readonly hostAddress: string;
  readonly hosts: readonly NetnsHost[];
  /** Takes the host's link down (on this machine's side): its TCP connections stall, nothing reaches it. */
  cut(host: NetnsHost): Promise<void>;
  /** Brings the link back up (and its route, which going down removed). */
  restore(host: NetnsHost): Promise<void>;
  /** Runs `node <cubist cli> ...args` inside the host's namespace. */
  spawnCubist(host: NetnsHost, args: string[], env?: NodeJS.ProcessEnv): NetnsProcess;
  /** Kills every process in the namespaces, deletes the links and the namespaces. Idempotent. */
  close(): Promise<void>;
}

/** A /24 in 10.200.0.0-10.250.255.0 that no address or route on this machine touches. */
async function freeSubnet(): Promise<string> {
  const used = (await ip("-o", "addr")) + (await ip("route"));
  for (let i = 0; i < 100; i++) {
    const b = randomBytes(2);
    const subnet = `10.${200 + (b[0] % 51)}.${b[1]}`;
    if (!used.includes(`${subnet}.`)) return subnet;
  }
  throw new Error("no free 10.x.y.0/24 for the test hosts");
}

/** Creates `count` namespace hosts. On failure everything made so far is removed. */
export async function createNetnsLab(count: number): Promise<NetnsLab> {
  await sweepStaleNamespaces();
  const tag = randomBytes(3).toString("hex");
  const subnet = await freeSubnet();
  const hostAddress = `${subnet}.1`;
  const hosts: NetnsHost[] = [];
  const processes: NetnsProcess[] = [];
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const p of processes) p.kill("SIGKILL");
      await Promise.all(processes.map((p) => p.exited));
      for (const h of hosts) {
        await killNamespaceProcesses(h.ns);
        await ip("link", "del", h.hostDev).catch(() => undefined);
        await ip("netns", "del", h.ns).catch(() => undefined);
      }
    })();
    return closing;
  };
  const route = (h: NetnsHost): Promise<string> => ip("route", "replace", `${h.address}/32`, "dev", h.hostDev, "src", hostAddress);
  try {
    for (let i = 0; i < count; i++) {
      const h: NetnsHost = {
        ns: `${NS_PREFIX}-${process.pid}-${tag}-${i}`,
        hostDev: `cbh${tag}${i}`,
        nsDev: `cbw${tag}${i}`,
        address: `${subnet}.${10 + i}`,
      };
      await ip("netns", "add", h.ns);
      hosts.push(h);
      await ip("link", "add", h.hostDev, "type", "veth", "peer", "name", h.nsDev, "netns", h.ns);
      // The same .1 on every host-side end; a /32 route per host picks the link.
      await ip("addr", "add", `${hostAddress}/32`, "dev", h.hostDev);
      await ip("link", "set", h.hostDev, "up");
      await ip("-n", h.ns, "addr", "add", `${h.address}/24`, "dev", h.nsDev);
      await ip("-n", h.ns, "link", "set", h.nsDev, "up");
      await ip("-n", h.ns, "link", "set", "lo", "up");
      await route(h);
    }
  } catch (err) {
    await close();
    throw err;
  }
  return {
    subnet,
    hostAddress,
    hosts,
    async cut(h) {
      await ip("link", "set", h.hostDev, "down");
    },
    async restore(h) {
      await ip("link", "set", h.hostDev, "up");
      await route(h);
    },
    spawnCubist(h, args, env = {}) {
      const p = spawnInNamespace(h.ns, [process.execPath, ...cubistCommand(), ...args], env);
      processes.push(p);
      return p;
    },
    close,
  };
}

/** Spawns `command...` in namespace `ns` (ip netns exec replaces itself with the command: same pid). */
export function spawnInNamespace(ns: string, command: string[], env: NodeJS.ProcessEnv = {}): NetnsProcess {
  return trackChild(spawn("ip", ["netns", "exec", ns, ...command], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] }));
}
