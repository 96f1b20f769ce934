/**
 * Puzzle file formats: one entry point, `parsePuzzle`, with format auto-detection.
 *
 * Auto-detection looks at the first two data lines (ignoring blank lines and `#` comments):
 * - first line has 1 field (the hint count)                      -> heule
 * - first line has 2 fields and the next data line starts with
 *   `hint` or has 5 fields (`id N E S W`), or there is none       -> canonical
 * - first line has 2 fields and the next data line has 4 fields    -> brendan
 * - first line has 5 fields (`id N E S W`, no size header)        -> canonical (size inferred)
 * - a first line that is not all integers: "not a puzzle in any known format" (some other file, `package.json`)
 * - anything else is an InvalidPuzzleError naming the line.
 *
 * Piece ids: canonical files keep their ids; heule and brendan number pieces 1.. in line order.
 * Every reader validates (core/validate.ts) and throws InvalidPuzzleError(file, line, reason).
 */

import { InvalidPuzzleError } from "../errors.js";
import type { Puzzle } from "../puzzle.js";
import { isTriangleText, parseTriangle } from "../triangle/format.js";
import type { TrianglePuzzle } from "../triangle/puzzle.js";
import { readBrendan } from "./brendan.js";
import { readCanonical } from "./canonical.js";
import { readHeule } from "./heule.js";
import { declaredName, emptyFileError, splitLines } from "./text.js";

export { readBrendan, readBrendanSolution } from "./brendan.js";
export { readCanonical, writeCanonical } from "./canonical.js";
export { readHeule } from "./heule.js";
export { inferBoardSize } from "./board-size.js";
export { parseE2Hints, readReferenceBoards, withHints, type NamedBoard } from "./eternity2.js";
export { boardToJSON, readBoardJSON, type BoardJSON } from "./board-json.js";

/** The puzzle formats Cubist reads. */
export const formatNames = ["canonical", "heule", "brendan"] as const;
export type FormatName = (typeof formatNames)[number];
/** A format name, or "auto" to detect it. */
export type FormatOption = FormatName | "auto";

/** Detects the format of a puzzle text by the rules in this module's header. */
export function detectFormat(text: string, file: string): FormatName {
  const { data } = splitLines(text, file);
  if (data.length === 0) throw emptyFileError(file);
  const [first, second] = data;
  // Every format opens with numbers (a header or a piece line): anything else is some other file (`package.json`).
  if (!first.fields.every((f) => /^[+-]?\d+$/.test(f))) {
    const shown = first.fields.join(" ");
    throw new InvalidPuzzleError(
      file, first.line,
      `not a puzzle in any known format: its first data line "${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}" is none of ` +
        "`rows cols` (canonical), `W H` (Brendan Owen), a hint count (Heule) or `triangle N` (docs/formats.md)",
    );
  }
  if (first.fields.length === 1) return "heule";
  if (first.fields.length === 5) return "canonical";
  if (first.fields.length === 2) {
    if (second === undefined || second.fields[0].toLowerCase() === "hint" || second.fields.length === 5) return "canonical";
    if (second.fields.length === 4) return "brendan";
    throw new InvalidPuzzleError(
      file, second.line,
      `cannot detect the format: a piece line has ${second.fields.length} fields (canonical has 5: id N E S W; brendan has 4)`,
    );
  }
  throw new InvalidPuzzleError(
    file, first.line,
    `cannot detect the format: the first line has ${first.fields.length} fields ` +
      "(canonical starts with `rows cols`, brendan with `W H`, heule with the hint count)",
  );
}

/** The name a puzzle file declares in a `# name: ...` line (any format, triangles too), if it has one. */
export function declaredPuzzleName(text: string, file = "<text>"): string | undefined {
  return declaredName(splitLines(text, file).comments);
}

/** Reads a puzzle from text; `file` is the label used in error messages and the default name. */
export function parsePuzzle(text: string, file: string, format: FormatOption = "auto"): Puzzle {
  const chosen = format === "auto" ? detectFormat(text, file) : format;
  switch (chosen) {
    case "canonical": return readCanonical(text, file);
    case "heule": return readHeule(text, file);
    case "brendan": return readBrendan(text, file);
    default:
      throw new InvalidPuzzleError(file, 0, `unknown format '${String(chosen)}' (known: ${formatNames.join(", ")}, auto)`);
  }
}

/** True when `name` is a format name or "auto". */
export function isFormatOption(name: string): name is FormatOption {
  return name === "auto" || (formatNames as readonly string[]).includes(name);
}

/**
 * A square puzzle in `format`, or a triangle puzzle: a text whose first data line is `triangle N` is one whatever
 * `format` says (docs/formats.md "Triangle format").
 */
export function parseAnyPuzzle(text: string, file: string, format: FormatOption = "auto"): Puzzle | TrianglePuzzle {
  return isTriangleText(text) ? parseTriangle(text, file) : parsePuzzle(text, file, format);
}
