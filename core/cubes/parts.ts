/**
 * Cube parts (docs/cubing.md "Cube parts"): a scan cube searched by n workers at once. Part k of n is the engine's
 * `--part k/n --part-depth depth` on the cube: of the subtrees `depth` free positions below the cube, numbered in
 * the engine's order, the ones whose number is k mod n. The n parts of a cube cover it exactly and do not overlap,
 * so each weighs 1/n of it; their workers walk the cube's scan side by side, each taking every n-th subtree, and
 * meet its first board after about 1/n of the placements one worker would make.
 *
 * Resuming (docs/cubing.md "Resuming"): a search stopped by its budget says how far it got (PartProgress: every
 * subtree of its part numbered below `next` is exhausted), and whatever replaces the cube (another attempt, or its
 * parts after a re-split) starts there (`from`) instead of searching those subtrees again. The weights do not
 * change: a part still stands for all of its subtrees, the ones before `from` closed by its ancestor.
 */

import type { Cube, CubePart, PartProgress, ResumePath } from "./types.js";

/** The largest n of a part: the engine reads `--part k/n` as C ints, and a worker refuses more (partProblem). */
export const MAX_PART_N = 2 ** 31 - 1;

/**
 * The n parts of `cube` (a whole cube), each weighing 1/n of it; n < 2 leaves it whole. `from`: the subtrees at
 * `depth` numbered below it are exhausted (the cube's own search stopped there).
 */
export function partsOf(cube: Cube, n: number, depth: number, from = 0): Cube[] {
  if (cube.part) throw new Error("partsOf: the cube is already a part (re-split it with resplitPart)");
  if (n < 2) return [cube];
  return Array.from({ length: n }, (_, k) => ({
    placements: cube.placements,
    branching: [...cube.branching, n],
    weight: cube.weight / n,
    part: { k, n, depth, ...(from > 0 ? { from } : {}) },
  }));
}

/**
 * A part split m ways, exactly: part k of n is the subtrees numbered k mod n, which are those numbered k + n j
 * mod n m for j = 0 .. m-1 (the same depth). Each child weighs 1/m of the part, and starts where the part's
 * search stopped (`progress`, at the part's depth) or its own `from`, whichever is further. Fewer ways where n m
 * would pass MAX_PART_N (after many re-splits); a part at the bound goes on as its one child.
 */
export function resplitPart(cube: Cube, m: number, progress?: PartProgress): Cube[] {
  const p: CubePart | undefined = cube.part;
  if (!p) throw new Error("resplitPart: the cube is not a part");
  const ways = Math.max(1, Math.min(Math.max(2, Math.floor(m)), Math.floor(MAX_PART_N / p.n)));
  const from = resumeFrom(p, progress);
  return Array.from({ length: ways }, (_, j) => ({
    placements: cube.placements,
    branching: [...cube.branching, ways],
    weight: cube.weight / ways,
    part: { k: p.k + p.n * j, n: p.n * ways, depth: p.depth, ...(from > 0 ? { from } : {}) },
  }));
}

/** Where a search of `part` starts: its own `from`, or further where `progress` (at the same depth) got. */
export function resumeFrom(part: CubePart, progress?: PartProgress): number {
  const own = part.from ?? 0;
  return progress && progress.depth === part.depth && progress.next > own ? progress.next : own;
}

/** Why `part` is not a well-formed part of a task (what a worker checks), or null. n = 1 is the whole cube. */
export function partProblem(part: CubePart): string | null {
  if (!Number.isInteger(part.n) || part.n < 1 || part.n > MAX_PART_N) return `part n ${part.n} (want 1 .. 2^31-1)`;
  if (!Number.isInteger(part.k) || part.k < 0 || part.k >= part.n) return `part k ${part.k} of ${part.n}`;
  if (!Number.isInteger(part.depth) || part.depth < 0 || part.depth > 1_000_000) return `part depth ${part.depth}`;
  if (part.from !== undefined && !(Number.isSafeInteger(part.from) && part.from >= 0)) return `part from ${part.from}`;
  if (part.resume !== undefined) {
    if (part.n !== 1) return `a resume path in part ${part.k} of ${part.n} (only the whole cube goes on exactly)`;
    return pathProblem(part.resume);
  }
  return null;
}

/** The most depths a resume path has: the engine's largest board (64 x 64 cells), and the depth it stopped in. */
export const MAX_RESUME_DEPTHS = 64 * 64 + 1;

/** Why `path` is not a resume path the engine takes (1 .. MAX_RESUME_DEPTHS ranks, each an integer below 2^31), or null. */
export function pathProblem(path: ResumePath): string | null {
  const ranks = path.ranks;
  if (!Array.isArray(ranks) || ranks.length === 0 || ranks.length > MAX_RESUME_DEPTHS) return `a resume path of ${Array.isArray(ranks) ? ranks.length : "no"} depths`;
  const bad = ranks.find((r) => !(Number.isInteger(r) && r >= 0 && r < 2 ** 31));
  return bad === undefined ? null : `a resume rank ${bad}`;
}

/** Why `progress` (from a verdict) is not a well-formed report, or null. */
export function progressProblem(progress: PartProgress): string | null {
  if (!(Number.isSafeInteger(progress.next) && progress.next >= 0)) return `part next ${progress.next}`;
  if (!(Number.isInteger(progress.depth) && progress.depth >= 0 && progress.depth <= 1_000_000)) return `part depth ${progress.depth}`;
  return progress.path === undefined ? null : pathProblem(progress.path);
}
