/**
 * Shared by the static checks of the deployment files (test/integration/deploy-*.test.ts): the files under deploy/,
 * their YAML documents, compose interpolation, and each cubist container's command line parsed by the CLI's own
 * parser with its listen ports; the NATS configurations' variables, users and settings.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { COMMON_OPTIONS, parseCommand, type CommandSpec, type ParsedValues } from "../../cli/args.js";
import { spec as coordinatorSpec } from "../../cli/commands/coordinator.js";
import { spec as workerSpec } from "../../cli/commands/worker.js";
import { DEFAULT_COORDINATOR_HTTP, SUGGESTED_WORKER_HTTP } from "../../cluster/http.js";
import { REPO_ROOT } from "./processes.js";

export const DEPLOY = join(REPO_ROOT, "deploy");
export const COMPOSE_DIR = join(DEPLOY, "compose");
export const K8S = join(DEPLOY, "k8s");
export const SPECS: Record<string, CommandSpec> = { coordinator: coordinatorSpec, worker: workerSpec };
export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function filesUnder(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, re));
    else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}

export function yamlDocs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"), { merge: true }).map((d) => d.toJS() as Obj).filter((d) => d !== null);
}

/** Compose interpolation: `${X:-default}` gives the default, a required `${X:?msg}` a placeholder value. */
export function interpolate(s: string): string {
  return s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_, _name, op: string | undefined, arg: string | undefined) =>
    op?.endsWith("-") ? (arg ?? "") : "placeholder-secret-value");
}

export function hostPort(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(":");
  return { host: listen.slice(0, i), port: Number(listen.slice(i + 1)) };
}

/** What a cubist container runs: the parsed command line (through the CLI's own parser) and its listen ports. */
export interface CubistProcess {
  where: string;
  command: string;
  values: ParsedValues;
  /** Role (grpc, http) -> host and port it listens on. */
  listens: Map<string, { host: string; port: number }>;
}

export function checkCubist(where: string, argv: string[], env: Record<string, string>): CubistProcess {
  const command = argv[0];
  const spec = SPECS[command];
  assert.ok(spec, `${where}: "${command}" is not a long-running cubist command (coordinator, worker)`);
  const known = new Map(Object.entries({ ...COMMON_OPTIONS, ...spec.options }).filter(([, o]) => o.env).map(([n, o]) => [o.env!, n]));
  for (const name of Object.keys(env)) {
    if (name.startsWith("CUBIST_")) assert.ok(known.has(name), `${where}: ${name} is not an environment variable of cubist ${command}`);
  }
  let values: ParsedValues;
  try {
    values = parseCommand(spec, argv.slice(1), env).values;
  } catch (err) {
    assert.fail(`${where}: cubist ${argv.join(" ")}: ${(err as Error).message}`);
  }
  const listens = new Map<string, { host: string; port: number }>();
  if (command === "coordinator") {
    if (values.grpc !== "off") listens.set("grpc", hostPort(String(values.grpc)));
    const http = (values.http as string | undefined) ?? DEFAULT_COORDINATOR_HTTP;
    if (http !== "off") listens.set("http", hostPort(http));
  } else if (typeof values.http === "string" && values.http !== "off") {
    listens.set("http", hostPort(values.http));
  }
  for (const [role, l] of listens) {
    assert.ok(Number.isInteger(l.port) && l.port > 0 && l.port < 65536, `${where}: ${role} port ${l.port}`);
    assert.equal(l.host, "0.0.0.0", `${where}: ${role} must listen on 0.0.0.0 in a container (127.0.0.1 is unreachable from outside)`);
  }
  return { where, command, values, listens };
}

export function ports(p: CubistProcess): number[] {
  return [...p.listens.values()].map((l) => l.port).sort();
}

/** Ports the worker's HTTP uses in compose and Kubernetes: the CLI's suggested one. */
export const WORKER_HTTP_PORT = hostPort(SUGGESTED_WORKER_HTTP).port;

// ---- NATS configurations --------------------------------------------------------------------------------------

/** The `$VAR` references of a NATS configuration (outside comments and quoted strings such as "$JS.API.>"). */
export function natsVars(conf: string): string[] {
  const text = conf.split("\n").filter((l) => !/^\s*#/.test(l)).join("\n").replace(/"[^"\n]*"/g, '""');
  return [...new Set([...text.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))].sort();
}

/** A NATS configuration file with the files it includes appended (what nats-server reads). */
export function natsConfig(file: string): string {
  const text = readFileSync(file, "utf8");
  const included = [...text.matchAll(/^\s*include\s+"?([^"\s]+)"?/gm)].map((m) => natsConfig(resolve(dirname(file), m[1])));
  return [text, ...included].join("\n");
}

/** The users of the Cubist account in a NATS configuration: name -> permissions block text ("" for none). */
export function natsUsers(conf: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = conf.split(/\buser:\s*/).slice(1);
  for (const p of parts) {
    const name = /^"?([^",\s}]+)"?/.exec(p)![1];
    const next = p.search(/\n\s*\{|\n\s*\]/);
    out.set(name, p.slice(0, next < 0 ? undefined : next).includes("permissions") ? p.slice(0, next < 0 ? undefined : next) : "");
  }
  return out;
}

/** The worker's NATS user exists, is named after the worker, and may publish only its own verdicts and heartbeats. */
export function checkWorkerIdentity(where: string, p: CubistProcess, users: Map<string, string>): void {
  const id = String(p.values.id);
  assert.equal(p.values["nats-user"], id, `${where}: the NATS user is the worker id`);
  const perms = users.get(id);
  assert.ok(perms, `${where}: NATS user ${id} exists`);
  assert.ok(perms.includes(`"cubist.verdicts.*.${id}"`) && perms.includes(`"cubist.workers.${id}"`), `${where}: ${id} publishes its own verdicts and heartbeats`);
  assert.ok(!/"cubist\.verdicts\.>"|"\$JS\.API\.>"|"_INBOX\.>"|"cubist\.>"|">"/.test(perms), `${where}: ${id} has no wildcard rights`);
}

export function natsSettings(conf: string) {
  const port = (re: RegExp): number => Number(re.exec(conf)?.[1]);
  const routes = [...conf.matchAll(/nats-route:\/\/([^:\s]+):(\d+)/g)].map((m) => ({ host: m[1], port: Number(m[2]) }));
  return { client: port(/^listen:\s*[^:\s]+:(\d+)/m), http: port(/^http:\s*[^:\s]+:(\d+)/m), cluster: port(/cluster\s*\{[^}]*?listen:\s*[^:\s]+:(\d+)/s), routes };
}

