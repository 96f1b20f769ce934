/**
 * The command line's help, as a new user meets it: `cubist --help` lists every command with what it does, and a
 * command group (`cubist run --help`, `cubist puzzle --help`) lists its commands and exits 0. Each is its own
 * process, as typed in a shell.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runCubist } from "../helpers/processes.js";

/** The `  name  description` lines of a help text's command list. */
function commandLines(help: string): Array<{ name: string; description: string }> {
  const block = help.split("Commands:\n")[1]?.split("\n\n")[0] ?? "";
  return block.split("\n").filter(Boolean).map((l) => {
    const m = /^ {2}(\S+(?: \S+)?) {2,}(\S.*)$/.exec(l);
    assert.ok(m, `a command line with a description: "${l}"`);
    return { name: m[1], description: m[2] };
  });
}

test("cli help - cubist --help lists every command with a description", async () => {
  const r = await runCubist(["--help"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = commandLines(r.stdout);
  const names = lines.map((l) => l.name);
  for (const n of ["solve", "run submit", "run priority", "run watch", "cubes list", "cube resplit", "puzzle gen", "worker", "coordinator"]) {
    assert.ok(names.includes(n), `${n} listed`);
  }
  for (const l of lines) assert.ok(l.description.length >= 8, `${l.name} has a description`);
  assert.match(r.stdout, /^ {2}cubes list +List a run's cubes$/m);
});

test("cli help - a command group's --help lists its commands and exits 0; the bare group is a usage error", async () => {
  for (const group of ["run", "puzzle", "cubes", "cube", "solution"]) {
    const r = await runCubist([group, "--help"]);
    assert.equal(r.code, 0, `${group} --help: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Usage: cubist ${group} <command>`));
    const lines = commandLines(r.stdout);
    assert.ok(lines.length >= 1 && lines.every((l) => l.name.startsWith(`${group} `)), r.stdout);
  }
  const run = commandLines((await runCubist(["run", "-h"])).stdout).map((l) => l.name);
  assert.deepEqual(run.sort(), ["run best", "run cancel", "run certificate", "run delete", "run events", "run list", "run pause", "run priority", "run resume", "run show", "run submit", "run watch"]);
  const bare = await runCubist(["run"]);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /try one of: run submit, /);
  const help = await runCubist(["run", "priority", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: cubist run priority <run> <priority>/m);
});
