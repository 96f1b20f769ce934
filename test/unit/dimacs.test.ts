import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { readBrendan } from "../../core/formats/brendan.js";
import { InvalidOptionError } from "../../core/errors.js";
import {
  ClauseBuffer,
  dimacsChunks,
  dimacsString,
  encode,
  parseDimacs,
  DimacsSyntaxError,
  type Formula,
  type VarMap,
} from "../../core/encode/index.js";

const fixture = (path: string): string => readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url)), "utf8");

const noVarMap: VarMap = {
  decode: () => ({ rows: 0, cols: 0, cells: [] }),
  placementLiterals: () => [],
  describe: (v) => `v${v}`,
};

function formulaOf(numVars: number, clauses: number[][]): Formula {
  const cb = new ClauseBuffer(4);
  for (const c of clauses) cb.add(c);
  return { encoding: "test", numVars, clauses: cb, sections: { test: clauses.length }, varMap: noVarMap };
}

function concat(chunks: Iterable<Uint8Array>): Uint8Array {
  const list = [...chunks];
  const out = new Uint8Array(list.reduce((n, c) => n + c.length, 0));
  let pos = 0;
  for (const c of list) {
    out.set(c, pos);
    pos += c.length;
  }
  return out;
}

test("dimacs - writes the exact header and one clause per line", () => {
  const f = formulaOf(12, [[1, -2], [3], [-12, 10, 9, -1]]);
  assert.equal(dimacsString(f), "p cnf 12 3\n1 -2 0\n3 0\n-12 10 9 -1 0\n");
});

test("dimacs - extra units are appended and counted in the header", () => {
  const f = formulaOf(5, [[1, 2]]);
  assert.equal(dimacsString(f, [[-5], [3]]), "p cnf 5 3\n1 2 0\n-5 0\n3 0\n");
  assert.equal(dimacsString(formulaOf(3, []), []), "p cnf 3 0\n");
  assert.throws(() => dimacsString(f, [[6]]), InvalidOptionError);
  assert.throws(() => dimacsString(f, [[0]]), InvalidOptionError);
  assert.throws(() => dimacsString(f, [[1.5]]), InvalidOptionError);
});

test("dimacs - writes every digit count right, up to 2^31-1", () => {
  const lits: number[] = [];
  for (let v = 1; v <= 2147483647; v = v * 10 + 7) lits.push(v, -v);
  lits.push(2147483647, -2147483647, 9, 10, 99, 100, 999999999, 1000000000);
  const max = 2147483647;
  const f = formulaOf(max, [lits]);
  assert.equal(dimacsString(f), `p cnf ${max} 1\n${lits.join(" ")} 0\n`);
});

test("dimacs - small chunks give the same bytes, each chunk within the limit and a fresh buffer", () => {
  const puzzle = readBrendan(fixture("brendan/pieces_05x05.txt"), "pieces_05x05.txt");
  const f = encode("heule-all", puzzle);
  const whole = concat(dimacsChunks(f, [[1], [-2]]));
  const chunks = [...dimacsChunks(f, [[1], [-2]], 64)];
  assert.ok(chunks.length > 100);
  for (const c of chunks) assert.ok(c.length <= 64 && c.length > 0);
  assert.equal(new Set(chunks.map((c) => c.buffer)).size, chunks.length);
  assert.deepEqual(concat(chunks), whole);
  assert.throws(() => [...dimacsChunks(f, [], 10)], InvalidOptionError);
});

test("dimacs - the parser reads back what the writer wrote", () => {
  const puzzle = readBrendan(fixture("brendan/pieces_04x04.txt"), "pieces_04x04.txt");
  const f = encode("heule-fbcolors", puzzle, { cornerPairs: true });
  const parsed = parseDimacs(dimacsString(f, [[7]]));
  assert.equal(parsed.numVars, f.numVars);
  assert.equal(parsed.clauses.length, f.clauses.count + 1);
  const original: number[][] = [];
  f.clauses.forEach((c) => original.push(Array.from(c)));
  assert.deepEqual(parsed.clauses.slice(0, -1), original);
  assert.deepEqual(parsed.clauses.at(-1), [7]);
});

test("dimacs - the parser accepts comments and clauses across lines, rejects bad input with the line", () => {
  assert.deepEqual(parseDimacs("c hi\np cnf 3 2\n1 -2\n 3 0 -1\n0\n"), { numVars: 3, clauses: [[1, -2, 3], [-1]] });
  assert.throws(() => parseDimacs("1 0\n"), DimacsSyntaxError);
  assert.throws(() => parseDimacs("p cnf 2 1\n3 0\n"), /line 2: literal 3 exceeds 2 variables/);
  assert.throws(() => parseDimacs("p cnf 2 2\n1 0\n"), /header says 2 clauses, found 1/);
  assert.throws(() => parseDimacs("p cnf 2 1\n1 x 0\n"), /'x' is not a literal/);
  assert.throws(() => parseDimacs("p cnf 2 1\n1 2\n"), /not ended by 0/);
  assert.throws(() => parseDimacs("c nothing\n"), /no `p cnf` header/);
});
