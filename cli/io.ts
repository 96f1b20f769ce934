/**
 * File input and output for the CLI: reading puzzles (with an optional Eternity II style hint file), boards,
 * and writing outputs. Read errors name the file; parse errors come from core/formats with file:line.
 */

import { closeSync, openSync, writeSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { parseE2Hints, parsePuzzle, readBoardJSON, withHints, isFormatOption, formatNames } from "../core/formats/index.js";
import { InvalidOptionError } from "../core/errors.js";
import type { Board, Puzzle } from "../core/puzzle.js";
import { fileProblem, InputFileError, OutputFileError } from "./errors.js";
import type { OptionSpec } from "./args.js";

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
};

export async function readText(path: string): Promise<string> {
  if (path === "-") {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    throw new InputFileError(`${path}: cannot read: ${fileProblem(err)}`, { cause: err });
  }
}

/** Reads and validates a puzzle; `hints` names an optional hint file applied on top; `text` is the file, already read. */
export async function loadPuzzle(path: string, options: { format?: string; hints?: string; text?: string } = {}): Promise<Puzzle> {
  const format = options.format ?? "auto";
  if (!isFormatOption(format)) throw new InvalidOptionError("--format", `unknown format "${format}"`);
  const label = path === "-" ? "<stdin>" : path;
  let puzzle = parsePuzzle(options.text ?? (await readText(path)), label, format);
  if (!puzzle.name) puzzle = { ...puzzle, name: basename(label).replace(/\.[^.]+$/, "") };
  if (options.hints) {
    const hints = parseE2Hints(await readText(options.hints), options.hints, puzzle);
    puzzle = withHints(puzzle, hints, options.hints);
  }
  return puzzle;
}

/** Reads a board as printed by `cubist solve --json` (the object, or just its `board` array). */
export async function loadBoard(path: string, puzzle: Puzzle): Promise<Board> {
  return readBoardJSON(await readText(path), puzzle, path);
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
