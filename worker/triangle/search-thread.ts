/**
 * A worker thread that runs triangle placement searches (worker/triangle/search.ts hands it one job at a time and
 * keeps it for the next): the puzzle comes as its canonical text and is parsed here (a thread trusts its input no
 * more than a file; the last few puzzles are kept), the fixed placements (a cube's) are added as hints, and the
 * search (core/triangle/search.ts) counts the whole space or its part. Boards are posted as they are found, up to
 * `maxBoards`, then the result. The search polls the job's shared stop flag (Int32Array, index 0) and its deadline.
 */

import { parentPort } from "node:worker_threads";
import { triangleWithCube } from "../../core/triangle/cubes.js";
import { parseTriangle } from "../../core/triangle/format.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { countTriangle, type TriangleSearchResult } from "../../core/triangle/search.js";
import type { SearchThreadJob } from "./search.js";

const puzzles = new Map<string, TrianglePuzzle>();

function puzzleOf(job: SearchThreadJob): TrianglePuzzle {
  let p = puzzles.get(job.text);
  if (!p) {
    p = parseTriangle(job.text, job.file);
    if (puzzles.size >= 4) puzzles.clear();
    puzzles.set(job.text, p);
  }
  return p;
}

function search(job: SearchThreadJob): TriangleSearchResult {
  const stop = new Int32Array(job.stop);
  const puzzle = triangleWithCube(puzzleOf(job), job.fixed);
  // Fixed placements that cannot all hold: no board lies in the cube.
  if (puzzle === null) return { count: 0, complete: true, nodes: 0 };
  return countTriangle(puzzle, {
    part: job.part,
    limit: job.limit,
    maxBoards: job.maxBoards,
    onBoard: job.maxBoards > 0 ? (b) => parentPort!.postMessage({ type: "board", cells: b.cells }) : undefined,
    shouldStop: () => Atomics.load(stop, 0) !== 0 || (job.deadline !== undefined && Date.now() > job.deadline),
  });
}

parentPort!.on("message", (job: SearchThreadJob) => {
  try {
    parentPort!.postMessage({ type: "done", result: search(job) });
  } catch (err) {
    parentPort!.postMessage({ type: "failed", message: `${(err as Error).name}: ${(err as Error).message}` });
  }
});
