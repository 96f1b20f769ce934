import { test } from "node:test";
import assert from "node:assert/strict";

import { clauseList, InvalidFormulaError } from "../../core/cnf/cnf.js";
import { checkModel, modelLines } from "../../core/cnf/check-model.js";
import { readDimacs } from "../../core/cnf/read-dimacs.js";
import { randomKSat } from "../../core/cnf/generate.js";
import { dimacsString } from "../../core/encode/dimacs.js";

const read = (text: string) => readDimacs(Buffer.from(text), "f.cnf");

function fails(text: string, pattern: RegExp): void {
  assert.throws(() => read(text), (err: unknown) => err instanceof InvalidFormulaError && pattern.test(err.message));
}

test("dimacs read - comments, clauses across lines and several on a line, CRLF, a SATLIB % end", () => {
  const cnf = read("c a comment\r\np cnf 3 3\r\n1 -2\r\n 3 0 -1 0\n2 3 -3 0\n%\n0\n");
  assert.equal(cnf.numVars, 3);
  assert.deepEqual(clauseList(cnf), [[1, -2, 3], [-1], [2, 3, -3]]);
});

test("dimacs read - an empty clause and a formula of no clauses", () => {
  assert.deepEqual(clauseList(read("p cnf 2 1\n0\n")), [[]]);
  assert.deepEqual(clauseList(read("p cnf 0 0\n")), []);
});

test("dimacs read - the writer's text reads back to the same clauses", () => {
  const cnf = randomKSat(50, 200, 3, 7);
  const back = read(dimacsString(cnf));
  assert.deepEqual(clauseList(back), clauseList(cnf));
});

test("dimacs read - bad input is refused with file:line", () => {
  fails("1 2 0\n", /^f\.cnf:1: a clause before the `p cnf` header/);
  fails("p cnf 2 1\n1 3 0\n", /^f\.cnf:2: literal 3 names a variable beyond the header's 2/);
  fails("p cnf 2 1\n1 99999999999999999999 0\n", /^f\.cnf:2: literal 99999999999999999999 names a variable/);
  fails("c\np cnf 2\n", /^f\.cnf:2: bad header/);
  fails("p cnf 2 1\n1 x 0\n", /^f\.cnf:2: unexpected "x"/);
  fails("p cnf 2 1\n1 2x 0\n", /^f\.cnf:2: "2x" is not a literal/);
  fails("p cnf 2 1\n1 -0\n", /^f\.cnf:2: "-0" is not a literal/);
  fails("p cnf 2 1\n1\n2\n", /^f\.cnf:2: the last clause is not ended by 0/);
  fails("p cnf 2 2\n1 0\n", /^f\.cnf: the header declares 2 clauses, the file has 1/);
  fails("p cnf 2 1\np cnf 2 1\n", /^f\.cnf:2: a second `p cnf` header/);
  fails("c only comments\n", /^f\.cnf: no `p cnf` header/);
  fails("p cnf 3000000000 0\n", /^f\.cnf:1: 3000000000 variables/);
});

test("check model - a model satisfies every clause; the first falsified clause is named", () => {
  const cnf = read("p cnf 3 3\n1 2 0\n-1 3 0\n-2 -3 0\n");
  assert.deepEqual(checkModel(cnf, Uint8Array.from([0, 1, 0, 1])), { ok: true });
  assert.deepEqual(checkModel(cnf, Uint8Array.from([0, 1, 1, 1])), { ok: false, clause: 2, literals: [-2, -3] });
  assert.deepEqual(checkModel(cnf, Uint8Array.from([0])), { ok: false, clause: 0, literals: [1, 2] });
  assert.deepEqual(checkModel(read("p cnf 1 1\n0\n"), Uint8Array.from([0, 1])), { ok: false, clause: 0, literals: [] });
});

test("check model - v lines carry every variable, end with 0 and stay short", () => {
  const model = new Uint8Array(101);
  for (let v = 1; v <= 100; v += 2) model[v] = 1;
  const lines = modelLines(100, model);
  assert.ok(lines.every((l) => l.startsWith("v ") && l.length <= 80));
  const lits = lines.join(" ").split(/\s+/).filter((t) => t !== "v").map(Number);
  assert.deepEqual(lits, [...Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? i + 1 : -(i + 1))), 0]);
});
