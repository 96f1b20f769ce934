import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { loadBoard, loadPuzzle, PUZZLE_OPTIONS } from "../io.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";

export const spec: CommandSpec = {
  name: "render",
  summary: "Draw a board (JSON as printed by `cubist solve --json`) as a terminal grid, an SVG picture and, for 16x16, an e2.bucas.name link.",
  usage: "cubist render <puzzle> <board.json> [--svg FILE] [--color] [--compact]",
  positionals: { min: 2, max: 2 },
  options: { ...PUZZLE_OPTIONS, ...BOARD_OUTPUT_OPTIONS },
};

export async function run(values: ParsedValues, [puzzlePath, boardPath]: string[]): Promise<number> {
  const puzzle = await loadPuzzle(puzzlePath, { format: values.format as string, hints: values.hints as string | undefined });
  const board = await loadBoard(boardPath, puzzle);
  await showBoard(puzzle, board, values);
  return EXIT.OK;
}
