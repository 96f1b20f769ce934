/**
 * A TCP port that was free a moment ago on 127.0.0.1, for harnesses that start servers on a port they must know
 * in advance (the integration tests, the benchmarks). The server chooses it (listen on port 0), then lets it go.
 */
import { createServer } from "node:net";

export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
