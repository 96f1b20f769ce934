/**
 * Child-process helpers shared by the solver runner and the engine runner: both spawn their child detached (it
 * leads its own process group) and stop it by signalling the whole group.
 */

/** Sends a signal to a whole process group; a group that is gone already is fine. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/** Keeps the last `limit` bytes of a stream. */
export class TailBuffer {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly limit: number) {}
  push(chunk: Buffer): void {
    const joined = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    this.buf = joined.length > this.limit ? Buffer.from(joined.subarray(joined.length - this.limit)) : joined;
  }
  text(): string {
    return this.buf.toString("utf8");
  }
}
