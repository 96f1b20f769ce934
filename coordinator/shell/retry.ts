/**
 * Writes to JetStream that the coordinator makes again while NATS cannot take them for the moment (a stream between
 * leaders after a node died, a server restarting): its ledger appends (coordinator/shell/ledger.ts) and task publishes
 * (coordinator/shell/task-publisher.ts). Each such write carries a message id, so a repeat is never stored twice.
 */

/** Tries `write` until it succeeds, a failure is not `retryable`, or `ms` have passed; 200 ms between tries, doubling to 2 s. */
export async function retryUntil<T>(
  ms: number,
  write: () => Promise<T>,
  retryable: (err: unknown) => boolean,
  onRetry: (attempt: number, err: Error) => void = () => undefined,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (err) {
      if (!retryable(err) || Date.now() > deadline) throw err;
      onRetry(attempt, err as Error);
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
    }
  }
}
