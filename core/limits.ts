/**
 * The size limits of a puzzle the cluster (and `cubist solve`) takes on: one limit on the board (cells) and one on
 * the base formula (bytes of its DIMACS text), the same in the CLI and the coordinator. Eternity II (16x16, 256
 * cells) fits both with every encoding: its largest formula, heule-all, is about 110 MB; cubist-placement is about
 * 23 MB. A generated 32x32 puzzle (1024 cells, a 513 MB formula that took the coordinator to 535 MB and a worker to
 * 667 MB) does not. The formula is measured exactly (`formulaBytes`) before it is uploaded or handed to a solver.
 *
 * A third limit is on the text that comes in: a puzzle file (and a hint or board file) the CLI reads, and the
 * puzzle text of a run the coordinator is sent, 1 MiB by default (Eternity II is 5 KB; the largest board the
 * parser takes, 64x64, under 100 KB). It is checked before a file is read whole, so a huge file is refused at once.
 *
 * core/validate.ts MAX_SIDE (64) stays the parser's hard bound; these limits are the operational ones, raised
 * with `--max-cells`, `--max-formula-mb` and `--max-puzzle-mb` (on `cubist solve` and the other commands that read
 * a puzzle, and on `cubist coordinator` for `run submit`).
 */

import { CubistError, InvalidOptionError } from "./errors.js";
import type { Formula } from "./encode/formula.js";

export const DEFAULT_MAX_CELLS = 256;
export const DEFAULT_MAX_FORMULA_MB = 128;
export const DEFAULT_MAX_PUZZLE_MB = 1;
/**
 * The most `--max-puzzle-mb` raises the puzzle text limit to: a file is held whole while it is parsed (a 16 MB file
 * of newlines or of comments costs `cubist solve` 86 MB of RSS), and no puzzle needs more.
 */
export const MAX_PUZZLE_MB = 16;
const MB = 1024 * 1024;

export interface SizeLimits {
  /** Cells (rows x cols) of the largest board. @default 256 */
  readonly maxCells: number;
  /** Bytes of the largest base formula in DIMACS. @default 128 MiB */
  readonly maxFormulaBytes: number;
  /** Bytes of the largest puzzle text (a puzzle, hint or board file; a run's puzzle). @default 1 MiB */
  readonly maxPuzzleBytes: number;
  /** How to raise each limit, for the error message: the flags of the process that enforces it. */
  readonly raise: { readonly cells: string; readonly formula: string; readonly puzzle: string };
}

export const DEFAULT_SIZE_LIMITS: SizeLimits = Object.freeze({
  maxCells: DEFAULT_MAX_CELLS,
  maxFormulaBytes: DEFAULT_MAX_FORMULA_MB * MB,
  maxPuzzleBytes: DEFAULT_MAX_PUZZLE_MB * MB,
  raise: Object.freeze({ cells: "--max-cells N", formula: "--max-formula-mb MB", puzzle: "--max-puzzle-mb MB" }),
});

/** The flag values a SizeLimits is made from; unset: the default. */
export interface SizeLimitValues {
  readonly maxCells?: number;
  readonly maxFormulaMb?: number;
  readonly maxPuzzleMb?: number;
}

/**
 * Limits from the flag values (`--max-cells`, `--max-formula-mb`, `--max-puzzle-mb`), with `raise` naming where they
 * are set. Throws InvalidOptionError for a `--max-puzzle-mb` outside (0, MAX_PUZZLE_MB].
 */
export function sizeLimits(values: SizeLimitValues = {}, raise: SizeLimits["raise"] = DEFAULT_SIZE_LIMITS.raise): SizeLimits {
  const puzzleMb = values.maxPuzzleMb ?? DEFAULT_MAX_PUZZLE_MB;
  if (!(Number.isFinite(puzzleMb) && puzzleMb > 0 && puzzleMb <= MAX_PUZZLE_MB)) {
    throw new InvalidOptionError("--max-puzzle-mb", `must be a number in (0, ${MAX_PUZZLE_MB}], got ${puzzleMb}`);
  }
  return Object.freeze({
    maxCells: values.maxCells ?? DEFAULT_MAX_CELLS,
    maxFormulaBytes: Math.round((values.maxFormulaMb ?? DEFAULT_MAX_FORMULA_MB) * MB),
    maxPuzzleBytes: Math.round(puzzleMb * MB),
    raise: Object.freeze({ ...raise }),
  });
}

/** A puzzle, formula or input text above a size limit; names the limit and how to raise it. INVALID_ARGUMENT on the API. */
export class LimitExceededError extends CubistError {
  override readonly name = "LimitExceededError";
  override readonly fault = "task";
  constructor(readonly limit: "cells" | "formula" | "puzzle", message: string) {
    super(message);
  }
}

/** A byte count for a message: KB below 1 MB, MB with one decimal below 10 MB. */
function formatBytes(n: number): string {
  return n < MB ? `${Math.ceil(n / 1024)} KB` : `${(n / MB).toFixed(n < 10 * MB ? 1 : 0)} MB`;
}

/**
 * The error for a puzzle text (`what`: a file name, "<stdin>", "the puzzle text") above `limits.maxPuzzleBytes`:
 * `bytes` is its size, or null when only "more than the limit" is known (a stream, read up to the limit).
 */
export function puzzleTooLarge(what: string, bytes: number | null, limits: Pick<SizeLimits, "maxPuzzleBytes" | "raise"> = DEFAULT_SIZE_LIMITS): LimitExceededError {
  const size = bytes === null ? `more than ${formatBytes(limits.maxPuzzleBytes)}` : formatBytes(bytes);
  return new LimitExceededError(
    "puzzle",
    `${what} is ${size}, above the input limit of ${formatBytes(limits.maxPuzzleBytes)} (raise it with ${limits.raise.puzzle}; docs/operations.md "Limits")`,
  );
}

/** Throws `puzzleTooLarge` when a puzzle text of `bytes` bytes is above `limits.maxPuzzleBytes`. */
export function checkPuzzleSize(bytes: number, limits: Pick<SizeLimits, "maxPuzzleBytes" | "raise"> = DEFAULT_SIZE_LIMITS, what = "the puzzle text"): void {
  if (bytes > limits.maxPuzzleBytes) throw puzzleTooLarge(what, bytes, limits);
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
  throw new LimitExceededError(
    "formula",
    `${what} is ${formatBytes(bytes)} of DIMACS, above the limit of ${formatBytes(limits.maxFormulaBytes)} (use a smaller encoding, or raise it with ${limits.raise.formula}; docs/operations.md "Limits")`,
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
