import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { writeOutput } from "../io.js";
import { boardToJSON, writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { InvalidOptionError } from "../../core/errors.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import { triangleBoardToJSON, writeTriangle } from "../../core/triangle/format.js";

export const spec: CommandSpec = {
  name: "puzzle gen",
  summary: "Generate a random puzzle with a planted solution (like Heule's em-a-b-c instances, or a triangle); pieces are listed in random order and orientation.",
  usage: "cubist puzzle gen --rows R --cols C --border-colors B --center-colors K --seed S [-o FILE] [--solution FILE]\n       cubist puzzle gen --shape triangle --side N --labels K [--rotate] [--frame L] --seed S [-o FILE] [--solution FILE]",
  positionals: { min: 0, max: 0 },
  options: {
    rows: { type: "integer", arg: "R", description: "board rows", min: 2, max: 64, default: 6 },
    cols: { type: "integer", arg: "C", description: "board columns", min: 2, max: 64, default: 6 },
    "border-colors": { type: "integer", arg: "B", description: "frame colours (on edges between two rim cells)", min: 1, max: 500, default: 3 },
    "center-colors": { type: "integer", arg: "K", description: "centre colours", min: 1, max: 500, default: 4 },
    seed: { type: "string", arg: "S", description: "random seed (integer or text)", default: "1" },
    unbounded: { type: "boolean", description: "no grey rim: any piece anywhere (all edges from the K centre colours)" },
    shape: { type: "string", arg: "S", description: "board shape", choices: ["square", "triangle"], default: "square" },
    side: { type: "integer", arg: "N", description: "triangle: the side (N*N pieces)", min: 1, max: 32, default: 6 },
    labels: { type: "integer", arg: "K", description: "triangle: labels 1..K on the joins (and on the outer edges without --frame)", min: 1, max: 1000, default: 4 },
    rotate: { type: "boolean", description: "triangle: pieces may be turned (listed turned randomly)" },
    frame: { type: "integer", arg: "L", description: "triangle: every outer edge shows label L (e.g. 0, a label no join has)", min: 0, max: 1000 },
    output: { type: "string", short: "o", arg: "FILE", output: true, description: "puzzle output (canonical format, or the triangle format with --shape triangle; default stdout)" },
    solution: { type: "string", arg: "FILE", output: true, description: "also write the planted solution as board JSON" },
  },
};

export async function run(values: ParsedValues): Promise<number> {
  const seedText = String(values.seed);
  const seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;
  if (values.shape === "triangle") return generateTriangleFile(values, seed);
  for (const name of ["rotate", "frame"]) if (values[name] !== undefined) throw new InvalidOptionError(`--${name}`, "goes with --shape triangle");
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

/** `--shape triangle`: a triangle puzzle with a planted solution (docs/formats.md, "Triangle format"). */
async function generateTriangleFile(values: ParsedValues, seed: number | string): Promise<number> {
  const { puzzle, solution } = generateTriangle({
    side: values.side as number,
    labels: values.labels as number,
    rotate: values.rotate === true,
    frame: (values.frame as number | undefined) ?? null,
    seed,
  });
  await writeOutput(values.output as string | undefined, writeTriangle(puzzle));
  if (typeof values.solution === "string") {
    await writeOutput(values.solution, JSON.stringify({ status: "sat", shape: "triangle", side: puzzle.side, board: triangleBoardToJSON(solution, puzzle) }) + "\n");
  }
  return EXIT.OK;
}
