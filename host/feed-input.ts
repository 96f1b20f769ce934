/**
 * Streaming a formula into the solver's stdin with backpressure: wait for 'drain' whenever write() returns false.
 * Stops quietly (closing the source iterator) when the solver is gone or being stopped; a broken pipe (EPIPE,
 * the solver exited before reading everything) is not an error here: the solver's exit status tells what happened.
 */

import type { Writable } from "node:stream";

/** Resolves when the stream can take more data, or can take none ever again. */
function writable(stream: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      stream.off("error", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
    stream.on("error", done);
  });
}

/**
 * Writes every chunk of `input` to `stdin`, then ends it. Returns early when `stopped()` or the stream broke.
 * Rejects only when the input itself throws.
 */
export async function feedInput(
  stdin: Writable,
  input: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  stopped: () => boolean,
): Promise<void> {
  for await (const chunk of input) {
    if (stopped() || stdin.destroyed || stdin.writableEnded) return;
    if (chunk.length === 0) continue;
    if (!stdin.write(chunk)) {
      await writable(stdin);
      if (stopped() || stdin.destroyed) return;
    }
  }
  if (!stopped() && !stdin.destroyed) stdin.end();
}
