/**
 * Scan cubes (core/cubes/scan-split.ts) against the engine's whole-board scan, one process at a time, no cluster:
 * how the work of one `short` scan spreads over the cubes of `scanSplit`, and whether running them in order replays
 * the scan (the same placements to the first solution, or to the end on an UNSAT board).
 *
 *   node --import tsx bench/scan-replay.ts FILE [--cubes 64] [--limit-ms 120000]
 *
 * Prints the whole scan's placements and time, then per cube in order its placements and time until the first
 * solution (or the end), and a summary: cubes run, placements (cubes + the split's own), the largest cube's share,
 * and how the cubes' placements would divide over 2 workers taking them in order (the later of the two finish times).
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { scanSplit } from "../core/cubes/scan-split.js";
import { parsePuzzle } from "../core/formats/index.js";
import { engineProblem, locateEngine } from "../worker/engine/index.js";

const { values, positionals } = parseArgs({ options: { cubes: { type: "string", default: "64" }, "limit-ms": { type: "string", default: "120000" } }, allowPositionals: true });
const file = positionals[0];
if (!file) throw new Error("usage: scan-replay.ts FILE [--cubes N]");
const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
const engine = locateEngine();

function run(problem: string): { nodes: number; seconds: number; sat: boolean } {
  let out: string;
  try {
    out = execFileSync(engine, ["--order", "short", "--time-ms", values["limit-ms"]!], { input: problem, encoding: "utf8", maxBuffer: 1 << 26 });
  } catch (err) {
    out = String((err as { stdout?: string }).stdout ?? "");
  }
  const stat = (k: string): number => Number(new RegExp(`^c ${k} (\\S+)`, "m").exec(out)?.[1] ?? NaN);
  return { nodes: stat("nodes"), seconds: stat("seconds"), sat: /^s SATISFIABLE/m.test(out) };
}

const whole = run(engineProblem(puzzle, [])!);
process.stdout.write(`whole scan: ${whole.sat ? "SAT" : "no board"} after ${(whole.nodes / 1e6).toFixed(2)} M placements, ${whole.seconds.toFixed(2)} s\n`);
const split = scanSplit(puzzle, { targetCubes: Number(values.cubes) });
process.stdout.write(`scan split: ${split.cubes.length} cubes at depth ${split.stats.maxDepth}, ${split.stats.nodes} placements, ${split.refuted.count} refuted\n`);
let nodes = split.stats.nodes, seconds = 0, ran = 0, sat = false;
const perCube: number[] = [];
for (const cube of split.cubes) {
  const r = run(engineProblem(puzzle, cube.placements)!);
  ran++;
  nodes += r.nodes;
  seconds += r.seconds;
  perCube.push(r.nodes);
  if (r.nodes > 0.02 * whole.nodes || r.sat) process.stdout.write(`  cube ${ran - 1}: ${(r.nodes / 1e6).toFixed(2)} M${r.sat ? " SAT" : ""}\n`);
  if (r.sat) { sat = true; break; }
}
// Two workers taking the cubes in order: each next cube goes to the one free first.
const free = [0, 0];
for (const n of perCube) { const w = free[0] <= free[1] ? 0 : 1; free[w] += n; }
const largest = Math.max(...perCube);
process.stdout.write(`cubes in order: ${ran} run, ${sat ? "SAT" : "no board"} after ${(nodes / 1e6).toFixed(2)} M placements (whole scan ${(whole.nodes / 1e6).toFixed(2)} M), ${seconds.toFixed(2)} s of engine time\n`);
process.stdout.write(`largest cube ${(largest / 1e6).toFixed(2)} M (${(100 * largest / Math.max(1, nodes)).toFixed(1)}%); 2 workers in order: ${(Math.max(...free) / 1e6).toFixed(2)} M each at most (${(nodes / Math.max(...free)).toFixed(2)}x)\n`);
