/**
 * `cubist run submit F.cnf` and `run submit P.sudoku`: a formula run's request (docs/cluster.md "Formula runs"). A
 * DIMACS file (plain or gzipped, "-" for stdin) is sent as its DIMACS text, a Sudoku as its grid; either is bounded
 * by the puzzle text limit (`--max-puzzle-mb`), which the coordinator applies again, and parsed here first so that a
 * bad line is reported as file:line before anything is sent.
 */

import type { ParsedValues } from "./args.js";
import { isCnfPath, readCnfBytes } from "./cnf-io.js";
import { sizeLimits } from "../core/limits.js";
import { loadSudoku } from "./sudoku-command.js";
import { runRequestFrom } from "./run-options.js";
import { readDimacs } from "../core/cnf/read-dimacs.js";
import { DEFAULT_ENCODING } from "../core/encode/index.js";
import { InvalidOptionError } from "../core/errors.js";
import { writeSudoku } from "../core/sudoku/format.js";
import type { RunRequest } from "../coordinator/run-spec.js";

/** The run request for the formula file `path`. */
export async function formulaRunRequest(path: string, values: ParsedValues): Promise<RunRequest> {
  const label = path === "-" ? "<stdin>" : path;
  const cnf = isCnfPath(path);
  if (values.encoding !== undefined && values.encoding !== DEFAULT_ENCODING) throw new InvalidOptionError("--encoding", `is for puzzles; ${cnf ? "a DIMACS formula is solved as it is" : "a Sudoku takes --redundant"}`);
  if (cnf && values.redundant === true) throw new InvalidOptionError("--redundant", "is for a Sudoku");
  if (values.hints !== undefined) throw new InvalidOptionError("--hints", "is for square boards");
  let text: string;
  if (cnf) {
    const limits = sizeLimits({ maxPuzzleMb: values["max-puzzle-mb"] as number | undefined });
    const bytes = await readCnfBytes(path, { ...limits, maxFormulaBytes: limits.maxPuzzleBytes, raise: { ...limits.raise, formula: limits.raise.puzzle } });
    readDimacs(bytes, label);
    text = bytes.toString("utf8");
  } else {
    text = writeSudoku(await loadSudoku(path, values));
  }
  const request = runRequestFrom(values, text, label);
  return {
    ...request,
    format: cnf ? "dimacs" : "sudoku",
    encoding: cnf ? "dimacs" : values.redundant === true ? "sudoku-redundant" : "sudoku",
    // The run options' defaults are for puzzles: a formula run has its own (coordinator/formula-run-spec.ts).
    objective: request.objective === "sat" ? undefined : request.objective,
    order: undefined,
  };
}
