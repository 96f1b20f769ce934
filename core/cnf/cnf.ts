/**
 * A Formula read from a DIMACS file (any CNF, not one of Cubist's encodings): the variable count and the clauses in
 * a ClauseBuffer (flat, 0-terminated), so the DIMACS writer (core/encode/dimacs.ts) and formulaBytes take it as
 * they take an encoding's formula. A cube of such a formula is a list of literals (core/cnf/lookahead.ts).
 */

import { CubistError, excerpt } from "../errors.js";
import type { ClauseBuffer } from "../encode/formula.js";

/** A CNF formula: `numVars` variables 1..numVars, and its clauses. */
export interface Cnf {
  readonly numVars: number;
  readonly clauses: ClauseBuffer;
}

/** A DIMACS file that cannot be read as CNF. Names the file and the 1-based line (0: the whole file). */
export class InvalidFormulaError extends CubistError {
  override readonly name = "InvalidFormulaError";
  override readonly fault = "task";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    const why = excerpt(reason, 1000);
    super(line > 0 ? `${file}:${line}: ${why}` : `${file}: ${why}`);
  }
}

/** The clauses of `cnf` as arrays of literals (for small formulas: tests, the lookahead's input). */
export function clauseList(cnf: Cnf): number[][] {
  const out: number[][] = [];
  cnf.clauses.forEach((lits) => out.push(Array.from(lits)));
  return out;
}

/** A solver's model that falsifies a clause of the formula: the solver is wrong, and nothing is printed as a model. */
export class WrongModelError extends CubistError {
  override readonly name = "WrongModelError";
  override readonly fault = "worker";
  constructor(readonly clause: number, readonly literals: readonly number[]) {
    super(`the solver's model falsifies clause ${clause + 1} of the formula (${excerpt(literals.join(" "), 80)} 0); it is not printed`);
  }
}
