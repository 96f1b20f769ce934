/**
 * What a run applied before recording it (coordinator/model/run-recorder.ts): a decision stopped by a failed effect
 * leaves the cubes it closed owed to the ledger; `recordOwed` records each once, and the ledger replays to the same
 * table. Without it, the verdicts' redeliveries find their cubes closed in memory and the ledger never gets them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runSteps } from "../../coordinator/model/run-effects.js";
import { sampled } from "../../coordinator/model/run-trust.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import { modelHarness, openCubes, verdict } from "../helpers/run-model.js";

const GENERATED = generatePuzzle({ rows: 5, cols: 5, borderColors: 3, centerColors: 6, seed: 1 });
const UNSAT = VerdictKind.VERDICT_KIND_UNSAT;

const closedIds = (ledger: readonly LedgerEntry[]): string[] =>
  ledger.flatMap((e) => (e.entry?.$case === "closed" ? e.entry.value.cubes.map((c) => c.id) : []));

test("run recorder - cubes closed by a decision that a failed publish stopped are recorded once by recordOwed", async () => {
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 32, spotCheckPercent: 30 }, { checkers: () => true });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cubes = openCubes(h.model);
  const unchecked = cubes.filter((id) => !sampled("r1", id, 30)).slice(0, 2);
  const checked = cubes.find((id) => sampled("r1", id, 30))!;
  assert.ok(unchecked.length === 2 && checked !== undefined);
  // Two refutations close at once; the third is spot-checked, and publishing its check fails (NATS lost a node).
  const batch = [...unchecked, checked].map((id) => verdict(id, UNSAT, { workerId: "w1" }));
  const failing = runSteps(h.model.recordVerdicts(batch), (e) => {
    if (e.type === "publish") throw new Error("jetstream is not enabled");
    if (e.type === "append") h.ledger.push(...e.entries);
  });
  await assert.rejects(failing, /not enabled/);
  assert.ok(unchecked.every((id) => h.model.table.get(id)!.state === "unsat"), "applied in memory");
  assert.deepEqual(closedIds(h.ledger).filter((id) => unchecked.includes(id)), [], "not yet recorded");
  assert.ok(h.model.recorder.owes);

  // The redelivered verdicts change nothing (their cubes are closed); the debt is what records them.
  await h.run(h.model.recordVerdicts(batch.slice(0, 2)));
  await h.run(h.model.recordOwed());
  assert.equal(h.model.recorder.owes, false);
  assert.deepEqual(closedIds(h.ledger).filter((id) => unchecked.includes(id)).sort(), [...unchecked].sort(), "each recorded once");
  await h.run(h.model.recordOwed());
  assert.equal(closedIds(h.ledger).filter((id) => unchecked.includes(id)).length, 2, "nothing owed twice");
  const replayed = h.replay();
  for (const id of unchecked) assert.equal(replayed.table.get(id)!.state, "unsat");
});

test("run recorder - a failed append keeps its closes owed; a decision that completes owes nothing", async () => {
  const h = modelHarness({ runId: "r1", searchMs: 0, puzzleText: writeCanonical(GENERATED.puzzle), targetCubes: 8 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const [a, b] = openCubes(h.model);
  await assert.rejects(runSteps(h.model.recordVerdicts([verdict(a, UNSAT)]), (e) => {
    if (e.type === "append") throw new Error("timeout");
  }));
  assert.ok(h.model.recorder.owes, "the close whose append failed is still owed");
  await h.run(h.model.recordVerdicts([verdict(b, UNSAT)]));
  assert.deepEqual(closedIds(h.ledger), [b]);
  await h.run(h.model.recordOwed());
  assert.deepEqual(closedIds(h.ledger), [b, a]);
  assert.equal(h.model.recorder.owes, false);
});
