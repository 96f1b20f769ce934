/**
 * Checking a model against a formula, by code that shares nothing with the solver or the cuber: every clause must
 * have a true literal. A model is `model[v] = 1` for a true variable v, 0 for false (index 0 unused), as the solver
 * runner returns it (host/solver/types.ts).
 */

import type { Cnf } from "./cnf.js";

/** The model satisfies the formula, or the first clause (0-based, in file order) it falsifies. */
export type ModelCheck = { ok: true } | { ok: false; clause: number; literals: number[] };

/** Checks every clause of `cnf` under `model`; a model shorter than numVars + 1 leaves the rest false. */
export function checkModel(cnf: Cnf, model: Uint8Array): ModelCheck {
  const lits = cnf.clauses.view();
  let index = 0;
  let start = 0;
  let satisfied = false;
  for (let i = 0; i < lits.length; i++) {
    const l = lits[i];
    if (l === 0) {
      if (!satisfied) return { ok: false, clause: index, literals: Array.from(lits.subarray(start, i)) };
      index++;
      start = i + 1;
      satisfied = false;
    } else if (!satisfied) {
      const value = (model[l > 0 ? l : -l] ?? 0) === 1;
      if (value === l > 0) satisfied = true;
    }
  }
  return { ok: true };
}

/** The model as DIMACS output `v` lines (the SAT competition format), at most about 78 characters each, ended by 0. */
export function modelLines(numVars: number, model: Uint8Array): string[] {
  const out: string[] = [];
  let line = "v";
  for (let v = 1; v <= numVars; v++) {
    const lit = ` ${model[v] === 1 ? v : -v}`;
    if (line.length + lit.length > 78) {
      out.push(line);
      line = "v";
    }
    line += lit;
  }
  out.push(`${line} 0`);
  return out;
}
