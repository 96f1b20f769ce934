/**
 * File input and output for the CLI: reading puzzles (with an optional Eternity II style hint file), boards,
 * and writing outputs. Every file read whole (puzzle, hints, board; "-" for stdin) is bounded by `--max-puzzle-mb`
 * (core/limits.ts, default 1 MiB), checked before the file is read: a larger one is refused naming the file and the
 * limit. Read errors name the file; parse errors come from core/formats with file:line.
 */

import { closeSync, openSync, writeSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseE2Hints, parsePuzzle, readBoardJSON, withHints, isFormatOption, formatNames } from "../core/formats/index.js";
import { InvalidOptionError } from "../core/errors.js";
import { DEFAULT_MAX_PUZZLE_MB, MAX_PUZZLE_MB, puzzleTooLarge, sizeLimits, type SizeLimits } from "../core/limits.js";
import type { Board, Puzzle } from "../core/puzzle.js";
import { fileProblem, readFileBounded, readStreamBounded, type BoundedRead } from "../cluster/read-bounded.js";
import { InputFileError, OutputFileError } from "./errors.js";
import type { OptionSpec, ParsedValues } from "./args.js";

/** Options every command that reads a puzzle accepts. */
export const PUZZLE_OPTIONS: Record<string, OptionSpec> = {
  format: {
    type: "string",
    arg: "F",
    description: "puzzle file format",
    choices: ["auto", ...formatNames],
    default: "auto",
  },
  hints: {
    type: "string",
    arg: "FILE",
    description: "extra hints in the Eternity II hint-file format (e.g. test/fixtures/eternity2/e2_hints.txt)",
  },
  "max-puzzle-mb": {
    type: "number",
    arg: "MB",
    description: `largest puzzle, hint or board file read, in MB (default ${DEFAULT_MAX_PUZZLE_MB}, at most ${MAX_PUZZLE_MB}; docs/operations.md "Limits")`,
    env: "CUBIST_MAX_PUZZLE_MB",
  },
};

/** How the files a command reads are bounded: the byte limit and the flag that raises it. */
export type InputLimit = Pick<SizeLimits, "maxPuzzleBytes" | "raise">;

/** The input limit of a command's flags (`--max-puzzle-mb`); throws InvalidOptionError for a value out of range. */
export function inputLimitOf(values: ParsedValues): InputLimit {
  return sizeLimits({ maxPuzzleMb: values["max-puzzle-mb"] as number | undefined });
}

/** The text of a puzzle, hint or board file ("-": stdin), refused above the limit before it is read whole. */
export async function readText(path: string, limit: InputLimit): Promise<string> {
  const label = path === "-" ? "<stdin>" : path;
  let read: BoundedRead;
  try {
    read = path === "-" ? await readStreamBounded(process.stdin, limit.maxPuzzleBytes) : readFileBounded(path, limit.maxPuzzleBytes);
  } catch (err) {
    throw new InputFileError(`${label}: cannot read: ${fileProblem(err)}`, { cause: err });
  }
  if (!read.ok) throw puzzleTooLarge(label, read.size, limit);
  return read.data.toString("utf8");
}

/** What loadPuzzle needs: the format, an optional hint file, and the input limit (`puzzleReadOptions`). */
export interface PuzzleReadOptions {
  readonly format?: string;
  readonly hints?: string;
  readonly limit: InputLimit;
  /** The puzzle file's text, already read. */
  readonly text?: string;
}

/** The puzzle flags of a command (--format, --hints, --max-puzzle-mb). */
export function puzzleReadOptions(values: ParsedValues): PuzzleReadOptions {
  return { format: values.format as string | undefined, hints: values.hints as string | undefined, limit: inputLimitOf(values) };
}

/** Reads and validates a puzzle; `hints` names an optional hint file applied on top. */
export async function loadPuzzle(path: string, options: PuzzleReadOptions): Promise<Puzzle> {
  const format = options.format ?? "auto";
  if (!isFormatOption(format)) throw new InvalidOptionError("--format", `unknown format "${format}"`);
  const label = path === "-" ? "<stdin>" : path;
  let puzzle = parsePuzzle(options.text ?? (await readText(path, options.limit)), label, format);
  if (!puzzle.name) puzzle = { ...puzzle, name: basename(label).replace(/\.[^.]+$/, "") };
  if (options.hints) {
    const hints = parseE2Hints(await readText(options.hints, options.limit), options.hints, puzzle);
    puzzle = withHints(puzzle, hints, options.hints);
  }
  return puzzle;
}

/** Reads a board as printed by `cubist solve --json` (the object, or just its `board` array). */
export async function loadBoard(path: string, puzzle: Puzzle, limit: InputLimit): Promise<Board> {
  return readBoardJSON(await readText(path, limit), puzzle, path);
}

/** Writes `text` to a file, or to stdout for "-" / undefined. */
export async function writeOutput(path: string | undefined, text: string | Uint8Array): Promise<void> {
  if (path === undefined || path === "-") {
    await new Promise<void>((resolve, reject) => process.stdout.write(text, (err) => (err ? reject(err) : resolve())));
    return;
  }
  try {
    await writeFile(path, text);
  } catch (err) {
    throw new OutputFileError(`${path}: cannot write: ${fileProblem(err)}`, { cause: err });
  }
}

/** Writes one line per item to a file, or to stdout for "-", synchronously and line by line (counts list many boards). */
export function writeLines(path: string, lines: Iterable<string>): void {
  const fd = path === "-" ? 1 : openSync(path, "w");
  try {
    for (const line of lines) writeSync(fd, `${line}\n`);
  } finally {
    if (fd !== 1) closeSync(fd);
  }
}
