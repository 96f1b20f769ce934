/**
 * The small HTTP server both processes use for `/metrics` (and, in the coordinator, the dashboard): node:http on
 * HOST:PORT (port 0 picks a free one), a handler that may be async, errors answered as 500 without taking the
 * process down, and an idempotent close that also ends open keep-alive and event-stream connections.
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { CubistError, InvalidOptionError } from "../core/errors.js";
import type { Logger } from "./log.js";

/** The default address of the coordinator's HTTP endpoint (metrics and dashboard). */
export const DEFAULT_COORDINATOR_HTTP = "127.0.0.1:9464";
/** The address a worker's metrics endpoint is usually given (`--http`; off by default). */
export const SUGGESTED_WORKER_HTTP = "127.0.0.1:9465";

export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface HttpServer {
  /** The bound port. */
  readonly port: number;
  /** `http://HOST:PORT` as bound (0.0.0.0 and :: are shown as 127.0.0.1). */
  readonly url: string;
  /** Stops listening and ends every open connection (idempotent). */
  close(): Promise<void>;
}

/** Splits `HOST:PORT` (`[::1]:9464` for IPv6); throws InvalidOptionError naming `option`. */
export function parseListen(listen: string, option = "--http"): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]*):(\d{1,5})$/.exec(listen);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new InvalidOptionError(option, `expected HOST:PORT (or "off"), got "${listen}"`);
  const host = m[1].startsWith("[") ? m[1].slice(1, -1) : m[1];
  return { host: host === "" ? "0.0.0.0" : host, port };
}

/** Validates an optional `--http` value: null/undefined/"off" mean no server. */
export function httpListenOption(value: string | null | undefined, option = "--http"): string | null {
  if (value === undefined || value === null || value === "off") return null;
  parseListen(value, option);
  return value;
}

export async function startHttpServer(listen: string, handler: HttpHandler, log: Logger, what = "HTTP"): Promise<HttpServer> {
  const { host, port } = parseListen(listen);
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch((err: unknown) => {
        log.warn(`${what} request failed`, { url: req.url?.slice(0, 200), err: (err as Error).message });
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
          res.end("internal error\n");
        } else {
          res.destroy();
        }
      });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(new InvalidOptionError("--http", `cannot listen on ${listen}: ${err.message}`));
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  const bound = (server.address() as { port: number }).port;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const url = `http://${shown}:${bound}`;
  log.info(`${what} listening`, { address: `${host.includes(":") ? `[${host}]` : host}:${bound}`, url });
  let closing: Promise<void> | null = null;
  return {
    port: bound,
    url,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

/** Reads a request body up to `limit` bytes; rejects with BodyTooLargeError beyond it. */
export async function readBody(req: IncomingMessage, limit = 64 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new BodyTooLargeError(`request body larger than ${limit} bytes`);
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A request body above the limit: the request's fault. */
export class BodyTooLargeError extends CubistError {
  override readonly name = "BodyTooLargeError";
  override readonly fault = "task";
}

/** Sends a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(text);
}

/** Sends plain text. */
export function sendText(res: ServerResponse, status: number, text: string, contentType = "text/plain; charset=utf-8"): void {
  res.writeHead(status, { "content-type": contentType, "cache-control": "no-store" });
  res.end(text);
}
