/**
 * Does a score run's shared bound change what its searches find? On the official Eternity II with its 5 hints (each
 * shuffle seeded, as bench/score.ts does), two pairs of score-mode engines run at once on the same cores, all four with
 * `cubist solve --objective score`'s settings (docs/engine.md "Score mode"):
 *   alone   seeds 1 and 2, each on its own (what `solve --threads 2` runs);
 *   shared  seeds 1 and 2 sharing a bound: each board either finds becomes the other's bound at once, through the
 *           engine's bound file, as a cluster's score slots share the run's best (worker/score-search.ts).
 * A pair's best is the better of its two engines (the engines' own scores: this compares searches, the boards are
 * not re-checked here; bench/score.ts checks them).
 *
 *   node --import tsx bench/score-bound.ts [--seeds 3,4] [--time 900] [--out FILE]
 *
 * Prints one JSON line per shuffle (each pair's best and when it rose) and a table of the best at the marks.
 */

import { appendFileSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { shufflePuzzle } from "../core/generate.js";
import { engineProblem, runEngine, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES } from "../worker/engine/index.js";
import { officialE2 } from "./lib/eternity2.js";
import { printScriptHelp } from "./lib/script-help.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "3,4" },
    time: { type: "string", default: "900" },
    out: { type: "string", default: "" },
    help: { type: "boolean", default: false },
  },
});
if (values.help) printScriptHelp(import.meta.url);

const e2 = officialE2();
const marks = [10, 60, 180, 300, 600, 900, 1800, 3600].filter((m) => m <= Number(values.time));
type Pair = "alone" | "shared";

/** One shuffle: four engines at once, each run as `solve` runs its engines; each pair's best score and the times it rose. */
async function runShuffle(seed: number, seconds: number): Promise<{ seed: number; history: Record<Pair, Array<[number, number]>> }> {
  const { puzzle } = shufflePuzzle(e2, seed);
  const problem = engineProblem(puzzle, [])!;
  const shape = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };
  const dir = mkdtempSync(join(tmpdir(), "cubist-score-bound-"));
  const history: Record<Pair, Array<[number, number]>> = { alone: [], shared: [] };
  const best: Record<Pair, number> = { alone: -1, shared: -1 };
  let sharedBound = Infinity;
  const boundFile = (engineSeed: number): string => join(dir, `bound-${engineSeed}`);
  const t0 = performance.now();
  const onBest = (pair: Pair, score: number, breaks: number): void => {
    if (score > best[pair]) {
      best[pair] = score;
      history[pair].push([+((performance.now() - t0) / 1000).toFixed(1), score]);
    }
    if (pair !== "shared" || breaks - 1 >= sharedBound) return;
    sharedBound = breaks - 1;
    for (const s of [1, 2]) {
      writeFileSync(`${boundFile(s)}.new`, `${sharedBound}\n`);
      renameSync(`${boundFile(s)}.new`, boundFile(s));
    }
  };
  const runs = (["alone", "shared"] as const).flatMap((pair) => [1, 2].map((engineSeed) => runEngine(problem, shape, {
    order: "row", seed: engineSeed, restartBase: SCORE_RESTART_NODES, timeLimitMs: seconds * 1000,
    score: { fromPct: SCORE_FROM_PCT, rampPct: SCORE_RAMP_PCT, ...(pair === "shared" ? { boundFile: boundFile(engineSeed) } : {}) },
    onBest: (b) => onBest(pair, b.score!, b.breaks!),
  })));
  try {
    await Promise.all(runs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { seed, history };
}

const atMark = (h: Array<[number, number]>, m: number): number | string => h.filter(([s]) => s <= m).pop()?.[1] ?? "-";
const rows = [];
for (const seed of values.seeds!.split(",").map(Number)) {
  const row = await runShuffle(seed, Number(values.time));
  const line = JSON.stringify({ ...row, time: Number(values.time), at: new Date().toISOString() });
  console.log(line);
  if (values.out) appendFileSync(values.out, line + "\n");
  rows.push(row);
}
console.log(`\n| shuffle seed | pair | ${marks.map((m) => `best at ${m} s`).join(" | ")} |\n|---|---|${marks.map(() => "---|").join("")}`);
for (const r of rows) for (const pair of ["alone", "shared"] as const) console.log(`| ${r.seed} | ${pair} | ${marks.map((m) => atMark(r.history[pair], m)).join(" | ")} |`);
