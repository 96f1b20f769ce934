import { createWriteStream } from "node:fs";
import { once } from "node:events";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { inputLimitOf, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions } from "../io.js";
import { ENCODING_OPTIONS, encodeOptionsFrom } from "../encode-options.js";
import { dimacsChunks, encode } from "../../core/encode/index.js";
import { encodeTriangleCommand, readPuzzleText } from "../triangle-commands.js";

export const spec: CommandSpec = {
  name: "encode",
  summary: "Encode a puzzle as CNF (DIMACS). Sections and counts go to stderr (or --stats JSON).",
  usage: "cubist encode <puzzle> [--encoding E] [--order O] [-o out.cnf]",
  details: "A triangle puzzle (docs/formats.md) has one encoding, its placement encoding (core/triangle/encode.ts); --encoding and its options do not apply.",
  positionals: { min: 1, max: 1 },
  options: {
    ...PUZZLE_OPTIONS,
    ...ENCODING_OPTIONS,
    output: { type: "string", short: "o", arg: "FILE", output: true, description: "output file (default: stdout)" },
    stats: { type: "boolean", description: "print {vars, clauses, sections} as JSON to stderr" },
  },
};

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const { text, triangle } = await readPuzzleText(path, inputLimitOf(values));
  if (triangle) return encodeTriangleCommand(triangle, values);
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text });
  const formula = encode(values.encoding as string, puzzle, encodeOptionsFrom(values));
  const out = typeof values.output === "string" && values.output !== "-" ? createWriteStream(values.output) : process.stdout;
  for (const chunk of dimacsChunks(formula)) {
    if (!out.write(chunk)) await once(out, "drain");
  }
  if (out !== process.stdout) {
    out.end();
    await once(out, "finish");
  }
  const summary = { encoding: formula.encoding, vars: formula.numVars, clauses: formula.clauses.count, sections: formula.sections };
  if (values.stats) process.stderr.write(JSON.stringify(summary) + "\n");
  else if (out !== process.stdout) {
    const parts = Object.entries(formula.sections).map(([k, v]) => `${k} ${v}`).join(", ");
    process.stderr.write(`${values.output}: ${formula.numVars} variables, ${formula.clauses.count} clauses (${parts})\n`);
  }
  return EXIT.OK;
}
