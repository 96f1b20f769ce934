/**
 * Score mode going on where it stopped (engine --restart-skip with --resume-from, docs/engine.md "Score mode"): a
 * score run's slot searches in attempts (worker/score-search.ts), and a chain of attempts, each with the same seed,
 * the placements of the ones before and the last one's path, must find the boards one search without a stop finds,
 * after the same placements, also when a stop falls inside a restart or after a board tightened the bound.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseE2Hints, readCanonical, withHints } from "../../core/formats/index.js";
import { engineProblem, runEngine, type EngineBest, type EngineOptions } from "../../worker/engine/index.js";

const FIX = "test/fixtures/eternity2/";
const bare = readCanonical(readFileSync(FIX + "e2_pieces.txt", "utf8"), "e2_pieces.txt");
const e2 = withHints(bare, parseE2Hints(readFileSync(FIX + "e2_hints.txt", "utf8"), "e2_hints.txt", bare));
const text = engineProblem(e2, []) ?? "";
const size = { rows: e2.rows, cols: e2.cols, pieces: e2.pieces.length };
const TOTAL = 16_000_000;

function options(seed: number, nodeLimit: number, score: NonNullable<EngineOptions["score"]>): EngineOptions {
  return { order: "row", seed, restartBase: 1_000_000, nodeLimit, score: { fromPct: 75, rampPct: 160, ...score } };
}

/** Each board found as (score, placements from the start of the first search). */
type Found = Array<[number, number]>;

async function oneSearch(seed: number): Promise<Found> {
  const found: Found = [];
  await runEngine(text, size, { ...options(seed, TOTAL, {}), onBest: (b: EngineBest) => found.push([b.score!, b.nodes]) });
  return found;
}

/** Searches of `chunk` placements, each going on where the last stopped, to TOTAL placements in all. */
async function chain(seed: number, chunk: number): Promise<{ found: Found; stops: number }> {
  const found: Found = [];
  let done = 0, stops = 0;
  let resume: number[] | undefined;
  let breaks: number | undefined;
  while (done < TOTAL) {
    const base = done;
    const score = { ...(breaks !== undefined ? { breaks } : {}), restartSkip: done, ...(resume ? { resume } : {}) };
    const out = await runEngine(text, size, {
      ...options(seed, Math.min(chunk, TOTAL - done), score),
      onBest: (b: EngineBest) => {
        found.push([b.score!, base + b.nodes]);
        breaks = b.breaks! - 1;
      },
    });
    assert.equal(out.stats.end, "node-limit");
    assert.ok(out.stats.resumeFrom?.length, "a stopped score search says where it goes on");
    resume = out.stats.resumeFrom;
    done += out.stats.nodes;
    stops++;
  }
  return { found, stops };
}

test("engine score resume - a chain of searches finds the boards of one search, after the same placements", async () => {
  for (const seed of [3, 7]) {
    const whole = await oneSearch(seed);
    assert.ok(whole.length >= 5, `seed ${seed}: boards to compare (${whole.length})`);
    for (const chunk of [2_500_000, 3_700_000]) {
      const got = await chain(seed, chunk);
      assert.ok(got.stops >= 4);
      assert.deepEqual(got.found, whole, `seed ${seed}, chunks of ${chunk}`);
    }
  }
});

test("engine score resume - another seed's path is no resume: the search starts its restart afresh, and --lns is refused", async () => {
  const first = await runEngine(text, size, options(3, 2_000_000, {}));
  const other = await runEngine(text, size, options(4, 500_000, { restartSkip: 2_000_000, resume: first.stats.resumeFrom }));
  assert.equal(other.stats.end, "node-limit", "a path that names other lists ends the walk; the search goes on");
  await assert.rejects(runEngine(text, size, options(3, 1000, { lnsMs: 10, resume: [1, 2] })), /not with --lns/);
});
