import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { writeOutput } from "../io.js";
import { boardToJSON, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";

export const spec: CommandSpec = {
  name: "puzzle gen",
  summary: "Generate a random puzzle with a planted solution (like Heule's em-a-b-c instances); pieces are listed in random order and orientation.",
  usage: "cubist puzzle gen --rows R --cols C --border-colors B --center-colors K --seed S [-o FILE] [--solution FILE]",
  positionals: { min: 0, max: 0 },
  options: {
    rows: { type: "integer", arg: "R", description: "board rows", min: 2, max: 64, default: 6 },
    cols: { type: "integer", arg: "C", description: "board columns", min: 2, max: 64, default: 6 },
    "border-colors": { type: "integer", arg: "B", description: "frame colours (on edges between two rim cells)", min: 1, max: 500, default: 3 },
    "center-colors": { type: "integer", arg: "K", description: "centre colours", min: 1, max: 500, default: 4 },
    seed: { type: "string", arg: "S", description: "random seed (integer or text)", default: "1" },
    unbounded: { type: "boolean", description: "no grey rim: any piece anywhere (all edges from the K centre colours)" },
    output: { type: "string", short: "o", arg: "FILE", description: "puzzle output (canonical format; default stdout)" },
    solution: { type: "string", arg: "FILE", description: "also write the planted solution as board JSON" },
  },
};

export async function run(values: ParsedValues): Promise<number> {
  const seedText = String(values.seed);
  const seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
  const { puzzle, solution } = generatePuzzle({
    rows: values.rows as number,
    cols: values.cols as number,
    borderColors: values["border-colors"] as number,
    centerColors: values["center-colors"] as number,
    unbounded: values.unbounded === true,
    seed,
  });
  await writeOutput(values.output as string | undefined, writeCanonical(puzzle));
  if (typeof values.solution === "string") {
    await writeOutput(values.solution, JSON.stringify({ status: "sat", rows: puzzle.rows, cols: puzzle.cols, board: boardToJSON(solution, puzzle) }) + "\n");
  }
  return EXIT.OK;
}
