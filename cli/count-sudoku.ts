/**
 * Counting a Sudoku's solutions (`solve P.sudoku --all`): Kissat on the encoding, then again with a clause that
 * excludes each solution found, until it answers UNSAT (the count is exact) or `limit` solutions are found (a lower
 * bound). Every solution is checked by the Sudoku verifier before it counts.
 */

import { EncoderBugError } from "../core/errors.js";
import type { Cnf } from "../core/cnf/cnf.js";
import { dimacsChunks } from "../core/encode/dimacs.js";
import { blockingClause, decodeSudoku } from "../core/sudoku/encode.js";
import type { Sudoku } from "../core/sudoku/sudoku.js";
import { verifySudoku } from "../core/sudoku/verify.js";
import { runSolver, type SolverName } from "../host/solver/index.js";

export interface SudokuCountOptions {
  readonly limit?: number;
  readonly solver?: SolverName;
  readonly binary?: string;
  readonly signal?: AbortSignal;
  /** Each verified solution, as it is found. */
  readonly onSolution?: (grid: Sudoku) => void;
}

/** The count; `complete` when the solver proved there is no other solution. */
export interface SudokuCount {
  readonly count: number;
  readonly complete: boolean;
  readonly reason?: string;
}

/** Counts the solutions of `puzzle` whose encoding is `cnf` (see the module note). */
export async function countSudoku(puzzle: Sudoku, cnf: Cnf, options: SudokuCountOptions = {}): Promise<SudokuCount> {
  const blocking: number[][] = [];
  for (;;) {
    if (options.limit !== undefined && blocking.length >= options.limit) return { count: blocking.length, complete: false, reason: "limit" };
    const outcome = await runSolver(dimacsChunks(cnf, blocking), cnf.numVars, { solver: options.solver, binary: options.binary, signal: options.signal });
    if (outcome.kind === "unsat") return { count: blocking.length, complete: true };
    if (outcome.kind === "unknown") return { count: blocking.length, complete: false, reason: outcome.reason };
    const grid = decodeSudoku(puzzle, outcome.model);
    const check = verifySudoku(puzzle, grid);
    if (!check.ok) throw new EncoderBugError(`sudoku: ${check.violations[0]}`);
    options.onSolution?.(grid);
    blocking.push(blockingClause(puzzle, grid));
  }
}
