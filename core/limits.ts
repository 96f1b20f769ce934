/**
 * The size limits of a puzzle the cluster (and `cubist solve`) takes on: one limit on the board (cells) and one on
 * the base formula (bytes of its DIMACS text), the same in the CLI and the coordinator. Eternity II (16x16, 256
 * cells) fits both with every encoding: its largest formula, heule-all, is about 110 MB; cubist-placement is about
 * 23 MB. A generated 32x32 puzzle (1024 cells, a 513 MB formula that took the coordinator to 535 MB and a worker to
 * 667 MB) does not. The formula is measured exactly (`formulaBytes`) before it is uploaded or handed to a solver.
 *
 * core/validate.ts MAX_SIDE (64) stays the parser's hard bound; these limits are the operational ones, raised
 * with `--max-cells` and `--max-formula-mb` (on `cubist solve`, and on `cubist coordinator` for `run submit`).
 */

import { CubistError } from "./errors.js";
import type { Formula } from "./encode/formula.js";

export const DEFAULT_MAX_CELLS = 256;
export const DEFAULT_MAX_FORMULA_MB = 128;
const MB = 1024 * 1024;

export interface SizeLimits {
  /** Cells (rows x cols) of the largest board. @default 256 */
  readonly maxCells: number;
  /** Bytes of the largest base formula in DIMACS. @default 128 MiB */
  readonly maxFormulaBytes: number;
  /** How to raise each limit, for the error message: the flags of the process that enforces it. */
  readonly raise: { readonly cells: string; readonly formula: string };
}

export const DEFAULT_SIZE_LIMITS: SizeLimits = Object.freeze({
  maxCells: DEFAULT_MAX_CELLS,
  maxFormulaBytes: DEFAULT_MAX_FORMULA_MB * MB,
  raise: Object.freeze({ cells: "--max-cells N", formula: "--max-formula-mb MB" }),
});

/** Limits from the flag values (`--max-cells`, `--max-formula-mb`), with `raise` naming where they are set. */
export function sizeLimits(maxCells: number | undefined, maxFormulaMb: number | undefined, raise: SizeLimits["raise"] = DEFAULT_SIZE_LIMITS.raise): SizeLimits {
  return Object.freeze({
    maxCells: maxCells ?? DEFAULT_MAX_CELLS,
    maxFormulaBytes: Math.round((maxFormulaMb ?? DEFAULT_MAX_FORMULA_MB) * MB),
    raise: Object.freeze({ ...raise }),
  });
}

/** A puzzle or formula above a size limit; names the limit and how to raise it. INVALID_ARGUMENT on the API. */
export class LimitExceededError extends CubistError {
  override readonly name = "LimitExceededError";
  override readonly fault = "task";
  constructor(readonly limit: "cells" | "formula", message: string) {
    super(message);
  }
}

/** Throws LimitExceededError when the board (rows x cols, or a triangle of side n: n*n cells) has more cells than `limits.maxCells`. */
export function checkBoardSize(board: { rows: number; cols: number } | { side: number }, limits: SizeLimits = DEFAULT_SIZE_LIMITS): void {
  const [cells, what] = "side" in board ? [board.side * board.side, `a triangle of side ${board.side}`] : [board.rows * board.cols, `${board.rows}x${board.cols}`];
  if (cells <= limits.maxCells) return;
  throw new LimitExceededError(
    "cells",
    `the puzzle is ${what} = ${cells} cells, above the limit of ${limits.maxCells} cells (raise it with ${limits.raise.cells}; docs/operations.md "Limits")`,
  );
}

/** Throws LimitExceededError when a formula of `bytes` DIMACS bytes is above `limits.maxFormulaBytes`. */
export function checkFormulaSize(bytes: number, limits: SizeLimits = DEFAULT_SIZE_LIMITS, what = "the base formula"): void {
  if (bytes <= limits.maxFormulaBytes) return;
  const mb = (n: number): string => (n < MB ? `${Math.ceil(n / 1024)} KB` : `${(n / MB).toFixed(n < 10 * MB ? 1 : 0)} MB`);
  throw new LimitExceededError(
    "formula",
    `${what} is ${mb(bytes)} of DIMACS, above the limit of ${mb(limits.maxFormulaBytes)} (use a smaller encoding, or raise it with ${limits.raise.formula}; docs/operations.md "Limits")`,
  );
}

function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** The exact size of `dimacsChunks(formula)` (core/encode/dimacs.ts) in bytes, without writing it. */
export function formulaBytes(formula: Pick<Formula, "numVars" | "clauses">): number {
  let bytes = `p cnf ${formula.numVars} ${formula.clauses.count}\n`.length;
  const lits = formula.clauses.view();
  for (let i = 0; i < lits.length; i++) {
    const v = lits[i];
    // A literal is its digits, a minus sign when negative, and a space; a clause ends with "0\n".
    bytes += v === 0 ? 2 : v < 0 ? digits(-v) + 2 : digits(v) + 1;
  }
  return bytes;
}
