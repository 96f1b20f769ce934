/**
 * The folder layering, checked from the import graph: every import statement (static, `import type`, `export ...
 * from`, dynamic `import()`) of every .ts file outside node_modules, dist and proto/gen, read with TypeScript's own
 * pre-processor (comments and strings that merely look like imports are not imports).
 *
 * A folder may import its own files and the folders ranked below it, never one ranked above it nor a sibling of the
 * same rank (worker/ and coordinator/ share only what lies below them). No two files import each other.
 *
 * Inside coordinator/ (coordinator/README.md): model/ is pure (nothing it reaches imports NATS, gRPC, HTTP, files,
 * processes, prom-client or randomness, and its code reads no clock), the JetStream shell (shell/) never imports the
 * servers (serve/), nothing imports main.ts, and no files import each other in a cycle of any length.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const ROOT = normalize(join(dirname(new URL(import.meta.url).pathname), "..", ".."));

/** The layering, lowest first; folders on one line are siblings (README.md "Layout"). */
const LAYERS: readonly (readonly string[])[] = [
  ["core"],
  ["proto"],
  ["host"],
  ["cluster"],
  ["certify"],
  ["worker", "coordinator"],
  ["cli"],
  ["test"],
  ["bench"],
];

const SKIP = new Set(["node_modules", "dist", ".git", join("proto", "gen")]);

type Graph = Map<string, Set<string>>;

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = dir === "" ? e.name : join(dir, e.name);
    if (e.isDirectory() && !SKIP.has(path)) tsFiles(path, out);
    else if (e.isFile() && e.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Every module a file imports, as written (relative paths and packages). */
function specifiers(file: string): string[] {
  return ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true).importedFiles.map((f) => f.fileName);
}

/** The repository file a relative specifier of `file` names. */
function resolve(file: string, specifier: string): string {
  return normalize(join(dirname(file), specifier)).replace(/\.js$/, ".ts");
}

/** file -> the repository files it imports (relative specifiers only; packages are not folders of ours). */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of tsFiles("")) graph.set(file, new Set(specifiers(file).filter((s) => s.startsWith(".")).map((s) => resolve(file, s))));
  return graph;
}

/** Every import that breaks the layering or closes a two-file cycle, as readable lines. */
function layeringViolations(graph: Graph, layers: readonly (readonly string[])[] = LAYERS): string[] {
  const rank = new Map<string, number>();
  layers.forEach((folders, i) => folders.forEach((f) => rank.set(f, i)));
  const top = (file: string): string => file.split(/[\\/]/)[0];
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = top(file);
    const r = rank.get(from);
    if (r === undefined) {
      out.push(`${file}: folder ${from}/ has no place in the layering`);
      continue;
    }
    for (const target of targets) {
      const to = top(target);
      if (to === from) continue;
      const t = rank.get(to);
      if (t === undefined) out.push(`${file} imports ${target}: folder ${to}/ has no place in the layering`);
      else if (t > r) out.push(`${file} imports ${target}: ${from}/ is below ${to}/`);
      else if (t === r) out.push(`${file} imports ${target}: ${from}/ and ${to}/ are siblings`);
    }
  }
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (file < target && graph.get(target)?.has(file)) out.push(`${file} and ${target} import each other`);
    }
  }
  return out;
}

test("import graph - no import runs from a lower folder up or across to a sibling, and no two files import each other", () => {
  const graph = importGraph();
  // The parser sees the imports at all: a few edges the layering is about.
  assert.ok(graph.get(join("worker", "solve-cube.ts"))?.has(join("host", "solver", "index.ts")));
  assert.ok(graph.get(join("certify", "drat-trim.ts"))?.has(join("host", "child.ts")));
  assert.ok(graph.get(join("coordinator", "shell", "certify.ts"))?.has(join("host", "formula-cache.ts")));
  assert.deepEqual(layeringViolations(graph), []);
});

/** Packages that do I/O, or draw random bits: none may be reached from the coordinator's model/. */
const IO_MODULES = /^(node:)?(http|https|http2|net|tls|dgram|dns|child_process|cluster|worker_threads|fs|fs\/promises|os|crypto|readline|process)$|^@nats-io\/|^@grpc\/|^prom-client$/;

/** Each package reachable from `roots` through the repository's imports (proto/gen included), with a path that reaches it. */
function packagesReached(roots: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const seen = new Set<string>(roots);
  const queue = roots.map((f) => [f]);
  for (let path = queue.shift(); path; path = queue.shift()) {
    const file = path[path.length - 1];
    for (const s of specifiers(file)) {
      if (!s.startsWith(".")) {
        if (!out.has(s)) out.set(s, path);
        continue;
      }
      const target = resolve(file, s);
      if (seen.has(target)) continue;
      seen.add(target);
      queue.push([...path, target]);
    }
  }
  return out;
}

/** A file's reads of a clock, a timer, the process or randomness, in its code (comments and strings are not code). */
function impureCalls(file: string): string[] {
  const src = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (n: ts.Node, what: string): void => void out.push(`${file}:${src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1} ${what}`);
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAccessExpression(n) && /^(Date\.now|performance\.now|Math\.random)$/.test(n.getText(src))) at(n, n.getText(src));
    else if (ts.isIdentifier(n) && /^(setTimeout|setInterval|setImmediate|process)$/.test(n.text) && !ts.isPropertyAccessExpression(n.parent)) at(n, n.text);
    else if (ts.isNewExpression(n) && n.expression.getText(src) === "Date" && (n.arguments?.length ?? 0) === 0) at(n, "new Date()");
    ts.forEachChild(n, visit);
  };
  visit(src);
  return out;
}

/** The coordinator's room of a file: "model", "shell", "serve", "main" (main.ts) or "top" (its other top-level files). */
function roomOf(file: string): string | null {
  const parts = file.split(/[\\/]/);
  if (parts[0] !== "coordinator") return null;
  if (parts.length > 2) return parts[1];
  return parts[1] === "main.ts" ? "main" : "top";
}

/** Where each room of coordinator/ may import from, besides itself (main.ts wires them all). */
const ROOM_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  model: [],
  shell: ["model", "top"],
  serve: ["shell", "model", "top"],
  top: ["model", "serve"],
  main: ["model", "shell", "serve", "top"],
};

/** Imports between coordinator/'s rooms that ROOM_IMPORTS does not allow, and every import cycle among its files. */
function roomViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    if (from === null) continue;
    for (const target of targets) {
      const to = roomOf(target);
      if (to === null || to === from) continue;
      if (!(ROOM_IMPORTS[from] ?? []).includes(to)) out.push(`${file} imports ${target}: coordinator's ${from} does not import its ${to}`);
    }
  }
  for (const cycle of cyclesIn(graph, (f) => roomOf(f) !== null)) out.push(`import cycle: ${cycle.join(" -> ")}`);
  return out;
}

/** The import cycles among the files `inside` keeps (Tarjan's strongly connected components of more than one file). */
function cyclesIn(graph: Graph, inside: (file: string) => boolean): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!inside(w) || !graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = w === v ? undefined : stack.pop()) component.push(w);
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of [...graph.keys()].filter(inside).sort()) if (!index.has(v)) visit(v);
  return out;
}

test("import graph - coordinator/model/ is pure: nothing it reaches does I/O, and its code reads no clock, timer or randomness", () => {
  const model = tsFiles(join("coordinator", "model"));
  assert.ok(model.length > 20, "the model's files are found");
  const io = [...packagesReached(model)].filter(([p]) => IO_MODULES.test(p)).map(([p, path]) => `${p} via ${path.join(" -> ")}`);
  assert.deepEqual(io, []);
  assert.deepEqual(model.flatMap(impureCalls), []);
  // The checks see what they look for: the shell reaches NATS and reads the clock.
  assert.ok(packagesReached([join("coordinator", "shell", "ledger.ts")]).has("@nats-io/jetstream"));
  assert.ok(impureCalls(join("coordinator", "shell", "retry.ts")).some((c) => c.endsWith("Date.now")));
});

test("import graph - coordinator/'s rooms: the shell never imports serve/, nothing imports main.ts, and no import cycle", () => {
  assert.deepEqual(roomViolations(importGraph()), []);
});

test("import graph - the room checker reports an import across rooms and a cycle of three files", () => {
  const graph: Graph = new Map([
    ["coordinator/model/a.ts", new Set(["coordinator/shell/b.ts"])],
    ["coordinator/shell/b.ts", new Set(["coordinator/serve/c.ts", "coordinator/model/a.ts"])],
    ["coordinator/serve/c.ts", new Set(["coordinator/main.ts"])],
    ["coordinator/serve/d.ts", new Set(["coordinator/serve/e.ts"])],
    ["coordinator/serve/e.ts", new Set(["coordinator/serve/f.ts"])],
    ["coordinator/serve/f.ts", new Set(["coordinator/serve/d.ts"])],
    ["coordinator/main.ts", new Set<string>()],
  ]);
  assert.deepEqual(roomViolations(graph), [
    "coordinator/model/a.ts imports coordinator/shell/b.ts: coordinator's model does not import its shell",
    "coordinator/shell/b.ts imports coordinator/serve/c.ts: coordinator's shell does not import its serve",
    "coordinator/serve/c.ts imports coordinator/main.ts: coordinator's serve does not import its main",
    "import cycle: coordinator/model/a.ts -> coordinator/shell/b.ts",
    "import cycle: coordinator/serve/d.ts -> coordinator/serve/e.ts -> coordinator/serve/f.ts",
  ]);
});

test("import graph - the checker reports an upward import, a sibling import, a folder without a rank and a two-file cycle", () => {
  const graph: Graph = new Map([
    ["core/a.ts", new Set(["host/b.ts"])],
    ["worker/c.ts", new Set(["coordinator/d.ts", "worker/e.ts", "core/a.ts"])],
    ["worker/e.ts", new Set(["worker/c.ts"])],
    ["misc/f.ts", new Set<string>()],
  ]);
  assert.deepEqual(layeringViolations(graph), [
    "core/a.ts imports host/b.ts: core/ is below host/",
    "worker/c.ts imports coordinator/d.ts: worker/ and coordinator/ are siblings",
    "misc/f.ts: folder misc/ has no place in the layering",
    "worker/c.ts and worker/e.ts import each other",
  ]);
});
