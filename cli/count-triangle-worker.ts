/**
 * One part of a triangle count, in a worker thread (cli/count-triangle.ts starts one per part). The puzzle comes as
 * the file text and is parsed again here (a worker never trusts its input more than a file). Boards are posted as
 * they are found when asked for; the count is posted at the end. The shared stop flag (Int32Array, index 0) is
 * polled by the search.
 */

import { parentPort, workerData } from "node:worker_threads";
import { parseTriangle } from "../core/triangle/format.js";
import { countTriangle } from "../core/triangle/search.js";

interface Job {
  text: string;
  file: string;
  k: number;
  n: number;
  limit?: number;
  boards: boolean;
  stop: SharedArrayBuffer;
  deadline?: number;
}

const job = workerData as Job;
const stop = new Int32Array(job.stop);
const puzzle = parseTriangle(job.text, job.file);
const result = countTriangle(puzzle, {
  part: { k: job.k, n: job.n },
  limit: job.limit,
  onBoard: job.boards ? (b) => parentPort!.postMessage({ type: "board", cells: b.cells }) : undefined,
  shouldStop: () => Atomics.load(stop, 0) !== 0 || (job.deadline !== undefined && Date.now() > job.deadline),
});
parentPort!.postMessage({ type: "done", result });
