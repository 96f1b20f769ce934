/**
 * Server-sent events of the dashboard's JSON API: a stream per page, fed by a tick every interval. A slow client (or
 * a slow view) skips ticks instead of piling them up; a failed tick sends an `error` event; the server's close ends
 * every stream.
 */

import type { IncomingMessage, ServerResponse } from "node:http";

/** Sends one event of a stream. */
export type SendEvent = (event: string, data: unknown) => void;

export class EventStreams {
  private readonly streams = new Set<ServerResponse>();

  /** Opens a stream on `res` and runs `tick` now and every `everyMs` until the client goes. */
  open(req: IncomingMessage, res: ServerResponse, tick: (send: SendEvent) => Promise<void> | void, everyMs: number): void {
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no" });
    res.write(": cubist\n\n");
    this.streams.add(res);
    let busy = false;
    const send: SendEvent = (event, data) => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const run = async (): Promise<void> => {
      if (busy || res.writableNeedDrain) return;
      busy = true;
      try {
        await tick(send);
      } catch (err) {
        send("error", { error: (err as Error).message });
      } finally {
        busy = false;
      }
    };
    const timer = setInterval(() => void run(), everyMs);
    void run();
    const stop = (): void => {
      clearInterval(timer);
      this.streams.delete(res);
    };
    req.on("close", stop);
    res.on("close", stop);
  }

  /** Ends every open stream. */
  endAll(): void {
    for (const s of this.streams) s.end();
  }
}
