/**
 * Triangle puzzles in the commands that read a puzzle file (solve, verify, render, encode, run submit, coordinator
 * --puzzle): a file whose first data line is `triangle N` (docs/formats.md) is a triangle puzzle whatever --format
 * says; these are its handlers.
 */

import { basename } from "node:path";
import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { inputLimitOf, loadPuzzle, puzzleReadOptions, readText, writeOutput, type InputLimit } from "./io.js";
import { writeCanonical } from "../core/formats/index.js";
import { InvalidOptionError } from "../core/errors.js";
import { isTriangleText, parseTriangle, readTriangleBoardJSON, writeTriangle } from "../core/triangle/format.js";
import type { TrianglePuzzle } from "../core/triangle/puzzle.js";
import { innerJoinCount } from "../core/triangle/puzzle.js";

/** The puzzle file's text, and the triangle puzzle when it is one. */
export async function readPuzzleText(path: string, limit: InputLimit): Promise<{ text: string; triangle: TrianglePuzzle | null }> {
  const text = await readText(path, limit);
  if (!isTriangleText(text)) return { text, triangle: null };
  const label = path === "-" ? "<stdin>" : path;
  const puzzle = parseTriangle(text, label);
  return { text, triangle: puzzle.name ? puzzle : { ...puzzle, name: basename(label).replace(/\.[^.]+$/, "") } };
}

/**
 * The text a run is submitted with (`run submit`, `coordinator --puzzle`): a triangle file's canonical text (checked
 * here; --hints refused); with `check` (or --hints) a square puzzle read, checked and written canonically here, so its
 * errors name file:line; otherwise the file as it is, for the coordinator to parse.
 */
export async function runPuzzleText(path: string, values: ParsedValues, check: boolean): Promise<{ text: string; format: string }> {
  const read = await readPuzzleText(path, inputLimitOf(values));
  if (read.triangle) {
    refuseHints(values);
    return { text: writeTriangle(read.triangle), format: "auto" };
  }
  if (!check && typeof values.hints !== "string") return { text: read.text, format: values.format as string };
  return { text: writeCanonical(await loadPuzzle(path, { ...puzzleReadOptions(values), text: read.text })), format: "canonical" };
}

function refuseHints(values: ParsedValues): void {
  if (values.hints !== undefined) throw new InvalidOptionError("--hints", "is for square boards; give a triangle's hints as `hint ROW POS ID ROT` lines");
}

/** `cubist verify` on a triangle puzzle. */
export async function verifyTriangleCommand(puzzle: TrianglePuzzle, boardPath: string, values: ParsedValues): Promise<number> {
  refuseHints(values);
  const { verifyTriangleBoard } = await import("../core/triangle/verify.js");
  const board = readTriangleBoardJSON(await readText(boardPath, inputLimitOf(values)), puzzle, boardPath);
  const result = verifyTriangleBoard(puzzle, board);
  const joins = innerJoinCount(puzzle.side);
  if (values.json) {
    process.stdout.write(JSON.stringify({ ok: result.ok, edges: joins, violations: result.ok ? [] : result.violations }) + "\n");
  } else if (result.ok) {
    process.stdout.write(`ok: ${boardPath} solves ${puzzle.name ?? "the puzzle"} (${joins} joins matched)\n`);
  } else {
    process.stdout.write(`not a solution: ${result.violations.length} violation(s)\n`);
    for (const v of result.violations.slice(0, 20)) process.stdout.write(`  ${v.message}\n`);
    if (result.violations.length > 20) process.stdout.write(`  ... and ${result.violations.length - 20} more\n`);
  }
  return result.ok ? EXIT.OK : EXIT.ERROR;
}

/** `cubist render` on a triangle puzzle: the terminal listing and, with --svg, the picture. */
export async function renderTriangleCommand(puzzle: TrianglePuzzle, boardPath: string, values: ParsedValues): Promise<number> {
  refuseHints(values);
  const { renderTriangleSVG, renderTriangleText } = await import("../core/triangle/render.js");
  const board = readTriangleBoardJSON(await readText(boardPath, inputLimitOf(values)), puzzle, boardPath);
  process.stdout.write(renderTriangleText(puzzle, board) + "\n");
  if (typeof values.svg === "string") await writeOutput(values.svg, renderTriangleSVG(puzzle, board));
  return EXIT.OK;
}

/** `cubist encode` on a triangle puzzle: DIMACS of core/triangle/encode.ts. */
export async function encodeTriangleCommand(puzzle: TrianglePuzzle, values: ParsedValues): Promise<number> {
  refuseHints(values);
  const { encodeTriangle, triangleDimacs } = await import("../core/triangle/encode.js");
  const formula = encodeTriangle(puzzle);
  await writeOutput(values.output as string | undefined, triangleDimacs(formula));
  process.stderr.write(`${puzzle.name ?? "puzzle"}: ${formula.numVars} variables, ${formula.clauses.count} clauses (triangle placement encoding)\n`);
  return EXIT.OK;
}
