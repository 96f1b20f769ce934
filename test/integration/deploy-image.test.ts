/**
 * Static checks of the container image (there is no Docker engine here): deploy/Dockerfile builds every source
 * directory the TypeScript build includes in a builder stage and ships a slim non-root runtime stage with tini as
 * PID 1; its Kissat recipe (deploy/docker/install-solvers.sh) takes the mirror from the image's own debian.sources
 * and pins trixie at 50 as scripts/setup.sh does; the ignore file keeps out nothing the Dockerfile copies.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spec as coordinatorSpec } from "../../cli/commands/coordinator.js";
import { spec as workerSpec } from "../../cli/commands/worker.js";
import { REPO_ROOT } from "../helpers/processes.js";

const DOCKERFILE = join(REPO_ROOT, "deploy/Dockerfile");
const INSTALL = join(REPO_ROOT, "deploy/docker/install-solvers.sh");

interface Instruction {
  op: string;
  args: string;
  stage: number;
}

/** Dockerfile instructions (continuation lines joined, comments dropped), each with its stage index. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let stage = -1;
  const joined = text.replace(/\\\n/g, " ").split("\n").filter((l) => l.trim() && !/^\s*#/.test(l));
  for (const line of joined) {
    const m = /^\s*([A-Z]+)\s+(.*)$/.exec(line);
    assert.ok(m, `not an instruction: ${line}`);
    if (m[1] === "FROM") stage++;
    out.push({ op: m[1], args: m[2].trim(), stage });
  }
  return out;
}

test("deploy image - multi-stage build on Node 20 bookworm: npm ci and the build in the builder, a slim non-root runtime", () => {
  const ins = instructions(readFileSync(DOCKERFILE, "utf8"));
  const arg = ins.find((i) => i.op === "ARG" && i.args.startsWith("NODE_IMAGE="));
  assert.match(arg?.args ?? "", /^NODE_IMAGE=node:20-bookworm-slim$/);
  const froms = ins.filter((i) => i.op === "FROM");
  assert.deepEqual(froms.map((f) => f.args), ["${NODE_IMAGE} AS builder", "${NODE_IMAGE} AS runtime"]);
  const runs = (stage: number): string => ins.filter((i) => i.stage === stage && i.op === "RUN").map((i) => i.args).join("\n");
  assert.match(runs(0), /npm ci\b/);
  assert.match(runs(0), /npm run build/);
  assert.match(runs(0), /npm prune --omit=dev/);
  assert.doesNotMatch(runs(1), /npm (ci|install)/, "the runtime stage installs no npm packages");

  // Every directory the TypeScript build compiles is copied into the builder, with the files the build reads.
  const include = (JSON.parse(readFileSync(join(REPO_ROOT, "tsconfig.build.json"), "utf8")) as { include: string[] }).include;
  const copied = ins.filter((i) => i.stage === 0 && i.op === "COPY").flatMap((i) => i.args.split(/\s+/).slice(0, -1));
  for (const dir of include) assert.ok(copied.includes(`${dir}/`), `builder copies ${dir}/`);
  for (const f of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "bin/"]) {
    assert.ok(copied.includes(f), `builder copies ${f}`);
  }
  // The runtime gets the build, the production modules, the launcher and the dashboard's static files.
  const fromBuilder = ins.filter((i) => i.stage === 1 && i.op === "COPY" && i.args.startsWith("--from=builder")).map((i) => i.args.split(/\s+/)[1]);
  for (const p of ["/src/dist/", "/src/node_modules/", "/src/bin/", "/src/package.json"]) assert.ok(fromBuilder.includes(p), `runtime copies ${p}`);
  if (existsSync(join(REPO_ROOT, "coordinator/dashboard"))) assert.ok(fromBuilder.includes("/src/coordinator/dashboard/"), "runtime copies the dashboard");

  const user = ins.filter((i) => i.stage === 1 && i.op === "USER").map((i) => i.args);
  assert.equal(user.length, 1);
  assert.doesNotMatch(user[0], /^(root|0)(:|$)/, "runs as a non-root user");
  const entry = JSON.parse(ins.find((i) => i.op === "ENTRYPOINT")!.args) as string[];
  assert.deepEqual(entry, ["/usr/bin/tini", "--", "cubist"], "tini is PID 1 and runs cubist");
  assert.match(runs(1), /ln -s \/opt\/cubist\/bin\/cubist\.js \/usr\/local\/bin\/cubist/, "cubist is on PATH");
  const cmd = JSON.parse(ins.find((i) => i.op === "CMD")!.args) as string[];
  assert.deepEqual(cmd, ["--help"]);

  // ENV variables are the CLI's; exposed ports are the defaults of --grpc and --http and the workers' metrics port.
  const envs = new Set(Object.values({ ...coordinatorSpec.options, ...workerSpec.options }).map((o) => o.env));
  for (const i of ins.filter((x) => x.op === "ENV")) {
    for (const m of i.args.matchAll(/\b(CUBIST_[A-Z0-9_]+)=/g)) assert.ok(envs.has(m[1]), `ENV ${m[1]} is a cubist variable`);
  }
  const exposed = ins.filter((i) => i.op === "EXPOSE").flatMap((i) => i.args.split(/\s+/)).map(Number);
  assert.deepEqual(exposed, [50051, 9464, 9465]);
  assert.equal(coordinatorSpec.options.grpc.default, "127.0.0.1:50051");
});

test("deploy image - Kissat from trixie: the mirror comes from the image's debian.sources and trixie is pinned at 50", () => {
  const ins = instructions(readFileSync(DOCKERFILE, "utf8"));
  assert.ok(ins.some((i) => i.stage === 1 && i.op === "COPY" && i.args === "deploy/docker/install-solvers.sh /usr/local/sbin/install-solvers.sh"));
  assert.ok(ins.some((i) => i.stage === 1 && i.op === "RUN" && i.args.startsWith("/usr/local/sbin/install-solvers.sh")));
  const script = readFileSync(INSTALL, "utf8");
  execFileSync("sh", ["-n", INSTALL]);
  assert.match(script, /^SOURCES=\/etc\/apt\/sources\.list\.d\/debian\.sources$/m);
  assert.match(script, /echo "deb \$uri trixie main" > \/etc\/apt\/sources\.list\.d\/cubist-trixie\.list/);
  assert.match(script, /-t trixie kissat/);
  // The same pin as scripts/setup.sh.
  const pin = "Package: *\\nPin: release n=trixie\\nPin-Priority: 50\\n";
  assert.ok(script.includes(pin), "install-solvers.sh pins trixie at 50");
  assert.ok(readFileSync(join(REPO_ROOT, "scripts/setup.sh"), "utf8").includes(pin), "scripts/setup.sh pins trixie at 50 the same way");

  // The mirror lookup, run on deb822 files like the one in node:20-bookworm-slim.
  const dir = mkdtempSync(join(tmpdir(), "cubist-sources-"));
  try {
    const sources = join(dir, "debian.sources");
    writeFileSync(sources, [
      "Types: deb",
      "# http://snapshot.debian.org/archive/debian/20250520T000000Z",
      "URIs: http://mirror.example.org/debian",
      "Suites: bookworm bookworm-updates",
      "Components: main",
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg",
      "",
      "Types: deb",
      "URIs: http://mirror.example.org/debian-security",
      "Suites: bookworm-security",
      "Components: main",
      "",
    ].join("\n"));
    assert.equal(execFileSync("sh", [INSTALL, "mirror", sources], { encoding: "utf8" }).trim(), "http://mirror.example.org/debian");
    writeFileSync(sources, "Types: deb\nURIs: http://mirror.example.org/debian-security\nSuites: bookworm-security\nComponents: main\n");
    const none = spawnSync("sh", [INSTALL, "mirror", sources], { encoding: "utf8" });
    assert.equal(none.status, 1, "no bookworm entry: fails");
    assert.match(none.stderr, /no bookworm entry/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("deploy image - the ignore file keeps local builds and secrets out and nothing the Dockerfile copies", () => {
  const lines = readFileSync(join(REPO_ROOT, "deploy/Dockerfile.dockerignore"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const glob = (pat: string): string => pat.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*");
  // Docker's rules, as far as this file uses them: a pattern matches the path or a parent of it, `**/` at any
  // depth, and the last matching line wins (`!` re-includes).
  const ignored = (path: string): boolean => {
    let out = false;
    for (const l of lines) {
      const neg = l.startsWith("!");
      let pat = (neg ? l.slice(1) : l).replace(/\/$/, "");
      const anyDepth = pat.startsWith("**/");
      if (anyDepth) pat = pat.slice(3);
      if (new RegExp(`^${anyDepth ? "(.*/)?" : ""}${glob(pat)}(/.*)?$`).test(path)) out = !neg;
    }
    return out;
  };
  for (const p of ["node_modules", "dist", ".git", "deploy/compose/.env", "test", "cli/node_modules"]) assert.ok(ignored(p), `${p} is ignored`);
  const ins = instructions(readFileSync(DOCKERFILE, "utf8"));
  for (const i of ins.filter((x) => x.op === "COPY" && !x.args.startsWith("--from"))) {
    for (const src of i.args.split(/\s+/).slice(0, -1)) {
      assert.ok(!ignored(src.replace(/\/$/, "")), `${src} (copied by the Dockerfile) is not ignored`);
      assert.ok(existsSync(join(REPO_ROOT, src)), `${src} exists`);
    }
  }
});
