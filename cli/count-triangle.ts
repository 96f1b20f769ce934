/**
 * Single-machine counting of triangle puzzles (`cubist solve TRIANGLE --all`): the placement search split into
 * `threads` disjoint parts (core/triangle/search.ts, `part`), one worker thread each; their counts add up exactly.
 * Every board a part reports is verified here by the independent verifier before it is handed on; a board that
 * fails is an EncoderBugError. The count is complete only when every part exhausted its subtrees. With `upToSymmetry`
 * only one board per orbit under the board's symmetries is counted.
 */

import { EncoderBugError } from "../core/errors.js";
import { triangleFolder } from "../core/symmetry.js";
import { writeTriangle } from "../core/triangle/format.js";
import type { TriangleBoard, TrianglePuzzle } from "../core/triangle/puzzle.js";
import type { TriangleSearchResult } from "../core/triangle/search.js";
import { verifyTriangleBoard } from "../core/triangle/verify.js";
import { runTriangleSearch } from "../worker/triangle/search.js";

export interface TriangleCountOptions {
  threads: number;
  limit?: number;
  timeLimitSec?: number;
  onBoard?: (board: TriangleBoard) => void;
  /** Count (and hand over) one board per orbit under the board's symmetries (core/symmetry.ts). */
  upToSymmetry?: boolean;
  signal?: AbortSignal;
}

export interface TriangleCountResult {
  count: number;
  complete: boolean;
  reason?: "limit" | "time-limit" | "aborted";
  placements: number;
  wallMs: number;
}

export async function countTriangleLocal(puzzle: TrianglePuzzle, options: TriangleCountOptions): Promise<TriangleCountResult> {
  const started = performance.now();
  const n = Math.max(1, options.threads);
  const stop = new AbortController();
  const halt = (): void => stop.abort();
  if (options.signal?.aborted) halt();
  options.signal?.addEventListener("abort", halt, { once: true });
  const deadline = options.timeLimitSec ? Date.now() + options.timeLimitSec * 1000 : undefined;
  const text = writeTriangle(puzzle);
  let seen = 0;
  let failure: Error | null = null;
  const fold = options.upToSymmetry ? triangleFolder(puzzle) : null;
  const wantBoards = options.onBoard !== undefined || fold !== null;
  const onBoard = (cells: TriangleBoard["cells"]): void => {
    if (failure || (options.limit && seen >= options.limit)) return;
    const board: TriangleBoard = { side: puzzle.side, cells };
    const verdict = verifyTriangleBoard(puzzle, board);
    if (!verdict.ok) {
      failure = new EncoderBugError(`triangle search board: ${verdict.violations[0].message}`);
      halt();
      return;
    }
    if (fold && !fold(board)) return;
    seen++;
    options.onBoard?.(board);
    if (options.limit && seen >= options.limit) halt();
  };
  const runPart = (k: number): Promise<TriangleSearchResult> => runTriangleSearch(
    { text, file: "<count>", part: { k, n }, limit: fold ? undefined : options.limit, maxBoards: wantBoards ? Number.MAX_SAFE_INTEGER : 0, deadline },
    { signal: stop.signal, onBoard },
  );
  let parts: TriangleSearchResult[];
  try {
    parts = await Promise.all(Array.from({ length: n }, (_, k) => runPart(k)));
  } finally {
    options.signal?.removeEventListener("abort", halt);
  }
  if (failure) throw failure;
  const total = parts.reduce((s, p) => s + p.count, 0);
  const count = wantBoards ? seen : options.limit ? Math.min(total, options.limit) : total;
  const exhausted = parts.every((p) => p.complete);
  const complete = fold ? exhausted : exhausted && count === total;
  const reason = complete ? undefined
    : options.signal?.aborted ? "aborted"
    : options.limit && (fold ? seen : total) >= options.limit ? "limit"
    : deadline !== undefined && Date.now() >= deadline ? "time-limit" : "aborted";
  return { count, complete, ...(reason ? { reason } : {}), placements: parts.reduce((s, p) => s + p.nodes, 0), wallMs: performance.now() - started };
}
