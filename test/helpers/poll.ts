/** Waiting in tests for something another process or a cluster does. */
import { setTimeout as sleep } from "node:timers/promises";

/**
 * Calls `probe` every `everyMs` until it returns something other than undefined or false, and returns that; throws
 * naming `what` once `ms` have passed.
 */
export async function until<T>(what: string, ms: number, probe: () => T | undefined | false | Promise<T | undefined | false>, everyMs = 200): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
