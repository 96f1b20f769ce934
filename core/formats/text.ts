/**
 * Shared text helpers of the puzzle readers: splitting a file into numbered data lines and reading
 * integer fields with file:line errors. All readers accept LF and CRLF line ends, a UTF-8 BOM,
 * blank lines, trailing whitespace, and `#` comments (whole-line or trailing).
 */

import { excerpt, InvalidPuzzleError } from "../errors.js";
import { MAX_SIDE } from "../validate.js";

/** One non-blank line with its comment removed, split on whitespace. */
export interface DataLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly fields: readonly string[];
}

/** A `#` comment line (text after the `#`, trimmed), with its line number. */
export interface CommentLine {
  readonly line: number;
  readonly text: string;
}

export interface SplitText {
  readonly data: DataLine[];
  readonly comments: CommentLine[];
}

/**
 * The lines of `text` (a leading UTF-8 BOM dropped; LF, CRLF and CR ends) with their 1-based numbers, one at a
 * time: a file of a million blank lines never becomes an array of a million strings.
 */
export function* textLines(text: string): Generator<{ line: number; text: string }> {
  const body = text.replace(/^\uFEFF/, "");
  const end = /\r\n|\r|\n/g;
  let start = 0;
  for (let line = 1; start <= body.length; line++) {
    const m = end.exec(body);
    yield { line, text: body.slice(start, m ? m.index : body.length) };
    start = m ? m.index + m[0].length : body.length + 1;
  }
}

/**
 * The most data lines a puzzle file has: a header, 64x64 pieces and as many hints (core/validate.ts MAX_SIDE). A file
 * with more is refused at the line past it, before its lines are all held; only as many comments are kept.
 */
export const MAX_DATA_LINES = 2 * MAX_SIDE * MAX_SIDE + 1;

/** Splits text into data lines (comments stripped, blanks skipped) and whole-line comments (the first MAX_DATA_LINES). */
export function splitLines(text: string, file: string): SplitText {
  const data: DataLine[] = [];
  const comments: CommentLine[] = [];
  for (const { line, text: raw } of textLines(text)) {
    let s = raw;
    const hash = s.indexOf("#");
    if (hash >= 0) {
      if (s.slice(0, hash).trim() === "" && comments.length < MAX_DATA_LINES) comments.push({ line, text: s.slice(hash + 1).trim() });
      s = s.slice(0, hash);
    }
    s = s.trim();
    if (s === "") continue;
    if (data.length === MAX_DATA_LINES) {
      throw new InvalidPuzzleError(file, line, `more than ${MAX_DATA_LINES} data lines: no puzzle has that many (at most ${MAX_SIDE}x${MAX_SIDE} pieces and as many hints)`);
    }
    data.push({ line, fields: s.split(/\s+/) });
  }
  return { data, comments };
}

const INTEGER = /^[+-]?\d+$/;

/** Parses a decimal integer field or throws naming `what` and the line. */
export function parseIntField(field: string, file: string, line: number, what: string): number {
  if (!INTEGER.test(field)) throw new InvalidPuzzleError(file, line, `${what} '${excerpt(field)}' is not an integer`);
  const n = Number(field);
  if (!Number.isSafeInteger(n)) throw new InvalidPuzzleError(file, line, `${what} '${excerpt(field)}' is too large`);
  return n;
}

/** Parses a colour field: any integer (range checks are validation's job, so negatives get a clear message). */
export function parseColour(field: string, file: string, line: number, pieceLabel: string): number {
  if (!INTEGER.test(field)) {
    throw new InvalidPuzzleError(file, line, `${pieceLabel} has colour '${excerpt(field)}', which is not an integer`);
  }
  const n = Number(field);
  if (!Number.isSafeInteger(n)) {
    throw new InvalidPuzzleError(file, line, `${pieceLabel} has colour '${excerpt(field)}', which is too large`);
  }
  return n;
}

const NAME_COMMENT = /^name:\s*(.*)$/i;

/** The name a puzzle file gives itself: its first `# name: ...` comment line (any format), if it has one. */
export function declaredName(comments: readonly CommentLine[]): string | undefined {
  for (const c of comments) {
    const m = NAME_COMMENT.exec(c.text);
    if (m) return m[1].trim() || undefined;
  }
  return undefined;
}

/** The puzzle's name: the one the file declares (`# name: ...`), else the file's base name. */
export function puzzleName(comments: readonly CommentLine[], file: string): string {
  return declaredName(comments) ?? baseName(file);
}

/** The file label without directories and extension, used as the default puzzle name. */
export function baseName(file: string): string {
  const last = file.split(/[\\/]/).pop() ?? file;
  const dot = last.lastIndexOf(".");
  return dot > 0 ? last.slice(0, dot) : last;
}

export function emptyFileError(file: string): InvalidPuzzleError {
  return new InvalidPuzzleError(file, 0, "empty file: no puzzle data found");
}
