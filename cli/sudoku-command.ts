/**
 * Sudoku in the commands that read a puzzle file (solve, verify, render): a file named .sudoku or .sdk
 * (docs/formats.md "Sudoku") is a Sudoku whatever --format says; these are its handlers. `solve` encodes it
 * (core/sudoku/encode.ts) and solves the formula with Kissat alone, or by cube and conquer (cli/solve-cnf.ts) on 25x25
 * boards and with --max-depth D (with --workers N or --certify: a formula run on the embedded cluster,
 * cli/solve-formula-cluster.ts, chosen by cli/commands/solve.ts);
 * every answer is checked by the Sudoku verifier, which shares nothing with the encoding.
 */

import { closeSync, openSync, writeSync } from "node:fs";
import { basename } from "node:path";
import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { inputLimitOf, readText } from "./io.js";
import { onInterrupt } from "./interrupt.js";
import { countSudoku } from "./count-sudoku.js";
import { defaultCubeDepth, solveCnfLocal } from "./solve-cnf.js";
import { defaultThreads } from "./solve-local.js";
import { EncoderBugError, InvalidOptionError } from "../core/errors.js";
import { encodeSudoku, decodeSudoku } from "../core/sudoku/encode.js";
import { oneLine, parseSudoku } from "../core/sudoku/format.js";
import { renderSudoku } from "../core/sudoku/render.js";
import { givenCount, type Sudoku } from "../core/sudoku/sudoku.js";
import { verifySudoku } from "../core/sudoku/verify.js";
import type { SolverName } from "../host/solver/index.js";
import { terminalSafe } from "../cluster/terminal-text.js";

/** Reads a Sudoku file (bounded by --max-puzzle-mb), named by its `# name:` line or else its file name. */
export async function loadSudoku(path: string, values: ParsedValues): Promise<Sudoku> {
  const s = parseSudoku(await readText(path, inputLimitOf(values)), path);
  return s.name !== undefined ? s : { ...s, name: basename(path).replace(/\.[^.]+$/, "") };
}

/**
 * The lookahead depth for a Sudoku: none (Kissat alone) up to 16x16, where Kissat alone was faster on every board
 * measured, and the CNF default on 25x25, where the cubes were faster (BENCHMARKS.md "Sudoku").
 */
export function sudokuCubeDepth(puzzle: Sudoku, workers: number): number {
  return puzzle.size >= 25 ? defaultCubeDepth(workers) : 0;
}

const NOT_FOR_SUDOKU = ["hints", "portfolio", "up-to-symmetry"] as const;

/** The rows of a grid as arrays of digits (0: blank), for --json. */
function rowsOf(s: Sudoku): number[][] {
  return Array.from({ length: s.size }, (_, r) => s.cells.slice(r * s.size, (r + 1) * s.size));
}

/** `cubist solve P.sudoku [--all]`. */
export async function solveSudokuCommand(path: string, values: ParsedValues): Promise<number> {
  for (const flag of NOT_FOR_SUDOKU) if (values[flag] !== undefined && values[flag] !== false) throw new InvalidOptionError(`--${flag}`, "is not for a Sudoku");
  if (values.solver === "none") throw new InvalidOptionError("--solver", "none leaves nothing to solve a Sudoku with");
  const puzzle = await loadSudoku(path, values);
  const cnf = encodeSudoku(puzzle, { redundant: values.redundant === true });
  const solver = values.solver as SolverName | undefined, binary = values["solver-path"] as string | undefined;
  const stop = onInterrupt();
  const started = performance.now();
  try {
    if (values.all === true) return await countCommand(puzzle, values, { solver, binary, signal: stop.signal }, () => stop.interrupted, started);
    const workers = (values.threads as number | undefined) ?? defaultThreads();
    const result = await solveCnfLocal(cnf, {
      workers, maxDepth: (values["max-depth"] as number | undefined) ?? sudokuCubeDepth(puzzle, workers), solver, binary,
      timeLimitSec: values.time as number | undefined, seed: values.seed as number | undefined, signal: stop.signal,
    });
    if (stop.interrupted) return EXIT.INTERRUPTED;
    const secs = ((performance.now() - started) / 1000).toFixed(2);
    const name = terminalSafe(puzzle.name ?? "the puzzle");
    if (result.status !== "sat") {
      const words = result.status === "unsat" ? `unsat: ${name} has no solution (proved in ${secs} s)` : `unknown: no answer (${result.reason}) after ${secs} s`;
      process.stdout.write(values.json ? JSON.stringify({ status: result.status, size: puzzle.size, grid: null, givens: givenCount(puzzle) }) + "\n" : `${words}\n`);
      return result.status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
    }
    const grid = decodeSudoku(puzzle, result.model);
    const check = verifySudoku(puzzle, grid);
    if (!check.ok) throw new EncoderBugError(`sudoku: ${check.violations[0]}`);
    if (values.json) {
      process.stdout.write(JSON.stringify({ status: "sat", size: puzzle.size, grid: rowsOf(grid), line: oneLine(grid), givens: givenCount(puzzle),
        stats: { cubes: result.stats.cubes, refuted: result.stats.refuted, wallMs: Math.round(result.stats.wallMs), workers } }) + "\n");
    } else {
      process.stdout.write(`solution (verified) for ${name} in ${secs} s:\n${renderSudoku(grid, { givens: puzzle, color: values.color === true })}`);
    }
    return EXIT.OK;
  } finally {
    stop.dispose();
  }
}

async function countCommand(puzzle: Sudoku, values: ParsedValues, run: { solver?: SolverName; binary?: string; signal: AbortSignal }, interrupted: () => boolean, started: number): Promise<number> {
  const file = values.output as string | undefined;
  const fd = file === undefined ? null : file === "-" ? 1 : openSync(file, "w");
  try {
    const result = await countSudoku(puzzle, encodeSudoku(puzzle, { redundant: values.redundant === true }), {
      ...run, limit: values.limit as number | undefined,
      onSolution: fd === null ? undefined : (g) => writeSync(fd, `${oneLine(g)}\n`),
    });
    if (interrupted()) return EXIT.INTERRUPTED;
    const status = result.count > 0 ? "sat" : result.complete ? "unsat" : "unknown";
    const secs = ((performance.now() - started) / 1000).toFixed(2);
    if (values.json) {
      process.stdout.write(JSON.stringify({ status, count: result.count, complete: result.complete, unique: result.complete && result.count === 1, ...(result.reason ? { reason: result.reason } : {}) }) + "\n");
    } else {
      const what = result.complete
        ? result.count === 1 ? "unique (exactly 1 solution)" : result.count === 0 ? "no solution" : `${result.count} solutions`
        : `at least ${result.count} solution${result.count === 1 ? "" : "s"} (${result.reason ?? "stopped"})`;
      (file === "-" ? process.stderr : process.stdout).write(`${terminalSafe(puzzle.name ?? "puzzle")}: ${what} in ${secs} s${file !== undefined && file !== "-" ? `, every solution verified and written to ${file}` : ""}\n`);
    }
    return status === "sat" ? EXIT.OK : status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    if (fd !== null && fd !== 1) closeSync(fd);
  }
}

/** `cubist verify P.sudoku S.sudoku`: exit 0 when S solves P. */
export async function verifySudokuCommand(puzzlePath: string, gridPath: string, values: ParsedValues): Promise<number> {
  const puzzle = await loadSudoku(puzzlePath, values);
  const grid = parseSudoku(await readText(gridPath, inputLimitOf(values)), gridPath);
  const check = verifySudoku(puzzle, grid);
  if (values.json) process.stdout.write(JSON.stringify({ ok: check.ok, violations: check.ok ? [] : check.violations }) + "\n");
  else if (check.ok) process.stdout.write(`ok: ${terminalSafe(gridPath)} solves ${terminalSafe(puzzlePath)}\n`);
  else {
    process.stdout.write(`not a solution: ${check.violations.length} violation(s)\n`);
    for (const v of check.violations.slice(0, 20)) process.stdout.write(`  ${v}\n`);
  }
  return check.ok ? EXIT.OK : EXIT.ERROR;
}

/** `cubist render P.sudoku G.sudoku`: the grid G (the puzzle itself when G is P) with P's givens marked under --color. */
export async function renderSudokuCommand(puzzlePath: string, gridPath: string, values: ParsedValues): Promise<number> {
  const puzzle = await loadSudoku(puzzlePath, values);
  const grid = gridPath === puzzlePath ? puzzle : parseSudoku(await readText(gridPath, inputLimitOf(values)), gridPath);
  if (grid.size !== puzzle.size) throw new InvalidOptionError("grid", `${gridPath} is ${grid.size}x${grid.size}, the puzzle ${puzzle.size}x${puzzle.size}`);
  process.stdout.write(renderSudoku(grid, { givens: puzzle, color: values.color === true }));
  return EXIT.OK;
}
