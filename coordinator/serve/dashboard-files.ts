/**
 * The dashboard's static files (coordinator/dashboard/: no build step, no CDN), read once at start and served with a
 * content security policy that allows nothing from elsewhere.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HttpError } from "./api-errors.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
};

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'";

/** coordinator/dashboard, found from the compiled module (dist/coordinator/serve) or the source one. */
export function locateDashboard(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const d of [join(here, "../dashboard"), join(here, "../../../coordinator/dashboard")]) {
    if (existsSync(join(d, "index.html"))) return d;
  }
  return null;
}

export class DashboardFiles {
  private readonly files = new Map<string, { body: Buffer; type: string }>();

  /** The files of `dir` (null: none, every page answers 404). */
  constructor(private readonly dir: string | null) {
    if (!dir) return;
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (!type || !/^[a-z0-9][a-z0-9.-]*$/.test(name)) continue;
      this.files.set(name, { body: readFileSync(join(dir, name)), type });
    }
  }

  /** Sends the file `name`; HttpError 404 when there is none. */
  send(res: ServerResponse, name: string): void {
    const f = this.files.get(name);
    if (!f) throw new HttpError(404, this.dir ? `no file ${name}` : "the dashboard files are not installed");
    res.writeHead(200, { "content-type": f.type, "cache-control": "no-cache", "content-security-policy": CSP, "x-content-type-options": "nosniff" });
    res.end(f.body);
  }
}
