/**
 * When the reader of the command's stdout or stderr goes away (EPIPE: `cubist run watch RUN --json | head -3`), the
 * command ends quietly with exit 0, like other Unix tools, instead of an EPIPE stack trace; a run on the cluster is
 * not touched. A command that writes files (`--svg FILE`, `-o FILE`) first finishes them: what is left for the
 * closed stream is dropped, and the command ends as it would have, with its own exit code (an error writing a file
 * is still reported), so `cubist render P b.json --svg b.svg | head -1` leaves a whole b.svg.
 */

let finishFilesFirst = false;
let closed = false;

/** The command about to run writes output files: a closed stdout must not end it before they are written. */
export function finishFilesOnClosedOutput(): void {
  finishFilesFirst = true;
}

/** Handles an error event of process.stdout or process.stderr; true when it was the reader going away. */
export function handleOutputError(err: NodeJS.ErrnoException): boolean {
  // After EPIPE the stream is destroyed, and a later write reports that instead.
  if (err.code !== "EPIPE" && !(closed && err.code === "ERR_STREAM_DESTROYED")) return false;
  closed = true;
  if (!finishFilesFirst) process.exit(0);
  return true;
}
