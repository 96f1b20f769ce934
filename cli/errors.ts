/**
 * The CLI's one-line error messages: every expected error is a CubistError (core/errors.ts), whose message is
 * complete; anything else is an internal error. Exit codes: cli/exit-codes.ts.
 */
import { CubistError } from "../core/errors.js";
import { terminalSafeLines } from "../cluster/terminal-text.js";

/** An input file that cannot be read (missing, a directory, no permission). */
export class InputFileError extends CubistError {
  override readonly name = "InputFileError";
  override readonly fault = "task";
}

/** An output file that cannot be written (no such directory, no permission, a directory in the way). */
export class OutputFileError extends CubistError {
  override readonly name = "OutputFileError";
  override readonly fault = "task";
}

/** The message for the user: complete for expected errors (no stack unless --debug), marked for anything else. */
export function describeError(err: unknown, debug: boolean): string {
  if (!(err instanceof Error)) return String(err);
  // Messages quote file names, puzzle text and answers from the coordinator: no raw controls reach the terminal.
  if (debug) return terminalSafeLines(err.stack ?? err.message);
  return terminalSafeLines(err instanceof CubistError ? err.message : `${err.message} (internal error; run with --debug for details)`);
}
