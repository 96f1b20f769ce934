/**
 * How the CLI shows a board: the terminal grid, optionally an SVG file, and for 16x16 boards a viewer link.
 */
import type { Board, Puzzle } from "../core/puzzle.js";
import type { OptionSpec } from "./args.js";
import { writeOutput } from "./io.js";

export const BOARD_OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  svg: { type: "string", arg: "FILE", output: true, description: "also write the board as an SVG picture" },
  color: { type: "boolean", description: "colour the terminal grid (ANSI)", env: "CUBIST_COLOR" },
  compact: { type: "boolean", description: "one line per board row (id/rot) instead of the grid" },
};

export async function showBoard(
  puzzle: Puzzle,
  board: Board,
  values: { svg?: unknown; color?: unknown; compact?: unknown },
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<void> {
  // Loaded here: `solve --json` prints no grid, and every module costs start time.
  const { bucasLink, renderSVG, renderText } = await import("../core/render/index.js");
  out(renderText(puzzle, board, { color: values.color === true, layout: values.compact ? "compact" : "auto" }) + "\n");
  if (puzzle.rows === 16 && puzzle.cols === 16 && board.cells.every((c) => c !== null)) {
    out(`view: ${bucasLink(puzzle, board)}\n`);
  }
  if (typeof values.svg === "string") await writeOutput(values.svg, renderSVG(puzzle, board));
}
