/**
 * The folder layering, checked from the import graph: every import statement (static, `import type`, `export ...
 * from`, dynamic `import()`) of every .ts file outside node_modules, dist and proto/gen, read with TypeScript's own
 * pre-processor (comments and strings that merely look like imports are not imports).
 *
 * A folder may import its own files and the folders ranked below it, never one ranked above it nor a sibling of the
 * same rank (worker/ and coordinator/ share only what lies below them). No two files import each other.
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

/** file -> the repository files it imports (relative specifiers only; packages are not folders of ours). */
function importGraph(): Graph {
  const graph: Graph = new Map();
  for (const file of tsFiles("")) {
    const targets = new Set<string>();
    for (const { fileName } of ts.preProcessFile(readFileSync(join(ROOT, file), "utf8"), true, true).importedFiles) {
      if (!fileName.startsWith(".")) continue;
      targets.add(normalize(join(dirname(file), fileName)).replace(/\.js$/, ".ts"));
    }
    graph.set(file, targets);
  }
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
