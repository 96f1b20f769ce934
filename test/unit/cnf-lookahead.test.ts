import { test } from "node:test";
import assert from "node:assert/strict";

import { ClauseBuffer } from "../../core/encode/formula.js";
import { clauseList, type Cnf } from "../../core/cnf/cnf.js";
import { checkCoverage } from "../../core/cnf/coverage.js";
import { pigeonhole, randomKSat } from "../../core/cnf/generate.js";
import { splitByLookahead } from "../../core/cnf/lookahead.js";
import { Propagator } from "../../core/cnf/propagate.js";

/** Every model of the clauses (with `fixed` literals forced) by enumeration: the reference the cuber is held to. */
function models(numVars: number, clauses: number[][], fixed: readonly number[] = []): number[] {
  const out: number[] = [];
  for (let bits = 0; bits < 2 ** numVars; bits++) {
    const value = (lit: number): boolean => (((bits >> (Math.abs(lit) - 1)) & 1) === 1) === lit > 0;
    if (fixed.every(value) && clauses.every((c) => c.some(value))) out.push(bits);
  }
  return out;
}

function cnfOf(numVars: number, clauses: number[][]): Cnf {
  const buffer = new ClauseBuffer();
  for (const c of clauses) buffer.add(c);
  return { numVars, clauses: buffer };
}

/** Every assignment of `numVars` variables satisfies at least one cube (the coverage, by enumeration). */
function coveredByEnumeration(numVars: number, cubes: number[][]): boolean {
  for (let bits = 0; bits < 2 ** numVars; bits++) {
    const value = (lit: number): boolean => (((bits >> (Math.abs(lit) - 1)) & 1) === 1) === lit > 0;
    if (!cubes.some((c) => c.every(value))) return false;
  }
  return true;
}

test("lookahead - the leaves cover the space, refuted leaves have no model, and every model lies under an open cube", () => {
  for (let seed = 1; seed <= 60; seed++) {
    const vars = 8 + (seed % 5);
    const cnf = randomKSat(vars, Math.round(vars * (3.5 + (seed % 4) * 0.4)), 3, seed);
    const clauses = clauseList(cnf);
    const split = splitByLookahead(cnf, { maxDepth: 1 + (seed % 5), candidates: 1 + (seed % 7) });
    const leaves = [...split.cubes, ...split.refuted];
    assert.ok(checkCoverage(leaves), `seed ${seed}: coverage`);
    assert.ok(coveredByEnumeration(vars, leaves), `seed ${seed}: coverage by enumeration`);
    for (const r of split.refuted) assert.equal(models(vars, clauses, r).length, 0, `seed ${seed}: refuted leaf ${r} has a model`);
    const open = split.cubes.reduce((n, c) => n + models(vars, clauses, c).length, 0);
    assert.ok(open >= models(vars, clauses).length, `seed ${seed}: a model outside every open cube`);
    for (const c of split.cubes) assert.ok(c.length <= 1 + (seed % 5));
  }
});

test("lookahead - failed literals are found, and each one really has no model under its node", () => {
  let failed = 0;
  for (let seed = 100; seed < 140; seed++) {
    const cnf = randomKSat(10, 48, 3, seed);
    const clauses = clauseList(cnf);
    const split = splitByLookahead(cnf, {
      maxDepth: 3,
      onFailedLiteral: (path, lit) => assert.equal(models(10, clauses, [...path, lit]).length, 0, `seed ${seed}: ${lit} under ${path} has a model`),
    });
    failed += split.failedLiterals;
    // A failed literal refutes its node's subtree on one side: the leaves stay sound (checked above) and the
    // open cubes together hold exactly the formula's models.
    const under = new Set<number>();
    for (const c of split.cubes) for (const m of models(10, clauses, c)) under.add(m);
    assert.deepEqual([...under].sort((a, b) => a - b), models(10, clauses), `seed ${seed}`);
  }
  assert.ok(failed > 0, "no failed literal on 40 formulas at the threshold");
});

test("lookahead - a failed literal at the root: its negation is implied, by enumeration", () => {
  // x1 -> x2, x1 -> -x2: x1 fails; x3 or x4 leaves something to branch on.
  const cnf = cnfOf(4, [[-1, 2], [-1, -2], [3, 4], [-3, 4, 1]]);
  const split = splitByLookahead(cnf, { maxDepth: 2 });
  assert.ok(split.failedLiterals >= 1);
  for (const c of split.cubes) assert.ok(!c.includes(1), `cube ${c} decides x1 true`);
  assert.ok(checkCoverage([...split.cubes, ...split.refuted]));
});

test("lookahead - pigeonhole: every leaf is refuted or open, and the set covers", () => {
  const split = splitByLookahead(pigeonhole(4), { maxDepth: 6 });
  assert.ok(checkCoverage([...split.cubes, ...split.refuted]));
  assert.ok(split.cubes.length + split.refuted.length > 1);
});

test("lookahead - an empty clause or contradicting units refute the root", () => {
  assert.deepEqual(splitByLookahead(cnfOf(2, [[1, 2], []])).refuted, [[]]);
  assert.deepEqual(splitByLookahead(cnfOf(2, [[1], [-1]])).refuted, [[]]);
  assert.deepEqual(splitByLookahead(cnfOf(2, [[1], [-1]])).cubes, []);
});

test("lookahead - a satisfied formula, depth 0 and minFreeVars give the single empty cube", () => {
  assert.deepEqual(splitByLookahead(cnfOf(3, [[1], [2, 3]]), { maxDepth: 0 }).cubes, [[]]);
  assert.deepEqual(splitByLookahead(cnfOf(3, [[1, 2, 3]]), { minFreeVars: 3 }).cubes, [[]]);
  const split = splitByLookahead(cnfOf(2, [[1], [2]]), { maxDepth: 4 });
  assert.deepEqual(split.cubes, [[]]);
});

test("coverage - missing, extra and non-tree cube sets", () => {
  assert.ok(checkCoverage([[]]));
  assert.ok(checkCoverage([[1], [-1, 2], [-1, -2]]));
  assert.ok(!checkCoverage([[1], [-1, 2]]));
  assert.ok(!checkCoverage([]));
  assert.ok(checkCoverage([[2, 1], [-1, 2], [-2]]), "literal order does not matter");
  assert.ok(!checkCoverage([[1, -1]]));
});

test("propagate - units propagate, a conflict is reported, and backtracking restores the values", () => {
  const p = new Propagator(cnfOf(4, [[-1, 2], [-2, 3], [-3, -1, 4], [-4, -2]]));
  assert.equal(p.refutedAtRoot, false);
  const mark = p.assigned;
  assert.equal(p.assign(1) && p.propagate(), false);
  p.backtrack(mark);
  assert.deepEqual([...p.value], [0, 0, 0, 0, 0]);
  assert.equal(p.assign(-3) && p.propagate(), true);
  assert.equal(p.valueOf(2), -1);
  assert.equal(p.valueOf(1), -1);
});

test("coverage - leaves whose siblings merge along another variable than the tree's still cover (random 3-SAT, 220 variables, seed 1)", () => {
  const split = splitByLookahead(randomKSat(220, 937, 3, 1), { maxDepth: 6 });
  const leaves = [...split.cubes, ...split.refuted];
  assert.ok(checkCoverage(leaves));
  // Without any one leaf the rest do not cover.
  for (let i = 0; i < leaves.length; i += 7) assert.ok(!checkCoverage(leaves.filter((_, k) => k !== i)), `leaf ${i} left out`);
});
