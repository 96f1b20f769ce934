/**
 * Ctrl-C or SIGTERM during a long command (solve, counting, a score search): abort its work through `signal` and
 * remember that the user asked for it, so the command can answer "interrupted" (exit 130) or print what it has.
 */
export interface Interrupt {
  readonly abort: AbortController;
  readonly signal: AbortSignal;
  readonly interrupted: boolean;
  dispose(): void;
}

export function onInterrupt(): Interrupt {
  const abort = new AbortController();
  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
    abort.abort();
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return {
    abort,
    signal: abort.signal,
    get interrupted() { return interrupted; },
    dispose() {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
