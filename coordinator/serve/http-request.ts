/**
 * What a request to the dashboard's HTTP API must show before it is served: a state-changing call its Host and Origin
 * (coordinator/serve/http-guard.ts, 403), the bearer token where one is required (coordinator/serve/auth.ts, 401), and
 * a JSON object as its body (415, 413, 400).
 */

import type { IncomingMessage } from "node:http";
import { BodyTooLargeError, readBody } from "../../cluster/http.js";
import type { Logger } from "../../cluster/log.js";
import { HttpError } from "./api-errors.js";
import { bearerOk } from "./auth.js";
import type { HostGuard } from "./http-guard.js";

/** Who may call, as the server was started. */
export interface HttpAccess {
  /** The bearer token required for writes (and reads with `authReads`); none: open. */
  readonly token?: string;
  readonly authReads: boolean;
  readonly guard: HostGuard;
  readonly log: Logger;
}

/** Refuses (403) a state-changing call whose Host or Origin is not this coordinator's. */
export function requireHost(access: HttpAccess, req: IncomingMessage): void {
  const why = access.guard.refuse(req);
  if (why === null) return;
  access.log.warn("HTTP call refused: Host or Origin is not this coordinator's", { method: req.method, url: req.url?.slice(0, 200), host: String(req.headers.host).slice(0, 200), origin: String(req.headers.origin ?? "").slice(0, 200) });
  throw new HttpError(403, why);
}

/** Refuses (401) a call without the right bearer token, when the server requires one for it. */
export function requireToken(access: HttpAccess, req: IncomingMessage, write: boolean): void {
  if (!access.token) return;
  if (!write && !access.authReads) return;
  if (!bearerOk(req.headers.authorization, access.token)) {
    access.log.warn("HTTP call refused: missing or wrong bearer token", { method: req.method, url: req.url?.slice(0, 200) });
    throw new HttpError(401, `${write ? "this call" : "reading"} needs a valid bearer token (Authorization: Bearer <token>)`);
  }
}

/** The body of a POST: a JSON object ({} when empty). */
export async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = String(req.headers["content-type"] ?? "");
  if (!/^application\/json\b/i.test(type)) throw new HttpError(415, "POST bodies must be application/json");
  const text = await readBody(req).catch((err) => {
    throw err instanceof BodyTooLargeError ? new HttpError(413, err.message) : err;
  });
  if (text.trim() === "") return {};
  try {
    const v = JSON.parse(text) as unknown;
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error("not an object");
    return v as Record<string, unknown>;
  } catch {
    throw new HttpError(400, "the body is not a JSON object");
  }
}
