import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { readPuzzleText, writeTriangleCommand } from "../triangle-commands.js";
import { inputLimitOf, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions, writeOutput } from "../io.js";
import { writeCanonical } from "../../core/formats/index.js";
import { shufflePuzzle } from "../../core/generate.js";

export const spec: CommandSpec = {
  name: "puzzle shuffle",
  summary: "List a puzzle's pieces in a random order and orientation (ids renumbered 1..n in the new order; hints carried over). Benchmarks use this so that files listing pieces in solution order do not flatter a solver.",
  usage: "cubist puzzle shuffle <puzzle> --seed S [-o FILE]",
  details: `A triangle puzzle (first line \`triangle N\`, docs/formats.md) is shuffled the same way (its pieces turned
only when it has a \`rotate\` line) and written in the triangle format.`,
  positionals: { min: 1, max: 1 },
  options: {
    ...PUZZLE_OPTIONS,
    seed: { type: "string", arg: "S", description: "random seed (integer or text)", default: "1" },
    output: { type: "string", short: "o", arg: "FILE", output: true, description: "output (canonical format, a triangle in the triangle format; default stdout)" },
  },
};

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const seedText = String(values.seed);
  const seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
  const { text, triangle } = await readPuzzleText(path, inputLimitOf(values));
  if (triangle) return writeTriangleCommand(triangle, values, seed);
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text });
  const { puzzle: shuffled } = shufflePuzzle(puzzle, seed);
  await writeOutput(values.output as string | undefined, writeCanonical(shuffled));
  return EXIT.OK;
}
