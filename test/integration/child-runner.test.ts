/**
 * The one child-process runner (host/child.ts) with real processes: a stop is SIGTERM first and SIGKILL only after
 * the grace period, the whole process group goes, `exited` settles only once the child is reaped, exit code and
 * signal are reported, and nothing throws. drat-trim runs through it, so an aborted check gets SIGTERM first too.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { checkProof } from "../../certify/drat-trim.js";
import { runChild, spawnChild } from "../../host/child.js";
import { processAlive, processGroupMembers, writeFakeSolver } from "../helpers/processes.js";

const dir = mkdtempSync(join(tmpdir(), "cubist-child-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A script that reports its pid, starts a background sleep in its group, and waits. `onTerm`: its TERM trap. */
function waiter(name: string, onTerm: string): string {
  return writeFakeSolver(dir, name, `trap '${onTerm}' TERM\necho "pid $$"\nsleep 60 &\nwhile :; do sleep 0.05; done`);
}

test("child runner - a stop is SIGTERM first: a child that traps it exits by itself with its own code, reported as stopped", async () => {
  const marker = join(dir, "term-seen");
  const child = spawnChild(waiter("trap-term.sh", `touch ${marker}; exit 7`), [], { onStdout: () => {}, killGraceMs: 60_000 });
  await waitFor(() => processGroupMembers(child.pid!).length >= 2);
  child.stop();
  assert.equal(child.state, "stopping");
  const end = await child.exited;
  assert.deepEqual([end.code, end.signal, end.stoppedBy, end.spawnError, end.thrown], [7, null, "stopped", null, null]);
  assert.ok(existsSync(marker), "the TERM trap ran");
  assert.equal(child.state, "exited");
  assert.deepEqual(processGroupMembers(child.pid!), [], "the background sleep went with the group");
});

test("child runner - a child that ignores SIGTERM is SIGKILLed after the grace period, with its whole group, before exited settles", async () => {
  let pid = 0;
  // The stop comes 200 ms after the spawn (a timer started before it could fire sooner, as the child's clock runs).
  const stop = new AbortController();
  const end = await runChild(waiter("ignore-term.sh", ""), [], {
    onSpawn: (p) => {
      pid = p;
      setTimeout(() => stop.abort(), 200);
    },
    signal: stop.signal,
    killGraceMs: 300,
  });
  assert.deepEqual([end.signal, end.stoppedBy], ["SIGKILL", "aborted"]);
  assert.ok(end.wallMs >= 500, `stopped after the grace period, not before (${end.wallMs} ms)`);
  assert.equal(processAlive(pid), false);
  // A member SIGKILLed with the group may be listed for a moment after its pipes closed (dead, not yet a zombie).
  const until = Date.now() + 2000;
  while (processGroupMembers(pid).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(processGroupMembers(pid), []);
});

test("child runner - a time limit stops the child; input is written to stdin; stdout and stderr reach the caller", async () => {
  const cat = writeFakeSolver(dir, "echo-input.sh", 'cat\necho "to stderr" >&2\nexit 3');
  let out = "";
  const done = await runChild(cat, [], { input: "hello\n", onStdout: (c) => void (out += c.toString()) });
  assert.deepEqual([done.code, done.signal, done.stoppedBy, out, done.stderr], [3, null, null, "hello\n", "to stderr\n"]);
  const limited = await runChild(waiter("time-limit.sh", "exit 0"), [], { timeLimitMs: 100 });
  assert.deepEqual([limited.code, limited.stoppedBy], [0, "time-limit"]);
});

test("child runner - a missing binary and a throwing stdout callback are reported, never thrown", async () => {
  const missing = await runChild(join(dir, "no-such-binary"), []);
  assert.equal(missing.spawnError?.code, "ENOENT");
  assert.equal(missing.code, null);
  const boom = new Error("bad output");
  const thrown = await runChild(waiter("throwing.sh", "exit 0"), [], { onStdout: () => { throw boom; } });
  assert.equal(thrown.thrown?.error, boom);
  assert.equal(thrown.stoppedBy, "caller-error");
});

test("drat-trim - an aborted check sends SIGTERM before SIGKILL, and is not verified", async () => {
  const marker = join(dir, "drat-term-seen");
  const fake = writeFakeSolver(dir, "drat-trim", `trap 'touch ${marker}; exit 0' TERM\necho "c checking"\nwhile :; do sleep 0.05; done`);
  const check = await checkProof("/dev/null", "/dev/null", { binary: fake, signal: AbortSignal.timeout(200) });
  assert.deepEqual([check.verified, check.detail], [false, "aborted"]);
  assert.ok(existsSync(marker), "the checker saw SIGTERM");
});

async function waitFor(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
