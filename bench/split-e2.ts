/**
 * Cube splitting at Eternity II size, and the placement search rate.
 *
 *   node --import tsx bench/split-e2.ts [--cubes N] [--order O] [--expansion E] [--pruning P] [--collect]
 *   node --import tsx bench/split-e2.ts --matrix [--cubes N]     every order x expansion, one process each
 *   node --import tsx bench/split-e2.ts --search [--nodes N]     placements/s of searchPlacements
 *
 * A split run streams the cubes (or with --collect keeps them all, as `splitCubes` does) and prints one
 * JSON line: cubes, refuted count and weight, split nodes, depth, wall time, peak RSS and the spread of
 * cube weights. Defaults: 200,000 cubes, most-constrained, heaviest-first, full pruning.
 * --search runs the backtracker in row-major order (pruning none) on brendan 8x8 and 10x10 below their
 * planted first row(s), and on Heule's em_7_3_6, and prints placements per second.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { parsePuzzle, readBrendanSolution } from "../core/formats/index.js";
import type { Puzzle } from "../core/puzzle.js";
import { searchPlacements } from "../core/cubes/search.js";
import { streamCubes } from "../core/cubes/split.js";
import type { CellOrder, Cube, Expansion, PruningLevel } from "../core/cubes/types.js";
import { officialE2 } from "./lib/eternity2.js";

const FIX = new URL("../test/fixtures/", import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIX), "utf8");

function splitRun(cubes: number, cellOrder: CellOrder, expansion: Expansion, pruning: PruningLevel, collect: boolean): void {
  const puzzle = officialE2();
  const started = performance.now();
  const kept: Cube[] = [];
  let count = 0, minW = Number.POSITIVE_INFINITY, maxW = 0, placements = 0, peakRss = 0;
  let done: { refuted: { count: number; weight: number }; stats: object } | null = null;
  for (const e of streamCubes(puzzle, { targetCubes: cubes, cellOrder, expansion, pruning })) {
    if (e.kind === "cube") {
      count++;
      placements += e.cube.placements.length;
      minW = Math.min(minW, e.cube.weight);
      maxW = Math.max(maxW, e.cube.weight);
      if (collect) kept.push(e.cube);
      if ((count & 0x3fff) === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    } else if (e.kind === "done") {
      done = { refuted: { count: e.refuted.count, weight: e.refuted.weight }, stats: e.stats };
    }
  }
  const ms = performance.now() - started;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(JSON.stringify({
    cubes: count, cellOrder, expansion, pruning, collect, ms: Math.round(ms), peakRssMB: Math.round(peakRss / 1e6),
    meanPlacements: +(placements / count).toFixed(2), weightSpread: +(maxW / minW).toPrecision(3), ...done, kept: kept.length,
  }));
}

function searchRun(nodeLimit: number): void {
  const cases: Array<{ name: string; puzzle: Puzzle; fixedCells: number; board?: ReturnType<typeof readBrendanSolution> }> = [];
  for (const [size, fixedCells] of [["08x08", 8], ["10x10", 20]] as const) {
    const puzzle = parsePuzzle(read(`brendan/pieces_${size}.txt`), size);
    cases.push({ name: `brendan ${size} (first ${fixedCells} cells fixed)`, puzzle, fixedCells,
      board: readBrendanSolution(read(`brendan/solutions_${size}.txt`), size, puzzle) });
  }
  cases.push({ name: "heule em_7_3_6", puzzle: parsePuzzle(read("heule2008/em_7_3_6.txt"), "em_7_3_6"), fixedCells: 0 });
  for (const c of cases) {
    for (const cellOrder of ["row-major", "most-constrained"] as const) {
      const fixed = c.board ? Array.from({ length: c.fixedCells }, (_, cell) => ({ cell, ...c.board!.cells[cell]! })) : [];
      const started = performance.now();
      const r = searchPlacements(c.puzzle, { fixed, cellOrder, nodeLimit: cellOrder === "row-major" ? nodeLimit : nodeLimit / 10 });
      const ms = performance.now() - started;
      console.log(JSON.stringify({ case: c.name, cellOrder, kind: r.kind, nodes: r.nodes, ms: Math.round(ms),
        placementsPerSecond: Math.round(r.nodes / (ms / 1000)) }));
    }
  }
}

const { values } = parseArgs({
  options: {
    cubes: { type: "string", default: "200000" },
    order: { type: "string", default: "most-constrained" },
    expansion: { type: "string", default: "heaviest-first" },
    pruning: { type: "string", default: "full" },
    collect: { type: "boolean", default: false },
    matrix: { type: "boolean", default: false },
    search: { type: "boolean", default: false },
    nodes: { type: "string", default: "300000000" },
  },
});

if (values.search) {
  searchRun(Number(values.nodes));
} else if (values.matrix) {
  const script = fileURLToPath(import.meta.url);
  for (const order of ["most-constrained", "spiral", "row-major", "frame-first"]) {
    for (const expansion of ["breadth-first", "heaviest-first"]) {
      for (const collect of [false, true]) {
        const args = ["--import", "tsx", script, "--cubes", values.cubes, "--order", order, "--expansion", expansion,
          "--pruning", values.pruning, ...(collect ? ["--collect"] : [])];
        spawnSync(process.execPath, args, { stdio: "inherit" });
      }
    }
  }
} else {
  splitRun(Number(values.cubes), values.order as CellOrder, values.expansion as Expansion, values.pruning as PruningLevel, values.collect);
}
