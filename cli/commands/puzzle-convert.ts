import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions, writeOutput } from "../io.js";
import { writeCanonical } from "../../core/formats/index.js";

export const spec: CommandSpec = {
  name: "puzzle convert",
  summary: "Read a puzzle in any supported format (canonical, Heule, Brendan Owen; plus an E2 hint file) and write it in the canonical format.",
  usage: "cubist puzzle convert <puzzle> [-o FILE] [--hints FILE]",
  positionals: { min: 1, max: 1 },
  options: { ...PUZZLE_OPTIONS, output: { type: "string", short: "o", arg: "FILE", description: "output file (default: stdout)" } },
};

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const puzzle = await loadPuzzle(path, puzzleReadOptions(values));
  await writeOutput(values.output as string | undefined, writeCanonical(puzzle));
  return EXIT.OK;
}
