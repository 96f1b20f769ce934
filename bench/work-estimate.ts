/**
 * How good is the work estimate (issue 13 "an ETA that means something")? Two measurements on generated 7x7 boards
 * (3 border, 7 centre colours) made unsatisfiable by changing one inner piece's colour, so every search must finish:
 *
 * 1. The estimator: `cubist-engine --estimate N` (Knuth's random probes) against the placements the refutation takes.
 * 2. The run: `solve --workers 2 --solver none` on one of them; at 10% of the run's wall time, placements so far plus
 *    the estimated work left, against the run's final placements.
 *
 *   node --import tsx bench/work-estimate.ts [--seeds 1,2,3] [--run-seed 2] [--probes 256,4096]
 */

import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { generatePuzzle } from "../core/generate.js";
import { writeCanonical } from "../core/formats/index.js";
import type { Edges, Puzzle } from "../core/puzzle.js";
import { engineProblem, locateEngine } from "../worker/engine/index.js";
import { solveOnLocalCluster } from "../cli/local-cluster.js";
import type { RunStatus } from "../proto/gen/cubist/v1/run.js";

const { values } = parseArgs({
  options: {
    seeds: { type: "string", default: "1,2,3" },
    "run-seed": { type: "string", default: "2" },
    probes: { type: "string", default: "256,4096" },
  },
});

function broken(seed: number): Puzzle {
  const { puzzle } = generatePuzzle({ rows: 7, cols: 7, borderColors: 3, centerColors: 7, seed });
  const pieces = puzzle.pieces.map((p) => ({ ...p }));
  const i = pieces.findIndex((p) => p.edges.every((c) => c !== 0));
  const e = [...pieces[i].edges];
  e[0] = e[0] === 1 ? 2 : 1;
  pieces[i] = { ...pieces[i], edges: e as unknown as Edges };
  return { ...puzzle, pieces, name: `broken-7x7-s${seed}` };
}

console.log("| board | probes | estimate | stderr | placements to refute | estimate / real |\n|---|---|---|---|---|---|");
for (const seed of values.seeds!.split(",").map(Number)) {
  const problem = engineProblem(broken(seed), [])!;
  for (const probes of values.probes!.split(",").map(Number)) {
    const r = spawnSync(locateEngine(), ["--order", "short", "--estimate", String(probes)], { input: problem, encoding: "utf8", maxBuffer: 1 << 24 });
    const est = /c estimate nodes=(\S+) stderr=(\S+)/.exec(r.stdout)!;
    const real = Number(/c nodes (\d+)/.exec(r.stdout)![1]);
    console.log(`| 7x7 s${seed} | ${probes} | ${Number(est[1]).toExponential(2)} | ${Number(est[2]).toExponential(1)} | ${real.toExponential(2)} | ${(Number(est[1]) / real).toFixed(2)} |`);
  }
}

const seed = Number(values["run-seed"]);
const samples: Array<{ t: number; s: RunStatus }> = [];
const t0 = performance.now();
const result = await solveOnLocalCluster(
  { puzzleText: writeCanonical(broken(seed)), puzzleLabel: `broken-7x7-s${seed}`, solver: "none", targetCubes: 64 },
  { workers: 2, onStatus: (s) => samples.push({ t: (performance.now() - t0) / 1000, s }) },
);
const wall = (performance.now() - t0) / 1000;
const total = result.status.placements;
console.log(`\nrun: broken 7x7 s${seed}, --workers 2 --solver none, 64 cubes: ${result.state} in ${wall.toFixed(1)} s, ${total.toExponential(3)} placements`);
console.log("| at (s) | closed | placements so far | estimated left | so far + left | / final total |\n|---|---|---|---|---|---|");
for (const frac of [0.1, 0.25, 0.5]) {
  const at = samples.filter((x) => x.t <= frac * wall && x.s.remainingNodes > 0).pop();
  if (!at) {
    console.log(`| ${(frac * wall).toFixed(1)} | - | no estimate yet | | | |`);
    continue;
  }
  const sum = at.s.placements + at.s.remainingNodes;
  console.log(`| ${at.t.toFixed(1)} (${Math.round(frac * 100)}% of the run) | ${(at.s.progress * 100).toFixed(1)}% | ${at.s.placements.toExponential(2)} | ${at.s.remainingNodes.toExponential(2)} ± ${at.s.remainingNodesStderr.toExponential(1)} | ${sum.toExponential(2)} | ${(sum / total).toFixed(2)} |`);
}
