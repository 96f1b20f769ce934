/**
 * Records a run's verdict stream for the ETA test (test/unit/steady-eta.test.ts): the initial cubes (id, weight) and
 * every verdict (time since the split, cube, kind, placements, the tree estimate and its standard error), from a real
 * cluster (private nats-server, the coordinator, two workers running the placement engine alone) on a generated board
 * made unsatisfiable (bench/work-estimate.ts's boards, 7x7 by default), each cube closed in one attempt.
 *
 *   node --import tsx bench/eta-record.ts [--size 7] [--centre 7] [--seed 2] [--cubes 64] [--max-sec S] -o FILE.json
 */

import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { generatePuzzle } from "../core/generate.js";
import { writeCanonical } from "../core/formats/index.js";
import type { Edges, Puzzle } from "../core/puzzle.js";
import type { Verdict } from "../proto/gen/cubist/v1/cube.js";
import { startTestNats } from "../test/helpers/nats.js";
import { startTestCoordinator, waitForRunEnd } from "../test/helpers/coordinator.js";
import { startTestWorker } from "../test/helpers/worker.js";

const { values } = parseArgs({
  options: { seed: { type: "string", default: "2" }, cubes: { type: "string", default: "64" }, size: { type: "string", default: "7" }, centre: { type: "string", default: "7" }, "max-sec": { type: "string", default: "0" }, o: { type: "string" } },
});
const size = Number(values.size);

function broken(seed: number): Puzzle {
  const { puzzle } = generatePuzzle({ rows: size, cols: size, borderColors: 3, centerColors: Number(values.centre), seed });
  const pieces = puzzle.pieces.map((p) => ({ ...p }));
  const i = pieces.findIndex((p) => p.edges.every((c) => c !== 0));
  const e = [...pieces[i].edges];
  e[0] = e[0] === 1 ? 2 : 1;
  pieces[i] = { ...pieces[i], edges: e as unknown as Edges };
  return { ...puzzle, pieces, name: `broken-${size}x${size}-c${values.centre}-s${seed}` };
}

const seed = Number(values.seed);
const t = await startTestNats();
const workers = [await startTestWorker(t, { concurrency: 1 }), await startTestWorker(t, { concurrency: 1 })];
const c = await startTestCoordinator(t);
try {
  const run = await c.coordinator.submitRun({
    puzzleText: writeCanonical(broken(seed)), puzzleLabel: `broken-${size}x${size}-s${seed}`, format: "canonical", solver: "none", targetCubes: Number(values.cubes),
    timeLimitSec: 3600, firstTimeLimitSec: 3600,
  });
  await run.splitDone();
  const t0 = Date.now();
  const cubes = [...run.table.entries()].map((e) => ({ id: e.id, branching: e.branching, weight: e.weight }));
  const verdicts: unknown[] = [];
  run.on("verdict", (v: Verdict) => verdicts.push({
    ms: Date.now() - t0, cube: v.cubeId, kind: v.kind, searchNodes: v.stats?.searchNodes ?? 0, estNodes: v.stats?.estNodes ?? 0, estStderr: v.stats?.estNodesStderr ?? 0,
  }));
  // --max-sec S: the first S seconds of the stream (the run is cancelled then), for a board that takes longer.
  const maxMs = Number(values["max-sec"]) * 1000;
  const cap = maxMs > 0 ? setTimeout(() => void run.cancel("recorded long enough"), maxMs) : undefined;
  const state = await waitForRunEnd(run, 3_600_000);
  clearTimeout(cap);
  const out = { board: `broken-${size}x${size}-c${values.centre}-s${seed}`, workers: 2, cubes, verdicts, state, wallMs: Date.now() - t0 };
  const text = JSON.stringify(out);
  if (values.o) writeFileSync(values.o, `${text}\n`);
  console.log(`${out.board}: ${cubes.length} cubes, ${verdicts.length} verdicts, ${state} in ${(out.wallMs / 1000).toFixed(1)} s`);
} finally {
  await c.close();
  for (const w of workers) await w.close();
  await t.close();
}
