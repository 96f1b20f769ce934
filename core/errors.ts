/**
 * The error family. Expected outcomes (sat / unsat / unknown) are values, not errors; errors are for what cannot be
 * done. Every expected error extends CubistError and says whose fault it is, which says what a retry can do:
 *
 *   fault      who is at fault                                                         a retry
 *   worker     the machine or installation that ran it: its solver crashed, printed     elsewhere: another machine
 *              garbage or is missing, its disk is full                                  may succeed
 *   task       what was asked: an unreadable formula, a formula hash mismatch, an        never: the input must change
 *              invalid cube, a bad puzzle file, option or request
 *   transient  a passing failure: NATS away, a time-out                                 later, here or anywhere
 *   internal   Cubist itself: a broken invariant (an encoder bug), an unexpected throw   never: it is a bug to report
 *
 * The fault of a worker's error travels in its verdict (Verdict.fault), so a worker's quarantine counts only its own
 * faults. Exit codes and gRPC statuses are not the domain's: they are mapped once, at the CLI (cli/exit-codes.ts)
 * and at the API (coordinator/serve/api-errors.ts).
 */

/** Who is at fault for an error (see the table above). */
export type Fault = "worker" | "task" | "transient" | "internal";

/** What trying again can do: succeed on another machine, succeed later (anywhere), or nothing. */
export type Retry = "elsewhere" | "later" | "never";

export const RETRY: Readonly<Record<Fault, Retry>> = Object.freeze({ worker: "elsewhere", task: "never", transient: "later", internal: "never" });

/**
 * The base of every expected error: its message is complete for a user (no stack trace unless --debug). Each
 * subclass sets `name` and its `fault`.
 */
export abstract class CubistError extends Error {
  override readonly name: string = "CubistError";
  /** Who is at fault, and so what a retry can do (`retry`). */
  abstract readonly fault: Fault;

  get retry(): Retry {
    return RETRY[this.fault];
  }
}

/**
 * The fault of anything thrown: a CubistError names its own; a failed system call (it carries `syscall`: ENOSPC,
 * EIO, EACCES on a file of this machine) is the machine's; anything else is `otherwise`, by default Cubist's own
 * (internal). A caller that knows what an unclassified failure means says so (a NATS call: transient).
 */
export function faultOf(err: unknown, otherwise: Fault = "internal"): Fault {
  if (err instanceof CubistError) return err.fault;
  if (err instanceof Error && typeof (err as NodeJS.ErrnoException).syscall === "string") return "worker";
  return otherwise;
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
  override readonly fault = "task";
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
  override readonly fault = "internal";
  constructor(readonly violation: string, options?: { cause?: unknown }) {
    super(`encoder bug: the model decodes to a board that is not a solution: ${violation}`, options);
  }
}

/** An option value outside its range or of the wrong form (CLI flags, API fields). */
export class InvalidOptionError extends CubistError {
  override readonly name = "InvalidOptionError";
  override readonly fault = "task";
  constructor(readonly option: string, readonly reason: string) {
    super(`${option}: ${excerpt(reason, MAX_REASON_CHARS)}`);
  }
}
