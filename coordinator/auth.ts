/**
 * The bearer-token check of the gRPC API (grpc-server.ts, the `authorization` metadata) and the dashboard's HTTP
 * API (http-server.ts, the `Authorization` header): `Bearer <token>`, compared in constant time.
 */
import { timingSafeEqual } from "node:crypto";

export function bearerOk(header: unknown, token: string): boolean {
  if (typeof header !== "string") return false;
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
