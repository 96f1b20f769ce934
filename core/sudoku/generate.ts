/**
 * Seeded Sudoku boards with few givens, for benchmarks and tests: a full grid by the pattern
 * digit(r, c) = ((r mod n) * n + floor(r / n) + c) mod N + 1 (a valid solution for every box side n), its digits,
 * bands, stacks, rows within a band and columns within a stack shuffled, then `givens` cells kept. The puzzle is
 * solvable (the grid solves it) and, with few givens, has many solutions.
 */

import { createRandom, type Seed } from "../random.js";
import { MAX_BOX, MIN_BOX, type Sudoku } from "./sudoku.js";

/** A puzzle of box side `box` with `givens` givens (see the module note). */
export function generateSudoku(box: number, givens: number, seed: Seed): Sudoku {
  if (!(Number.isInteger(box) && box >= MIN_BOX && box <= MAX_BOX)) throw new RangeError(`box must be in ${MIN_BOX}..${MAX_BOX}, got ${box}`);
  const N = box * box;
  if (!(Number.isInteger(givens) && givens >= 0 && givens <= N * N)) throw new RangeError(`givens must be in 0..${N * N}, got ${givens}`);
  const random = createRandom(seed);
  const order = (): number[] => random.shuffle(Array.from({ length: box }, (_, i) => i))
    .flatMap((band) => random.shuffle(Array.from({ length: box }, (_, i) => band * box + i)));
  const rows = order(), cols = order();
  const digits = random.shuffle(Array.from({ length: N }, (_, i) => i + 1));
  const full = Array.from({ length: N * N }, (_, i) => {
    const r = rows[Math.floor(i / N)], c = cols[i % N];
    return digits[((r % box) * box + Math.floor(r / box) + c) % N];
  });
  const keep = new Set(random.shuffle(Array.from({ length: N * N }, (_, i) => i)).slice(0, givens));
  return { box, size: N, cells: full.map((d, i) => (keep.has(i) ? d : 0)), name: `random-${N}x${N}-g${givens}-s${String(seed)}` };
}
