import type { CommandSpec, ParsedValues } from "../args.js";
import { isSudokuPath } from "../../core/sudoku/format.js";
import { EXIT } from "../exit-codes.js";
import { inputLimitOf, loadBoard, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions } from "../io.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";
import { innerEdgeCount, scoreBoard } from "../../core/verify.js";
import type { Board, Puzzle } from "../../core/puzzle.js";

/** Inner edges with an empty cell on either side (neither matched nor mismatched). */
function unplacedEdges(puzzle: Puzzle, board: Board): number {
  let n = 0;
  for (let cell = 0; cell < board.cells.length; cell++) {
    const r = Math.floor(cell / puzzle.cols), c = cell % puzzle.cols;
    const here = board.cells[cell] !== null;
    if (c + 1 < puzzle.cols && !(here && board.cells[cell + 1] !== null)) n++;
    if (r + 1 < puzzle.rows && !(here && board.cells[cell + puzzle.cols] !== null)) n++;
  }
  return n;
}
import { readPuzzleText, renderTriangleCommand } from "../triangle-commands.js";

export const spec: CommandSpec = {
  name: "render",
  summary: "Draw a board (JSON as printed by `cubist solve --json`) with its score as a terminal grid (mismatched edges drawn with x), an SVG picture and, for 16x16, an e2.bucas.name link.",
  usage: "cubist render <puzzle> <board.json> [--svg FILE] [--color] [--compact]",
  positionals: { min: 2, max: 2 },
  options: { ...PUZZLE_OPTIONS, ...BOARD_OUTPUT_OPTIONS },
};

export async function run(values: ParsedValues, [puzzlePath, boardPath]: string[]): Promise<number> {
  if (isSudokuPath(puzzlePath)) return (await import("../sudoku-command.js")).renderSudokuCommand(puzzlePath, boardPath, values);
  const { text, triangle } = await readPuzzleText(puzzlePath, inputLimitOf(values));
  if (triangle) return renderTriangleCommand(triangle, boardPath, values);
  const puzzle = await loadPuzzle(puzzlePath, { ...puzzleReadOptions(values), text });
  const board = await loadBoard(boardPath, puzzle, inputLimitOf(values));
  const placed = board.cells.filter((c) => c !== null).length;
  const mismatched = innerEdgeCount(puzzle) - scoreBoard(puzzle, board) - unplacedEdges(puzzle, board);
  process.stdout.write(`score ${scoreBoard(puzzle, board)} of ${innerEdgeCount(puzzle)}: ${placed} of ${board.cells.length} cells placed, ` +
    `${mismatched} mismatched edge${mismatched === 1 ? "" : "s"} (drawn with x)\n`);
  await showBoard(puzzle, board, values);
  return EXIT.OK;
}
