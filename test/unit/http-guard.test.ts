/**
 * The Host and Origin checks of the coordinator's state-changing HTTP calls (coordinator/http-guard.ts), and the
 * token it makes up when bound to a non-loopback address without one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { createHostGuard, hostOfHeader, isLoopbackHost, parseAllowedHosts } from "../../coordinator/http-guard.js";
import { httpTokenFor } from "../../coordinator/http-server.js";
import { createLogger } from "../../cluster/log.js";
import { InvalidOptionError } from "../../core/errors.js";

const req = (host: string | undefined, origin?: string): IncomingMessage => ({ headers: { host, origin } }) as unknown as IncomingMessage;

test("http guard - Host must be loopback, an IP literal, the bind host or allow-listed; Origin must be the same origin", () => {
  const g = createHostGuard("0.0.0.0", parseAllowedHosts("Dash.Example., ops.internal"));
  for (const h of ["127.0.0.1:9464", "localhost:9464", "[::1]:9464", "10.1.2.3:9464", "[fd00::1]:80", "dash.example:9464", "OPS.internal", "localhost"]) {
    assert.equal(g.refuse(req(h)), null, h);
  }
  for (const h of ["attacker.example:9464", "127.0.0.1.nip.io:9464", "localhost.attacker.example", undefined, "", "a b:1", "x:99999999"]) {
    assert.ok(g.refuse(req(h)), String(h));
  }
  assert.match(g.refuse(req("evil.example:9464"))!, /--http-allow-host evil\.example/);
  assert.equal(g.refuse(req("localhost:9464", "http://localhost:9464")), null);
  assert.equal(g.refuse(req("dash.example", "https://dash.example")), null);
  for (const o of ["http://attacker.example", "null", "http://localhost:9465", "file://", "chrome-extension://abc", "not a url"]) {
    assert.ok(g.refuse(req("localhost:9464", o)), o);
  }
  // Bound to a name, that name is allowed without the flag.
  assert.equal(createHostGuard("coordinator.lan").refuse(req("coordinator.lan:9464")), null);
  assert.ok(createHostGuard("127.0.0.1").refuse(req("coordinator.lan:9464")));
  assert.equal(hostOfHeader("[::1]:80"), "::1");
  assert.ok(isLoopbackHost("127.3.4.5") && isLoopbackHost("::1") && !isLoopbackHost("0.0.0.0") && !isLoopbackHost("10.0.0.1"));
  assert.throws(() => parseAllowedHosts("ok.example,bad host"), (e: unknown) => e instanceof InvalidOptionError && e.option === "--http-allow-host");
});

test("http guard - a token is made up and logged once only for a non-loopback bind without --auth-token", () => {
  const lines: string[] = [];
  const log = createLogger({ component: "test", level: "info", write: (l) => lines.push(l) });
  assert.equal(httpTokenFor("127.0.0.1:9464", undefined, log), undefined);
  assert.equal(httpTokenFor("[::1]:9464", undefined, log), undefined);
  assert.equal(httpTokenFor("0.0.0.0:9464", "chosen-token", log), "chosen-token");
  assert.equal(lines.length, 0);
  const made = httpTokenFor("0.0.0.0:9464", undefined, log)!;
  assert.match(made, /^[A-Za-z0-9_-]{24}$/);
  assert.equal(lines.length, 1);
  assert.ok(lines[0].includes(made));
  assert.notEqual(httpTokenFor(":9464", undefined, log), made);
});
