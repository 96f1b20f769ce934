/**
 * Static checks of the deployment files (no Docker engine, no Kubernetes cluster needed): every YAML parses; every
 * cubist command line and CUBIST_* variable in compose and Kubernetes is accepted by the real CLI parser with the
 * command's own spec; the ports published, probed, scraped and routed to are the ports the processes listen on;
 * the NATS URLs and routes name the NATS nodes that exist; the kustomization lists files that exist; every NATS
 * configuration passes `nats-server -t`; the Kubernetes scrape configuration passes `promtool check config`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { COMMON_OPTIONS, parseCommand, type CommandSpec, type ParsedValues } from "../../cli/args.js";
import { spec as coordinatorSpec } from "../../cli/commands/coordinator.js";
import { spec as workerSpec } from "../../cli/commands/worker.js";
import { run as natsUsersRun, spec as natsUsersSpec, workerPasswordVariable } from "../../cli/commands/nats-users.js";
import { CLIENT_OPTIONS } from "../../cli/client.js";
import { DEFAULT_COORDINATOR_HTTP, SUGGESTED_WORKER_HTTP } from "../../cluster/http.js";
import { createNames } from "../../proto/contract.js";
import { REPO_ROOT } from "../helpers/processes.js";

const DEPLOY = join(REPO_ROOT, "deploy");
const COMPOSE_DIR = join(DEPLOY, "compose");
const K8S = join(DEPLOY, "k8s");
const SPECS: Record<string, CommandSpec> = { coordinator: coordinatorSpec, worker: workerSpec };
type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function filesUnder(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, re));
    else if (re.test(e.name)) out.push(p);
  }
  return out.sort();
}

function yamlDocs(file: string): Obj[] {
  return parseAllDocuments(readFileSync(file, "utf8"), { merge: true }).map((d) => d.toJS() as Obj).filter((d) => d !== null);
}

/** Compose interpolation: `${X:-default}` gives the default, a required `${X:?msg}` a placeholder value. */
function interpolate(s: string): string {
  return s.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_, _name, op: string | undefined, arg: string | undefined) =>
    op?.endsWith("-") ? (arg ?? "") : "placeholder-secret-value");
}

function hostPort(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(":");
  return { host: listen.slice(0, i), port: Number(listen.slice(i + 1)) };
}

/** What a cubist container runs: the parsed command line (through the CLI's own parser) and its listen ports. */
interface CubistProcess {
  where: string;
  command: string;
  values: ParsedValues;
  /** Role (grpc, http) -> host and port it listens on. */
  listens: Map<string, { host: string; port: number }>;
}

function checkCubist(where: string, argv: string[], env: Record<string, string>): CubistProcess {
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

function ports(p: CubistProcess): number[] {
  return [...p.listens.values()].map((l) => l.port).sort();
}

/** Ports the worker's HTTP uses in compose and Kubernetes: the CLI's suggested one. */
const WORKER_HTTP_PORT = hostPort(SUGGESTED_WORKER_HTTP).port;

// ---- NATS configurations --------------------------------------------------------------------------------------

/** The `$VAR` references of a NATS configuration (outside comments and quoted strings such as "$JS.API.>"). */
function natsVars(conf: string): string[] {
  const text = conf.split("\n").filter((l) => !/^\s*#/.test(l)).join("\n").replace(/"[^"\n]*"/g, '""');
  return [...new Set([...text.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]))].sort();
}

/** A NATS configuration file with the files it includes appended (what nats-server reads). */
function natsConfig(file: string): string {
  const text = readFileSync(file, "utf8");
  const included = [...text.matchAll(/^\s*include\s+"?([^"\s]+)"?/gm)].map((m) => natsConfig(resolve(dirname(file), m[1])));
  return [text, ...included].join("\n");
}

/** The users of the Cubist account in a NATS configuration: name -> permissions block text ("" for none). */
function natsUsers(conf: string): Map<string, string> {
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
function checkWorkerIdentity(where: string, p: CubistProcess, users: Map<string, string>): void {
  const id = String(p.values.id);
  assert.equal(p.values["nats-user"], id, `${where}: the NATS user is the worker id`);
  const perms = users.get(id);
  assert.ok(perms, `${where}: NATS user ${id} exists`);
  assert.ok(perms.includes(`"cubist.verdicts.*.${id}"`) && perms.includes(`"cubist.workers.${id}"`), `${where}: ${id} publishes its own verdicts and heartbeats`);
  assert.ok(!/"cubist\.verdicts\.>"|"\$JS\.API\.>"|"_INBOX\.>"|"cubist\.>"|">"/.test(perms), `${where}: ${id} has no wildcard rights`);
}

function natsSettings(conf: string) {
  const port = (re: RegExp): number => Number(re.exec(conf)?.[1]);
  const routes = [...conf.matchAll(/nats-route:\/\/([^:\s]+):(\d+)/g)].map((m) => ({ host: m[1], port: Number(m[2]) }));
  return { client: port(/^listen:\s*[^:\s]+:(\d+)/m), http: port(/^http:\s*[^:\s]+:(\d+)/m), cluster: port(/cluster\s*\{[^}]*?listen:\s*[^:\s]+:(\d+)/s), routes };
}

test("deploy files - every YAML file parses (multi-document too)", () => {
  const files = [...filesUnder(COMPOSE_DIR, /\.ya?ml$/), ...filesUnder(K8S, /\.ya?ml$/)];
  assert.ok(files.length >= 8, files.join(", "));
  for (const f of files) {
    for (const d of parseAllDocuments(readFileSync(f, "utf8"), { merge: true })) {
      assert.deepEqual(d.errors.map((e) => e.message), [], relative(REPO_ROOT, f));
      assert.deepEqual(d.warnings.map((e) => e.message), [], relative(REPO_ROOT, f));
    }
  }
});

test("deploy files - every NATS configuration passes nats-server -t with the variables its containers set", () => {
  const workers = (ids: string[]): Record<string, string> => Object.fromEntries(ids.map((id) => [workerPasswordVariable(id).slice(1), `w-${id}`]));
  const cases = [
    { file: join(COMPOSE_DIR, "nats/nats.conf"), env: { NATS_SERVER_NAME: "nats-1", CUBIST_NATS_PASS: "p1", NATS_SYS_PASS: "p2", ...workers(["worker-1", "worker-2", "worker-3", "worker-4"]) } },
    { file: join(K8S, "nats/nats.conf"), env: { POD_NAME: "nats-0", CUBIST_NATS_PASS: "p1", NATS_SYS_PASS: "p2", ...workers([0, 1, 2, 3].map((i) => `cubist-worker-${i}`)) } },
  ];
  for (const c of cases) {
    assert.deepEqual(natsVars(natsConfig(c.file)), Object.keys(c.env).sort(), `${c.file}: variables`);
    const out = execFileSync("nats-server", ["-t", "-c", c.file], { env: { PATH: process.env.PATH, ...c.env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    assert.match(out + "", /valid|^$/);
  }
});

test("deploy files - NATS takes no client without credentials: every user has a password from a variable, and there is no no_auth_user", () => {
  for (const file of [join(COMPOSE_DIR, "nats/nats.conf"), join(K8S, "nats/nats.conf")]) {
    const conf = natsConfig(file).split("\n").filter((l) => !/^\s*#/.test(l)).join("\n");
    assert.doesNotMatch(conf, /no_auth_user|^\s*authorization\s*\{/m, `${relative(REPO_ROOT, file)}: no anonymous or default user`);
    const entries = [...conf.matchAll(/\buser:\s*"?([^",\s}]+)"?\s*,\s*password:\s*(\S+)/g)];
    assert.equal(entries.length, conf.match(/\buser:/g)?.length, `${relative(REPO_ROOT, file)}: every user has a password`);
    assert.ok(entries.length >= 6, `${relative(REPO_ROOT, file)}: the coordinator, 4 workers and the system user (${entries.length})`);
    for (const [, user, password] of entries) assert.match(password, /^\$[A-Z_][A-Z0-9_]*$/, `${relative(REPO_ROOT, file)}: ${user}'s password comes from the environment`);
  }
});

test("deploy files - the NATS users files are what `cubist nats users` generates", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-nats-users-"));
  try {
    for (const [file, argv] of [
      [join(COMPOSE_DIR, "nats/cubist-users.conf"), ["--workers", "4", "--password-env"]],
      [join(K8S, "nats/cubist-users.conf"), ["--workers", "4", "--worker-prefix", "cubist-worker-", "--first", "0", "--password-env"]],
    ] as const) {
      const out = join(dir, "users.conf");
      await natsUsersRun(parseCommand(natsUsersSpec, [...argv, "-o", out], {}).values);
      assert.equal(readFileSync(file, "utf8"), readFileSync(out, "utf8"), `${relative(REPO_ROOT, file)}: regenerate with cubist nats users ${argv.join(" ")}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("deploy files - compose: cubist commands, variables, ports, NATS URLs and mounts agree with the CLI and each other", () => {
  const file = join(COMPOSE_DIR, "docker-compose.yml");
  const compose = parse(readFileSync(file, "utf8"), { merge: true }) as Obj;
  const services = compose.services as Record<string, Obj>;
  const envOf = (s: Obj): Record<string, string> => {
    const e = s.environment ?? {};
    const pairs: Array<[string, string]> = Array.isArray(e) ? e.map((x: string) => x.split("=", 2) as [string, string]) : Object.entries(e).map(([k, v]) => [k, String(v ?? "")]);
    return Object.fromEntries(pairs.map(([k, v]) => [k, interpolate(v ?? "")]));
  };
  const argvOf = (s: Obj): string[] => (Array.isArray(s.command) ? s.command.map(String) : String(s.command ?? "").split(/\s+/).filter(Boolean)).map(interpolate);

  // NATS: three nodes from one configuration, each with every variable it references.
  const natsConf = natsConfig(join(COMPOSE_DIR, "nats/nats.conf"));
  const nats = natsSettings(natsConf);
  const users = natsUsers(natsConf);
  const natsNodes = Object.keys(services).filter((n) => /^nats:/.test(interpolate(String(services[n].image ?? ""))));
  assert.deepEqual(natsNodes, ["nats-1", "nats-2", "nats-3"]);
  for (const n of natsNodes) {
    const env = envOf(services[n]);
    for (const v of natsVars(natsConf)) assert.ok(env[v], `${n} sets ${v}`);
    assert.equal(env.NATS_SERVER_NAME, n);
    assert.ok(services[n].volumes.some((v: string) => v.startsWith("./nats/nats.conf:")), `${n} mounts nats.conf`);
    assert.ok(services[n].volumes.some((v: string) => v.startsWith("./nats/cubist-users.conf:/etc/nats/cubist-users.conf")), `${n} mounts the users next to nats.conf`);
    assert.ok(services[n].healthcheck.test.join(" ").includes(`:${nats.http}/healthz`), `${n}: health check on the monitoring port`);
  }
  assert.deepEqual(nats.routes.map((r) => `${r.host}:${r.port}`), natsNodes.map((n) => `${n}:${nats.cluster}`), "routes name every node's cluster port");

  const procs = new Map<string, CubistProcess>();
  const workerServices: string[] = [];
  for (const [name, s] of Object.entries(services)) {
    if (s.build?.dockerfile !== "deploy/Dockerfile") continue;
    const env = envOf(s);
    const p = checkCubist(`compose service ${name}`, argvOf(s), env);
    procs.set(p.command, p);
    const urls = String(p.values.nats).split(",");
    assert.deepEqual(urls, natsNodes.map((n) => `nats://${n}:${nats.client}`), `${name}: --nats names every NATS node's client port`);
    if (p.command === "worker") {
      checkWorkerIdentity(`compose service ${name}`, p, users);
      assert.equal(p.values.id, name, `${name}: the service is named after its worker id`);
      workerServices.push(name);
    } else {
      assert.equal(p.values["nats-user"], "cubist");
      assert.equal(users.get("cubist"), "", "the coordinator's user has the whole account");
    }
    for (const m of s.ports ?? []) {
      const target = Number(String(m).split(":").pop());
      assert.ok(ports(p).includes(target), `${name}: published port ${m} is not one it listens on (${ports(p)})`);
      assert.match(String(m), /^127\.0\.0\.1:/, `${name}: ${m} is published on loopback only`);
    }
    const health = s.healthcheck?.test?.join(" ") ?? "";
    for (const m of health.matchAll(/127\.0\.0\.1:(\d+)/g)) assert.ok(ports(p).includes(Number(m[1])), `${name}: health check port ${m[1]}`);
    for (const d of Object.keys(s.depends_on ?? {})) assert.ok(services[d], `${name} depends on ${d}, which exists`);
  }
  const coordinator = procs.get("coordinator")!;
  const worker = procs.get("worker")!;
  assert.ok(coordinator && worker, "compose runs a coordinator and workers");
  assert.equal(coordinator.values.replicas, natsNodes.length, "--replicas equals the number of NATS nodes");
  assert.ok(coordinator.values["auth-token"] || coordinator.values["auth-token-file"], "the coordinator's API needs a token");
  assert.deepEqual(ports(worker), [WORKER_HTTP_PORT]);
  // One service per worker identity, every NATS worker user has one, none publishes a port.
  assert.deepEqual(workerServices, [...users].filter(([, perms]) => perms !== "").map(([u]) => u));
  for (const n of workerServices) {
    assert.equal(services[n].ports, undefined);
    assert.ok(Number.parseInt(String(services[n].stop_grace_period)) > Number(worker.values.grace), "stop_grace_period leaves room for --grace");
  }

  // Bind mounts exist; Prometheus and Grafana get the observability files at their agreed places.
  const mounts = Object.values(services).flatMap((s) => (s.volumes ?? []) as string[]).map((v) => v.split(":"));
  for (const [src] of mounts) {
    if (src.startsWith(".")) assert.ok(existsSync(resolve(COMPOSE_DIR, src)), `bind mount ${src} exists`);
    else assert.ok(compose.volumes && src in compose.volumes, `named volume ${src} is declared`);
  }
  const mountOf = (source: string): string | undefined => mounts.find((m) => m[0].startsWith(".") && resolve(COMPOSE_DIR, m[0]) === join(DEPLOY, source))?.[1];
  assert.equal(mountOf("prometheus/prometheus.yml"), "/etc/prometheus/prometheus.yml");
  assert.equal(mountOf("prometheus/rules"), "/etc/prometheus/rules/");
  assert.equal(mountOf("grafana/provisioning"), "/etc/grafana/provisioning/");
  // Where Grafana's dashboard provider looks, the dashboards are mounted.
  const providers = filesUnder(join(DEPLOY, "grafana/provisioning/dashboards"), /\.ya?ml$/).flatMap((f) => (parse(readFileSync(f, "utf8")) as Obj).providers as Obj[]);
  for (const pr of providers) assert.equal(mountOf("grafana/dashboards")?.replace(/\/$/, ""), pr.options.path.replace(/\/$/, ""), `dashboards mounted at ${pr.options.path}`);
  // Grafana's datasource and Prometheus' coordinator target are names and ports of this project's services.
  const listening = new Map<string, number[]>();
  for (const [n, s] of Object.entries(services)) {
    const own = procs.get(n === "coordinator" || n === "worker" ? n : "") ?? null;
    const p = own ? ports(own) : n === "prometheus" ? [9090] : [];
    for (const name of [n, ...((s.networks?.default?.aliases ?? []) as string[])]) listening.set(name, p);
  }
  const prom = parse(readFileSync(join(DEPLOY, "prometheus/prometheus.yml"), "utf8")) as Obj;
  const coordinatorJob = (prom.scrape_configs as Obj[]).find((j) => /coordinator/.test(j.job_name))!;
  for (const t of coordinatorJob.static_configs.flatMap((c: Obj) => c.targets) as string[]) {
    const [host, port] = t.split(":");
    assert.ok(["coordinator", ...services.coordinator.networks.default.aliases].includes(host), `Prometheus target ${t} names the coordinator`);
    assert.ok(listening.get(host)?.includes(Number(port)), `Prometheus target ${t}: the coordinator's --http port`);
  }
  for (const f of filesUnder(join(DEPLOY, "grafana/provisioning/datasources"), /\.ya?ml$/)) {
    for (const d of (parse(readFileSync(f, "utf8")) as Obj).datasources as Obj[]) {
      const u = new URL(d.url);
      assert.ok(listening.get(u.hostname)?.includes(Number(u.port)), `Grafana datasource ${d.url} is a compose service`);
    }
  }

  // Every required variable is in env.example.
  const example = readFileSync(join(COMPOSE_DIR, "env.example"), "utf8");
  for (const m of readFileSync(file, "utf8").matchAll(/\$\{([A-Z0-9_]+):\?/g)) assert.match(example, new RegExp(`^${m[1]}=`, "m"), `${m[1]} in env.example`);
});

// ---- Kubernetes ---------------------------------------------------------------------------------------------------

function k8sObjects(): Obj[] {
  const kust = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as Obj;
  return (kust.resources as string[]).flatMap((r) => yamlDocs(join(K8S, r)));
}

test("deploy files - kustomization lists every manifest, and only files that exist", () => {
  const kust = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as Obj;
  const resources = kust.resources as string[];
  for (const r of resources) assert.ok(existsSync(join(K8S, r)) && statSync(join(K8S, r)).isFile(), `resource ${r} exists`);
  for (const g of kust.configMapGenerator ?? []) {
    for (const f of g.files as string[]) {
      const path = f.includes("=") ? f.split("=")[1] : f;
      assert.ok(existsSync(join(K8S, path)), `configMapGenerator ${g.name}: ${path} exists`);
    }
  }
  const manifests = readdirSync(K8S).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml").sort();
  assert.deepEqual([...resources].sort(), manifests, "every manifest is a resource");
  for (const o of k8sObjects()) {
    assert.ok(o.apiVersion && o.kind && o.metadata?.name, `object ${JSON.stringify(o).slice(0, 80)} has apiVersion, kind, name`);
    assert.equal(o.metadata.namespace, undefined, `${o.kind}/${o.metadata.name}: the namespace comes from kustomization.yaml`);
  }
  assert.equal(kust.namespace, "cubist");
});

test("deploy files - Kubernetes: cubist commands, variables, ports, probes, Services, Secrets and NATS agree", () => {
  const objects = k8sObjects();
  const kust = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as Obj;
  const named = (kind: string, name: string): Obj | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);
  const generated = new Set<string>((kust.configMapGenerator ?? []).map((g: Obj) => g.name));
  const natsConf = natsConfig(join(K8S, "nats/nats.conf"));
  const nats = natsSettings(natsConf);
  const users = natsUsers(natsConf);
  const sts = named("StatefulSet", "nats")!;
  assert.ok(sts, "a NATS StatefulSet");
  assert.equal(sts.spec.replicas, 3);
  const headless = named("Service", sts.spec.serviceName)!;
  assert.equal(headless.spec.clusterIP, "None", "the StatefulSet's Service is headless");
  const natsPods = Array.from({ length: sts.spec.replicas }, (_, i) => `${sts.metadata.name}-${i}.${headless.metadata.name}`);
  assert.deepEqual(nats.routes.map((r) => `${r.host}:${r.port}`), natsPods.map((p) => `${p}:${nats.cluster}`), "routes name every pod");

  const secretKeys = (name: string): string[] => Object.keys({ ...named("Secret", name)?.stringData, ...named("Secret", name)?.data });
  const workloads = objects.filter((o) => ["Deployment", "StatefulSet"].includes(o.kind));
  const cubist: Array<{ o: Obj; p: CubistProcess }> = [];
  for (const w of workloads) {
    const pod = w.spec.template;
    assert.deepEqual({ ...pod.metadata.labels, ...w.spec.selector.matchLabels }, pod.metadata.labels, `${w.metadata.name}: selector matches the pod labels`);
    for (const c of pod.spec.containers as Obj[]) {
      const where = `${w.kind}/${w.metadata.name} container ${c.name}`;
      const env: Record<string, string> = {};
      for (const from of c.envFrom ?? []) {
        const ref = from.configMapRef?.name ?? from.secretRef?.name;
        const cm = named("ConfigMap", ref) ?? named("Secret", ref);
        assert.ok(cm, `${where}: envFrom ${ref} exists`);
        Object.assign(env, cm.data ?? cm.stringData);
      }
      for (const e of c.env ?? []) {
        const v = e.valueFrom;
        if (v?.secretKeyRef) assert.ok(secretKeys(v.secretKeyRef.name).includes(v.secretKeyRef.key), `${where}: Secret ${v.secretKeyRef.name} has ${v.secretKeyRef.key}`);
        if (v?.resourceFieldRef) assert.ok(c.resources?.limits?.[v.resourceFieldRef.resource.replace("limits.", "")], `${where}: ${e.name} reads a limit that is set`);
        env[e.name] = e.value ?? (v?.resourceFieldRef ? String(Math.ceil(Number(c.resources.limits.cpu))) : "placeholder-secret-value");
      }
      for (const vol of pod.spec.volumes ?? []) {
        if (vol.secret) assert.ok(named("Secret", vol.secret.secretName), `${where}: Secret ${vol.secret.secretName} exists`);
        if (vol.configMap) assert.ok(generated.has(vol.configMap.name) || named("ConfigMap", vol.configMap.name), `${where}: ConfigMap ${vol.configMap.name} exists`);
      }
      const containerPorts = new Map<string, number>((c.ports ?? []).map((p: Obj) => [p.name, p.containerPort]));
      for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"]) {
        const port = c[probe]?.httpGet?.port ?? c[probe]?.tcpSocket?.port;
        if (port !== undefined) assert.ok(typeof port === "number" ? [...containerPorts.values()].includes(port) : containerPorts.has(port), `${where}: ${probe} port ${port}`);
      }
      if (/^nats:/.test(c.image)) {
        for (const v of natsVars(natsConf)) assert.ok(v in env, `${where} sets ${v}`);
        assert.deepEqual([...containerPorts.values()].sort(), [nats.client, nats.cluster, nats.http].sort(), `${where}: ports of nats.conf`);
        continue;
      }
      assert.ok(/^cubist(:|$)/.test(c.image), `${where}: image ${c.image}`);
      assert.ok((kust.images as Obj[]).some((i) => c.image.startsWith(`${i.name}:`)), `${where}: kustomization sets its image`);
      const p = checkCubist(where, [...(c.command ?? []), ...(c.args ?? [])].map(String), env);
      assert.deepEqual([...containerPorts.values()].sort(), ports(p), `${where}: containerPorts are the ports it listens on`);
      const ann = pod.metadata.annotations ?? {};
      if (p.listens.has("http")) {
        assert.equal(ann["prometheus.io/scrape"], "true", `${where}: scraped`);
        assert.equal(Number(ann["prometheus.io/port"]), p.listens.get("http")!.port, `${where}: scraped on its --http port`);
        assert.equal(ann["prometheus.io/path"], "/metrics");
      }
      assert.deepEqual(String(p.values.nats).split(","), natsPods.map((h) => `nats://${h}:${nats.client}`), `${where}: --nats names every NATS pod`);
      if (p.command === "worker") {
        // The pod name is the worker id and NATS user; every pod the StatefulSet may run has a user and a password file.
        assert.equal(w.kind, "StatefulSet", `${where}: stable pod names`);
        assert.equal(env.CUBIST_WORKER_ID, "$(POD_NAME)");
        assert.equal(env.CUBIST_NATS_PASS_FILE, "/etc/cubist/nats-worker/$(POD_NAME)");
        const items = (pod.spec.volumes as Obj[]).find((v) => v.secret?.secretName === "cubist-nats-workers")!.secret.items as Obj[];
        for (let i = 0; i < w.spec.replicas; i++) {
          const id = `${w.metadata.name}-${i}`;
          checkWorkerIdentity(where, { ...p, values: { ...p.values, id, "nats-user": id } }, users);
          assert.ok(items.some((x) => x.path === id && secretKeys("cubist-nats-workers").includes(x.key)), `${where}: a password file for ${id}`);
        }
      } else {
        assert.equal(p.values["nats-user"], "cubist");
      }
      cubist.push({ o: w, p });
    }
  }
  const coordinator = cubist.find((x) => x.p.command === "coordinator")!;
  const worker = cubist.find((x) => x.p.command === "worker")!;
  assert.ok(coordinator && worker);
  // A leader and a standby: the leader lease keeps one of them in charge, and the Service routes to the one ready.
  assert.equal(coordinator.o.spec.replicas, 2, "a standby beside the leader takes over within the lease");
  const cc = coordinator.o.spec.template.spec.containers[0];
  assert.equal(cc.readinessProbe.httpGet.path, "/readyz", "only the leader is ready, so the Service sends API calls to it");
  assert.ok(coordinator.p.values["leader-lease"] === undefined || Number(coordinator.p.values["leader-lease"]) <= 10, "takeover within 10 s");
  assert.equal(coordinator.p.values.replicas, sts.spec.replicas, "--replicas equals the NATS pods");
  assert.ok(coordinator.p.values["auth-token-file"] || coordinator.p.values["auth-token"], "the coordinator's API needs a token");
  assert.deepEqual(ports(worker.p), [WORKER_HTTP_PORT]);
  const wc = worker.o.spec.template.spec.containers[0];
  assert.ok(wc.resources.requests.cpu && wc.resources.limits.memory, "worker resources");
  assert.ok(wc.env.some((e: Obj) => e.name === "CUBIST_CONCURRENCY" && e.valueFrom?.resourceFieldRef?.resource === "limits.cpu"), "concurrency from the CPU limit");
  assert.ok(worker.o.spec.template.spec.terminationGracePeriodSeconds > Number(worker.p.values.grace), "termination grace leaves room for --grace");

  // Every Service port routes to a container port of the pods it selects.
  for (const svc of objects.filter((o) => o.kind === "Service")) {
    const pods = workloads.filter((w) => Object.entries(svc.spec.selector).every(([k, v]) => w.spec.template.metadata.labels[k] === v));
    assert.ok(pods.length > 0, `Service ${svc.metadata.name} selects some pods`);
    for (const sp of svc.spec.ports) {
      const target = sp.targetPort ?? sp.port;
      const cps = pods.flatMap((w) => w.spec.template.spec.containers.flatMap((c: Obj) => c.ports ?? []));
      assert.ok(cps.some((cp: Obj) => cp.name === target || cp.containerPort === target), `Service ${svc.metadata.name} port ${sp.name} -> ${target}`);
      const cp = cps.find((x: Obj) => x.name === target || x.containerPort === target);
      assert.equal(sp.port, cp.containerPort, `Service ${svc.metadata.name} port ${sp.name} keeps the container's port number`);
    }
  }
});

test("deploy files - the Kubernetes scrape configuration passes promtool and names the Services and ports that exist", () => {
  const file = join(K8S, "prometheus/scrape-cubist.yml");
  execFileSync("promtool", ["check", "config", file], { stdio: ["ignore", "pipe", "pipe"] });
  const cfg = parse(readFileSync(file, "utf8")) as Obj;
  const objects = k8sObjects();
  const svc = (name: string): Obj => objects.find((o) => o.kind === "Service" && o.metadata.name === name)!;
  const targets: string[] = cfg.scrape_configs.flatMap((s: Obj) => [
    ...(s.static_configs ?? []).flatMap((c: Obj) => c.targets),
    ...(s.dns_sd_configs ?? []).flatMap((c: Obj) => c.names.map((n: string) => `${n}:${c.port}`)),
  ]);
  assert.equal(targets.length, 2, targets.join(", "));
  for (const t of targets) {
    const m = /^([a-z0-9-]+)\.cubist\.svc:(\d+)$/.exec(t);
    assert.ok(m, `target ${t} is <service>.cubist.svc:<port>`);
    const s = svc(m[1]);
    assert.ok(s, `Service ${m[1]} exists`);
    assert.ok(s.spec.ports.some((p: Obj) => p.port === Number(m[2])), `Service ${m[1]} has port ${m[2]}`);
  }
});

/** The spec of `cubist <words...>`: cli/commands/<w1>-<w2>.ts, else <w1>.ts; null when there is no such command. */
async function commandSpec(words: string[]): Promise<{ spec: CommandSpec; rest: string[] } | null> {
  for (const n of [2, 1]) {
    const file = join(REPO_ROOT, "cli/commands", `${words.slice(0, n).join("-")}.ts`);
    if (words.length >= n && words.slice(0, n).every((w) => /^[a-z]+$/.test(w)) && existsSync(file)) {
      return { spec: ((await import(file)) as { spec: CommandSpec }).spec, rest: words.slice(n) };
    }
  }
  return null;
}

test("deploy files - the operations guide's cubist command lines and variables are real", async () => {
  const doc = readFileSync(join(REPO_ROOT, "docs/operations.md"), "utf8");
  const blocks = [...doc.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].map((m) => m[1]);
  const seen = new Set<string>();
  for (const block of blocks) {
    for (const raw of block.replace(/\\\n\s*/g, " ").split("\n")) {
      const m = /(?:^\s*|[;&|]\s*)cubist\s+(.*)$/.exec(raw.replace(/\s#.*$/, ""));
      if (!m) continue;
      const words = m[1].trim().split(/\s+/).map((t) => t.replace(/^(["'])(.*)\1$/, "$2"));
      const cut = words.findIndex((t) => /^[|&;<>]/.test(t));
      const found = await commandSpec(words.slice(0, cut < 0 ? undefined : cut));
      assert.ok(found, `docs/operations.md: "cubist ${m[1]}" is not a cubist command`);
      assert.doesNotThrow(() => parseCommand(found.spec, found.rest, {}), `docs/operations.md: cubist ${m[1]}`);
      seen.add(found.spec.name);
    }
  }
  for (const c of ["coordinator", "worker", "run submit"]) assert.ok(seen.has(c), `the guide shows cubist ${c}`);
  // Flags mentioned in the prose are options of some command the guide uses, or of the client commands.
  const specs = await Promise.all([...seen].map(async (n) => (await commandSpec(n.split(" ")))!.spec));
  const flags = new Set(specs.flatMap((s) => Object.keys({ ...COMMON_OPTIONS, ...s.options })));
  for (const k of Object.keys(CLIENT_OPTIONS)) flags.add(k);
  const prose = doc.replace(/```[\s\S]*?```/g, "");
  for (const m of prose.matchAll(/`(--[a-z][a-z0-9-]*)/g)) assert.ok(flags.has(m[1].slice(2)), `docs/operations.md: ${m[1]} is not a cubist flag`);
  const envs = new Set(Object.values({ ...COMMON_OPTIONS, ...coordinatorSpec.options, ...workerSpec.options, ...CLIENT_OPTIONS }).map((o) => o.env).filter(Boolean));
  const names = createNames("cubist");
  const streams = new Set([names.cubesStream, names.verdictsStream, names.ledgerStream, names.proofsStream]);
  // Workers' NATS passwords as nats-server reads them (`cubist nats users --password-env`).
  const workerPass = (v: string): boolean => /^CUBIST_WORKER_PASS_[A-Z0-9_]+$/.test(v);
  for (const m of doc.matchAll(/\bCUBIST_[A-Z0-9_]+/g)) {
    assert.ok(envs.has(m[0]) || streams.has(m[0]) || workerPass(m[0]), `docs/operations.md: ${m[0]} is not a cubist variable (nor a stream)`);
  }
});
