/**
 * The Host and Origin checks of the coordinator's state-changing HTTP calls (coordinator/serve/http-guard.ts), the
 * token it makes up for a gRPC or HTTP server bound to a non-loopback address without one (coordinator/serve/auth.ts),
 * and which gRPC calls need the token (coordinator/serve/grpc-server.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { createHostGuard, hostOfHeader, isLoopbackHost, parseAllowedHosts } from "../../coordinator/serve/http-guard.js";
import { apiTokensFor } from "../../coordinator/serve/auth.js";
import { callNeedsToken, READ_CALLS } from "../../coordinator/serve/grpc-server.js";
import { CubistServiceService } from "../../proto/gen/cubist/v1/api.js";
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

test("api auth - a token is made up and logged once only for non-loopback binds without --auth-token, one for both servers", () => {
  const lines: string[] = [];
  const log = createLogger({ component: "test", level: "info", write: (l) => lines.push(l) });
  assert.deepEqual(apiTokensFor({ grpc: "127.0.0.1:50051", http: "[::1]:9464" }, undefined, log), {});
  assert.deepEqual(apiTokensFor({ grpc: "localhost:50051", http: null }, undefined, log), {});
  assert.deepEqual(apiTokensFor({ grpc: "0.0.0.0:50051", http: "0.0.0.0:9464" }, "chosen-token", log), { grpc: "chosen-token", http: "chosen-token" });
  assert.equal(lines.length, 0);
  const both = apiTokensFor({ grpc: "0.0.0.0:50051", http: "10.1.2.3:9464" }, undefined, log);
  assert.match(both.grpc!, /^[A-Za-z0-9_-]{24}$/);
  assert.equal(both.http, both.grpc);
  assert.equal(lines.length, 1);
  assert.ok(lines[0].includes(both.grpc!) && lines[0].includes("generated token"));
  // Only the non-loopback server requires it; an empty host is every address.
  const grpcOnly = apiTokensFor({ grpc: ":50051", http: "127.0.0.1:9464" }, undefined, log);
  assert.ok(grpcOnly.grpc && grpcOnly.http === undefined && grpcOnly.grpc !== both.grpc);
  const httpOnly = apiTokensFor({ grpc: "127.0.0.1:50051", http: "0.0.0.0:9464" }, undefined, log);
  assert.ok(httpOnly.http && httpOnly.grpc === undefined);
  assert.equal(lines.length, 3);
});

test("api auth - every gRPC call but the reads needs the token: priority and delete too, and any call added later", () => {
  const calls = Object.keys(CubistServiceService);
  for (const read of READ_CALLS) assert.ok(calls.includes(read), `${read} is a call of the service`);
  const needing = calls.filter((c) => callNeedsToken(c, false)).sort();
  assert.deepEqual(needing, ["cancelRun", "deleteRun", "pauseRun", "resplitCube", "resumeRun", "setRunPriority", "submitRun"]);
  assert.ok(callNeedsToken("someNewCall", false));
  assert.ok(calls.every((c) => callNeedsToken(c, true)), "--auth-reads: every call");
});
