/**
 * Formulas with known character for tests and benchmarks: uniform random k-SAT (seeded, reproducible on every
 * machine) and the pigeonhole formulas PHP(n+1, n), unsatisfiable and hard for resolution.
 */

import { ClauseBuffer } from "../encode/formula.js";
import { createRandom, type Seed } from "../random.js";
import type { Cnf } from "./cnf.js";

/** `clauses` clauses of `k` distinct variables out of `vars`, each negated with probability 1/2. */
export function randomKSat(vars: number, clauses: number, k: number, seed: Seed): Cnf {
  if (!(Number.isInteger(k) && k >= 1 && k <= vars)) throw new RangeError(`k must be in 1..vars, got ${k}`);
  const random = createRandom(seed);
  const buffer = new ClauseBuffer();
  for (let i = 0; i < clauses; i++) {
    const picked = new Set<number>();
    while (picked.size < k) picked.add(1 + random.nextInt(vars));
    buffer.add([...picked].map((v) => (random.nextInt(2) === 0 ? v : -v)));
  }
  return { numVars: vars, clauses: buffer };
}

/** PHP(holes + 1, holes): every pigeon in a hole, no two in one; variable p * holes + h + 1 puts pigeon p in hole h. */
export function pigeonhole(holes: number): Cnf {
  const pigeons = holes + 1;
  const x = (p: number, h: number): number => p * holes + h + 1;
  const buffer = new ClauseBuffer();
  for (let p = 0; p < pigeons; p++) buffer.add(Array.from({ length: holes }, (_, h) => x(p, h)));
  for (let h = 0; h < holes; h++) {
    for (let p = 0; p < pigeons; p++) for (let q = p + 1; q < pigeons; q++) buffer.add2(-x(p, h), -x(q, h));
  }
  return { numVars: pigeons * holes, clauses: buffer };
}
