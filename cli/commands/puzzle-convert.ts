import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { readPuzzleText, writeTriangleCommand } from "../triangle-commands.js";
import { inputLimitOf, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions, writeOutput } from "../io.js";
import { writeCanonical } from "../../core/formats/index.js";

export const spec: CommandSpec = {
  name: "puzzle convert",
  summary: "Read a puzzle in any supported format (canonical, Heule, Brendan Owen; plus an E2 hint file) and write it in the canonical format.",
  usage: "cubist puzzle convert <puzzle> [-o FILE] [--hints FILE]",
  details: `A triangle puzzle (first line \`triangle N\`, docs/formats.md) is written in its own canonical form, the
triangle format (as \`puzzle gen --shape triangle\` writes it).`,
  positionals: { min: 1, max: 1 },
  options: { ...PUZZLE_OPTIONS, output: { type: "string", short: "o", arg: "FILE", output: true, description: "output file (default: stdout)" } },
};

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const { text, triangle } = await readPuzzleText(path, inputLimitOf(values));
  if (triangle) return writeTriangleCommand(triangle, values);
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text });
  await writeOutput(values.output as string | undefined, writeCanonical(puzzle));
  return EXIT.OK;
}
