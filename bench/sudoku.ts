/**
 * Sudoku: Kissat alone on the encoding against cube and conquer on one machine (lookahead cubes, `--workers` Kissat
 * processes, cubing included), one after the other so both see the same load, on the hard 9x9 puzzles of
 * bench/puzzles/sudoku9-hard.txt (each checked unique first) and on seeded 16x16 and 25x25 boards with few givens
 * (core/sudoku/generate.ts). Every grid is checked by the Sudoku verifier. Prints one JSON line per board.
 *
 *   node --import tsx bench/sudoku.ts [--workers 2] [--repeats 3] [--givens16 40] [--givens25 60] [--seeds 1-3]
 */

import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

import { dimacsChunks } from "../core/encode/dimacs.js";
import { decodeSudoku, encodeSudoku } from "../core/sudoku/encode.js";
import { parseSudoku } from "../core/sudoku/format.js";
import { generateSudoku } from "../core/sudoku/generate.js";
import type { Sudoku } from "../core/sudoku/sudoku.js";
import { verifySudoku } from "../core/sudoku/verify.js";
import { runSolver } from "../host/solver/index.js";
import { countSudoku } from "../cli/count-sudoku.js";
import { defaultCubeDepth, solveCnfLocal } from "../cli/solve-cnf.js";

const HARD = fileURLToPath(new URL("./puzzles/sudoku9-hard.txt", import.meta.url));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function measure(puzzle: Sudoku, workers: number, repeats: number): Promise<Record<string, unknown>> {
  const cnf = encodeSudoku(puzzle);
  const alone: number[] = [], cubes: number[] = [], cubing: number[] = [];
  let cubeCount = 0;
  for (let i = 0; i < repeats; i++) {
    const t0 = performance.now();
    const a = await runSolver(dimacsChunks(cnf), cnf.numVars);
    alone.push((performance.now() - t0) / 1000);
    if (a.kind !== "sat" || !verifySudoku(puzzle, decodeSudoku(puzzle, a.model)).ok) throw new Error(`${puzzle.name}: Kissat alone: ${a.kind}`);
    const c = await solveCnfLocal(cnf, { workers, maxDepth: defaultCubeDepth(workers) });
    if (c.status !== "sat" || !verifySudoku(puzzle, decodeSudoku(puzzle, c.model)).ok) throw new Error(`${puzzle.name}: cubes: ${c.status}`);
    cubes.push(c.stats.wallMs / 1000);
    cubing.push(c.stats.cubingMs / 1000);
    cubeCount = c.stats.cubes;
  }
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    puzzle: puzzle.name, size: puzzle.size, givens: puzzle.cells.filter((d) => d !== 0).length, workers, cubes: cubeCount, repeats,
    aloneWallS: r(median(alone)), cubesWallS: r(median(cubes)), cubingS: r(median(cubing)), ratio: r(median(alone) / median(cubes)), load: loadavg()[0],
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      workers: { type: "string", default: "2" }, repeats: { type: "string", default: "3" }, seeds: { type: "string", default: "1-3" },
      givens16: { type: "string", default: "40" }, givens25: { type: "string", default: "60" },
    },
  });
  const workers = Number(values.workers), repeats = Number(values.repeats);
  const hard = readFileSync(HARD, "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
  for (const [i, line] of hard.entries()) {
    const puzzle = { ...parseSudoku(line, `${HARD}:${i + 1}`), name: `hard9-${i + 1}` };
    const count = await countSudoku(puzzle, encodeSudoku(puzzle), { limit: 2 });
    if (!(count.complete && count.count === 1)) throw new Error(`${puzzle.name} is not unique (${count.count} solutions found)`);
    process.stdout.write(JSON.stringify(await measure(puzzle, workers, repeats)) + "\n");
  }
  const [from, to] = values.seeds!.split("-").map(Number);
  for (const [box, givens] of [[4, Number(values.givens16)], [5, Number(values.givens25)]]) {
    for (let seed = from; seed <= (to ?? from); seed++) process.stdout.write(JSON.stringify(await measure(generateSudoku(box, givens, seed), workers, repeats)) + "\n");
  }
}

await main();
