/**
 * Triangle puzzles in the commands that read a puzzle file (solve, verify, render, encode, puzzle show, shuffle and
 * convert, run submit, coordinator --puzzle): a file whose first data line is `triangle N` (docs/formats.md) is a
 * triangle puzzle whatever --format says; these are its handlers.
 */

import { basename } from "node:path";
import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { inputLimitOf, loadPuzzle, puzzleReadOptions, readText, writeOutput, type InputLimit } from "./io.js";
import { declaredPuzzleName, writeCanonical } from "../core/formats/index.js";
import { InvalidOptionError } from "../core/errors.js";
import { isTriangleText, parseTriangle, readTriangleBoardJSON, writeTriangle } from "../core/triangle/format.js";
import type { TrianglePuzzle } from "../core/triangle/puzzle.js";
import { innerJoinCount, posOfCell, rowOfCell } from "../core/triangle/puzzle.js";
import { shuffleTriangle } from "../core/triangle/generate.js";
import type { Seed } from "../core/random.js";
import { terminalSafe } from "../cluster/terminal-text.js";
import { puzzleView } from "./puzzle-view.js";

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
 * here; --hints refused); with `check`, --hints or a `# name:` line a square puzzle read, checked and written
 * canonically here, so its errors name file:line; otherwise the file as it is, for the coordinator to parse. `named`:
 * the file declares its puzzle's name, which the text carries (the run takes it, not the file's name).
 */
export async function runPuzzleText(path: string, values: ParsedValues, check: boolean): Promise<{ text: string; format: string; named: boolean }> {
  const read = await readPuzzleText(path, inputLimitOf(values));
  const named = declaredPuzzleName(read.text, path === "-" ? "<stdin>" : path) !== undefined;
  if (read.triangle) {
    refuseHints(values);
    return { text: writeTriangle(read.triangle), format: "auto", named };
  }
  if (!check && !named && typeof values.hints !== "string") return { text: read.text, format: values.format as string, named };
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text: read.text });
  return { text: writeCanonical(puzzle), format: "canonical", named };
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

/** `cubist puzzle show` on a triangle puzzle: side, pieces, rotation, frame, labels, hints (drawn as a board). */
export async function showTriangleCommand(puzzle: TrianglePuzzle, values: ParsedValues): Promise<number> {
  refuseHints(values);
  const labels = [...new Set(puzzle.pieces.flatMap((p) => p.edges))].sort((a, b) => a - b);
  const hints = puzzle.hints.map((h) => ({ row: rowOfCell(h.cell), pos: posOfCell(h.cell), id: puzzle.pieces[h.piece].id, rot: h.rot }));
  const name = puzzle.name ?? "puzzle";
  if (values.json) {
    process.stdout.write(JSON.stringify({ name, shape: "triangle", side: puzzle.side, pieces: puzzle.pieces.length, rotate: puzzle.rotate, frame: puzzle.frame, labels, hints }) + "\n");
    return EXIT.OK;
  }
  process.stdout.write([
    `${terminalSafe(name)}: triangle of side ${puzzle.side}, ${puzzle.pieces.length} pieces, ${innerJoinCount(puzzle.side)} joins`,
    `pieces: ${puzzle.rotate ? "may be turned (rotate)" : "keep their orientation"}; outer edges: ${puzzle.frame === null ? "free" : `every one shows label ${puzzle.frame} (frame)`}`,
    `labels: ${labels.length} [${labels.join(" ")}]`,
    `hints: ${hints.length === 0 ? "none" : hints.map((h) => `piece ${h.id} at (row ${h.row}, pos ${h.pos}) rot ${h.rot}`).join("; ")}`,
  ].join("\n") + "\n");
  if (puzzle.hints.length > 0 || typeof values.svg === "string") await puzzleView(puzzle).show(puzzle.hints, values);
  return EXIT.OK;
}

/** `cubist puzzle shuffle` and `puzzle convert` on a triangle puzzle: the triangle format, shuffled or as it is. */
export async function writeTriangleCommand(puzzle: TrianglePuzzle, values: ParsedValues, seed?: Seed): Promise<number> {
  refuseHints(values);
  await writeOutput(values.output as string | undefined, writeTriangle(seed === undefined ? puzzle : shuffleTriangle(puzzle, seed)));
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
