/**
 * Static checks of the Kubernetes deployment files (no cluster needed): the kustomization lists the manifests that
 * exist; every cubist command line and CUBIST_* variable is accepted by the real CLI parser with the command's own
 * spec; the ports published, probed, scraped and routed to are the ports the processes listen on; the scrape
 * configuration passes `promtool check config`; the operations guide's command lines and variables are real.
 * Compose and NATS: deploy-compose.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { COMMON_OPTIONS, parseCommand, type CommandSpec } from "../../cli/args.js";
import { spec as coordinatorSpec } from "../../cli/commands/coordinator.js";
import { spec as workerSpec } from "../../cli/commands/worker.js";
import { CLIENT_OPTIONS } from "../../cli/client.js";
import { createNames } from "../../proto/contract.js";
import { REPO_ROOT } from "../helpers/processes.js";
import { CubistProcess, K8S, Obj, WORKER_HTTP_PORT, checkCubist, checkWorkerIdentity, natsConfig, natsSettings, natsUsers, natsVars, ports, yamlDocs } from "../helpers/deploy-files.js";

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
