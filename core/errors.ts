/**
 * Named errors of the domain. Expected outcomes (sat / unsat / unknown) are values, not errors;
 * these are for input that cannot be accepted and for broken invariants.
 */

/** A puzzle file (or text) that cannot be read or is not a valid puzzle. Names the file and line. */
export class InvalidPuzzleError extends Error {
  override readonly name = "InvalidPuzzleError";
  /** File name (or a label such as "<request>"), and 1-based line; line 0 when the problem is the whole file. */
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(line > 0 ? `${file}:${line}: ${reason}` : `${file}: ${reason}`, options);
  }
}

/** A model that decodes to a board that is not a solution: the encoder (or the solver) is wrong. */
export class EncoderBugError extends Error {
  override readonly name = "EncoderBugError";
  constructor(readonly violation: string, options?: { cause?: unknown }) {
    super(`encoder bug: the model decodes to a board that is not a solution: ${violation}`, options);
  }
}

/** An option value outside its range or of the wrong form (CLI flags, API fields). */
export class InvalidOptionError extends Error {
  override readonly name = "InvalidOptionError";
  constructor(readonly option: string, readonly reason: string) {
    super(`${option}: ${reason}`);
  }
}
