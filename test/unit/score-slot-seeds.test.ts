/**
 * A score run's slots search as `cubist solve --objective score` searches on as many cores
 * (coordinator/model/score-slots.ts): slot K's first attempt takes the seed `solve` gives its engine K (the engine's
 * seed is the task's plus 1: worker/score-search.ts, cli/solve-score.ts), and an attempt that comes back goes out with
 * a seed no other slot's attempt has.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { modelHarness, published, verdict } from "../helpers/run-model.js";

const BOARD = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");

/** The seed each published slot task carries, by slot and in publishing order. */
const seedsOf = (effects: Parameters<typeof published>[0]): Array<[string, number]> =>
  published(effects).map((t) => [t.task.cubeId, t.task.solver!.seed]);

test("score slot seeds - slot K's first attempt has seed K, as solve's engine K (both add 1 for the engine)", async () => {
  const h = modelHarness({ puzzleText: BOARD, runId: "r1", objective: "score", scoreSlots: 3 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial(3));
  assert.deepEqual(seedsOf(h.effects), [["score-0", 0], ["score-1", 1], ["score-2", 2]]);
});

test("score slot seeds - an attempt that comes back goes out with a seed no other slot's attempt has", async () => {
  const h = modelHarness({ puzzleText: BOARD, runId: "r1", objective: "score", scoreSlots: 3 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial(3));
  for (let round = 0; round < 3; round++) {
    for (const t of published(h.effects).slice(-3)) {
      const back = verdict(t.task.cubeId, VerdictKind.VERDICT_KIND_UNKNOWN, { lease: t.task.lease, reason: "score" });
      await h.run(h.model.recordVerdicts([back]));
    }
  }
  const seeds = seedsOf(h.effects);
  assert.equal(seeds.length, 12, "every slot went out four times");
  assert.equal(new Set(seeds.map(([, s]) => s)).size, seeds.length, `seeds repeat: ${JSON.stringify(seeds)}`);
  assert.deepEqual(seeds.filter(([id]) => id === "score-1").map(([, s]) => s), [1, 1025, 2049, 3073]);
});
