/**
 * One mapping from error classes to the CLI's one-line messages and exit codes.
 */
import { EncoderBugError, InvalidOptionError, InvalidPuzzleError } from "../core/errors.js";
import { EXIT } from "./exit-codes.js";

/** Errors whose message is complete for a user: no stack unless --debug. */
const EXPECTED = new Set([
  "InvalidPuzzleError",
  "InvalidOptionError",
  "EncoderBugError",
  "SolverNotFoundError",
  "SolverCrashedError",
  "SolverOutputError",
  "NatsUnavailableError",
  "JetStreamUnavailableError",
  "ClusterError",
  "UsageError",
  "InputFileError",
  "LayoutUnavailableError",
  "NatsServerStartError",
  "FormulaUnavailableError",
  "RunExistsError",
]);

/** An input file that cannot be read (missing, a directory, no permission). */
export class InputFileError extends Error {
  override readonly name = "InputFileError";
}

export function describeError(err: unknown, debug: boolean): string {
  if (!(err instanceof Error)) return String(err);
  const expected = EXPECTED.has(err.name);
  if (debug) return err.stack ?? err.message;
  return expected ? err.message : `${err.message} (internal error; run with --debug for details)`;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof EncoderBugError) return EXIT.ENCODER_BUG;
  if (err instanceof InvalidPuzzleError || err instanceof InvalidOptionError) return EXIT.ERROR;
  return EXIT.ERROR;
}
