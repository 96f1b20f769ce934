/** The LRAT guard (certify/lrat-guard.ts) on small proofs, read in one pass and in two (a tiny literal budget). */

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkEmptyClauses } from "../../certify/lrat-guard.js";

// Clauses 1..3: x1, (-x1 or x2), -x2.
const CNF = "p cnf 2 3\n1 0\n-1 2 0\n-2 0\n";

function guard(proof: string, maxLiterals?: number): Promise<string | null> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-guard-test-"));
  try {
    writeFileSync(join(dir, "f.cnf"), CNF);
    writeFileSync(join(dir, "p.lrat"), proof);
    return checkEmptyClauses(join(dir, "f.cnf"), join(dir, "p.lrat"), maxLiterals).finally(() => rmSync(dir, { recursive: true, force: true }));
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

for (const [mode, budget] of [["one pass", undefined], ["two passes", 0]] as const) {
  test(`lrat guard (${mode}) - accepts empty clauses that unit propagation along their hints derives`, async () => {
    assert.equal(await guard("4 0 1 2 3 0\n", budget), null);
    assert.equal(await guard("4 2 0 1 2 0\n5 0 4 3 0\n", budget), null);
    // No newline after the last line.
    assert.equal(await guard("4 2 0 1 2 0\n5 0 4 3 0", budget), null);
  });

  test(`lrat guard (${mode}) - rejects empty clauses that their hints do not derive`, async () => {
    assert.match((await guard("4 0 0\n", budget))!, /line 1: its hints propagate no conflict/);
    assert.match((await guard("4 2 0 1 2 0\n4 d 4 0\n5 0 4 3 0\n", budget))!, /line 3: hint 4 names no clause present there/);
    assert.match((await guard("4 0 2 3 0\n", budget))!, /hint 2 is not unit/);
    assert.match((await guard("4 0 1 2 3 3 0\n", budget))!, /hint 3 is falsified before the last hint/);
    assert.match((await guard("4 0 9 0\n", budget))!, /hint 9 names no clause/);
    assert.match((await guard("4 2 0 1 2 0\n", budget))!, /no empty clause/);
    // A lemma named before it is added is not there yet.
    assert.match((await guard("4 0 1 5 0\n5 -1 0 1 2 3 0\n", budget))!, /hint 5 names no clause present there/);
  });
}
