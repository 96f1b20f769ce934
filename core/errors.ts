/**
 * Named errors of the domain. Expected outcomes (sat / unsat / unknown) are values, not errors;
 * these are for input that cannot be accepted and for broken invariants.
 *
 * Every error a user may see extends CubistError, which carries what the two boundaries need: the `cubist` exit
 * code (cli/errors.ts) and the gRPC status (coordinator/api-errors.ts). Anything else that reaches a boundary is
 * an internal error (exit 1, INTERNAL, with a hint to run with --debug).
 */

/** Exit codes of the `cubist` command (documented in README.md and `cubist --help`; cli/exit-codes.ts). */
export const EXIT = {
  /** Success; for `solve`: a solution was found and verified. */
  OK: 0,
  /** Bad input (puzzle file, option value), a solver crash or garbage output, an unreachable service. */
  ERROR: 1,
  /** The command line itself is wrong (unknown flag, missing argument). */
  USAGE: 2,
  /** A model decoded to a board that failed verification: an encoder or solver bug. Never a solution. */
  ENCODER_BUG: 3,
  /** `solve`: the puzzle has no solution (proved). */
  UNSAT: 20,
  /** `solve`: no answer within the limits (time, conflicts), or the run was stopped. */
  UNKNOWN: 30,
  /** Interrupted by SIGINT / SIGTERM. */
  INTERRUPTED: 130,
} as const;

/** gRPC status codes, numbered as the gRPC specification (and @grpc/grpc-js `status`) numbers them. */
export const GRPC_STATUS = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcStatus = (typeof GRPC_STATUS)[keyof typeof GRPC_STATUS];

/**
 * The base of every expected error: its message is complete for a user (no stack trace unless --debug). Subclasses
 * set `name` and, where they differ from the defaults, `cliExitCode` (1) and `grpcStatus` (INTERNAL).
 */
export class CubistError extends Error {
  override readonly name: string = "CubistError";
  /** The `cubist` exit code when this error ends a command. */
  readonly cliExitCode: number = EXIT.ERROR;
  /** The gRPC status when this error ends an API call. */
  readonly grpcStatus: GrpcStatus = GRPC_STATUS.INTERNAL;
}

/** Quoted input in a message is cut to this many characters ("..." marks the cut), so that a huge line is never echoed. */
export const EXCERPT_CHARS = 40;
/** The longest reason an input error carries: a backstop for input quoted without `excerpt`. */
const MAX_REASON_CHARS = 1000;

/** `text`, or its first `max` characters and "..." when it is longer. */
export function excerpt(text: string, max = EXCERPT_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** A puzzle file (or text) that cannot be read or is not a valid puzzle. Names the file and line. */
export class InvalidPuzzleError extends CubistError {
  override readonly name = "InvalidPuzzleError";
  override readonly grpcStatus = GRPC_STATUS.INVALID_ARGUMENT;
  /** File name (or a label such as "<request>"), and 1-based line; line 0 when the problem is the whole file. */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    const why = excerpt(reason, MAX_REASON_CHARS);
    super(line > 0 ? `${file}:${line}: ${why}` : `${file}: ${why}`, options);
  }
}

/** A model that decodes to a board that is not a solution: the encoder (or the solver) is wrong. */
export class EncoderBugError extends CubistError {
  override readonly name = "EncoderBugError";
  override readonly cliExitCode = EXIT.ENCODER_BUG;
  constructor(readonly violation: string, options?: { cause?: unknown }) {
    super(`encoder bug: the model decodes to a board that is not a solution: ${violation}`, options);
  }
}

/** An option value outside its range or of the wrong form (CLI flags, API fields). */
export class InvalidOptionError extends CubistError {
  override readonly name = "InvalidOptionError";
  override readonly grpcStatus = GRPC_STATUS.INVALID_ARGUMENT;
  constructor(readonly option: string, readonly reason: string) {
    super(`${option}: ${excerpt(reason, MAX_REASON_CHARS)}`);
  }
}
