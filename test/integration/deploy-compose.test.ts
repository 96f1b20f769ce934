/**
 * Static checks of the deployment files (no Docker engine needed), compose and NATS: every YAML parses; every NATS
 * configuration passes `nats-server -t`, takes no client without credentials and lists the users `cubist nats users`
 * generates; every cubist command line and CUBIST_* variable in compose is accepted by the real CLI parser with the
 * command's own spec, and its ports, NATS URLs and mounts agree. Kubernetes: deploy-k8s.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { parseCommand } from "../../cli/args.js";
import { run as natsUsersRun, spec as natsUsersSpec, workerPasswordVariable } from "../../cli/commands/nats-users.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { COMPOSE_DIR, CubistProcess, DEPLOY, K8S, Obj, WORKER_HTTP_PORT, checkCubist, checkWorkerIdentity, filesUnder, interpolate, natsConfig, natsSettings, natsUsers, natsVars, ports } from "../helpers/deploy-files.js";

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
