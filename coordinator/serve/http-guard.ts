/**
 * Host and Origin checks of the coordinator's state-changing HTTP requests (pause, resume, cancel, re-split), against
 * DNS rebinding and cross-site requests: a page on attacker.example whose name is made to resolve to 127.0.0.1
 * sends `Host: attacker.example:9464`; a page on another origin sends its own `Origin`.
 *
 * - Host must name this server: a loopback name (`localhost`), an IP address literal (no DNS, so no rebinding),
 *   the host of the bind address, or a name given with `--http-allow-host`. Anything else: 403.
 * - Origin, when the browser sends one, must be this same origin (`http(s)://` + the request's Host). `null` and
 *   any other origin: 403.
 *
 * Reads (GET) are not checked: /metrics and /healthz are scraped under any name (service DNS names), and API
 * reads can be closed with `--auth-reads`. Bound to a non-loopback address without `--auth-token`, the coordinator
 * generates a token for these calls and logs it once (coordinator/serve/auth.ts: `apiTokensFor`).
 */

import { isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import { InvalidOptionError } from "../../core/errors.js";

/** Names that always mean this machine. */
const LOOPBACK_NAMES = new Set(["localhost", "localhost.localdomain", "ip6-localhost"]);

/** A host name as an allow-list entry: lower case, no port, no brackets, no trailing dot. */
function normalHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, "");
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h;
}

/** Splits a Host header (`name:port`, `[v6]:port`, or without port) into its host part; null when malformed. */
export function hostOfHeader(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(header.trim());
  return m ? normalHost(m[1]) : null;
}

/** True for loopback names and addresses (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = normalHost(host);
  if (LOOPBACK_NAMES.has(h)) return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  return h === "::1" || h === "::ffff:127.0.0.1";
}

/** Validates `--http-allow-host` (comma-separated names); throws InvalidOptionError naming the flag. */
export function parseAllowedHosts(value: string | undefined): string[] {
  if (!value) return [];
  const hosts = value.split(",").map(normalHost).filter((h) => h !== "");
  for (const h of hosts) {
    if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(h) && isIP(h) === 0) throw new InvalidOptionError("--http-allow-host", `"${h.slice(0, 80)}" is not a host name`);
  }
  return hosts;
}

export interface HostGuard {
  /** null when the request may change state; otherwise why it is refused (a 403). */
  refuse(req: IncomingMessage): string | null;
}

/** The guard for a server bound to `bindHost` that also answers to `allowedHosts`. */
export function createHostGuard(bindHost: string, allowedHosts: readonly string[] = []): HostGuard {
  const allowed = new Set(allowedHosts.map(normalHost));
  const bind = normalHost(bindHost);
  if (bind !== "" && bind !== "0.0.0.0" && bind !== "::") allowed.add(bind);
  const hostOk = (h: string): boolean => allowed.has(h) || isLoopbackHost(h) || isIP(h) !== 0;
  return {
    refuse(req) {
      const header = req.headers.host;
      const host = hostOfHeader(header);
      if (host === null) return "the Host header is missing or malformed";
      if (!hostOk(host)) {
        return `Host "${host.slice(0, 80)}" is not this coordinator (a DNS rebinding guard): use its address, or start it with --http-allow-host ${host.slice(0, 80)}`;
      }
      const origin = req.headers.origin;
      if (origin === undefined) return null;
      let o: URL;
      try {
        o = new URL(origin);
      } catch {
        return `Origin "${String(origin).slice(0, 80)}" is not this coordinator's`;
      }
      if ((o.protocol !== "http:" && o.protocol !== "https:") || o.host.toLowerCase() !== String(header).trim().toLowerCase()) {
        return `Origin "${origin.slice(0, 80)}" is not this coordinator's: cross-site calls are refused`;
      }
      return null;
    },
  };
}
