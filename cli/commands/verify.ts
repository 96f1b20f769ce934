import type { CommandSpec, ParsedValues } from "../args.js";
import { isSudokuPath } from "../../core/sudoku/format.js";
import { EXIT } from "../exit-codes.js";
import { inputLimitOf, loadBoard, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions } from "../io.js";
import { readPuzzleText, verifyTriangleCommand } from "../triangle-commands.js";
import { scoreBoard, verifySolution, innerEdgeCount } from "../../core/verify.js";

export const spec: CommandSpec = {
  name: "verify",
  summary: "Check a board (JSON as printed by `cubist solve --json`) against a puzzle: each piece once, every edge matched, grey only on the rim, hints respected.",
  usage: "cubist verify <puzzle> <board.json> [--json]",
  positionals: { min: 2, max: 2 },
  options: {
    ...PUZZLE_OPTIONS,
    json: { type: "boolean", description: "print {ok, score, violations} as JSON" },
  },
  details: "Exit codes: 0 the board is a solution; 1 it is not (or the input is bad).",
};

export async function run(values: ParsedValues, [puzzlePath, boardPath]: string[]): Promise<number> {
  if (isSudokuPath(puzzlePath)) return (await import("../sudoku-command.js")).verifySudokuCommand(puzzlePath, boardPath, values);
  const { text, triangle } = await readPuzzleText(puzzlePath, inputLimitOf(values));
  if (triangle) return verifyTriangleCommand(triangle, boardPath, values);
  const puzzle = await loadPuzzle(puzzlePath, { ...puzzleReadOptions(values), text });
  const board = await loadBoard(boardPath, puzzle, inputLimitOf(values));
  const result = verifySolution(puzzle, board);
  const score = scoreBoard(puzzle, board);
  if (values.json) {
    process.stdout.write(JSON.stringify({ ok: result.ok, score, edges: innerEdgeCount(puzzle), violations: result.ok ? [] : result.violations }) + "\n");
  } else if (result.ok) {
    process.stdout.write(`ok: ${boardPath} solves ${puzzlePath} (${score}/${innerEdgeCount(puzzle)} edges matched)\n`);
  } else {
    process.stdout.write(`not a solution: ${result.violations.length} violation(s); score ${score}/${innerEdgeCount(puzzle)}\n`);
    for (const v of result.violations.slice(0, 20)) process.stdout.write(`  ${v.message}\n`);
    if (result.violations.length > 20) process.stdout.write(`  ... and ${result.violations.length - 20} more\n`);
  }
  return result.ok ? EXIT.OK : EXIT.ERROR;
}
