/**
 * Big input files (issue 23, finding 6) against the built CLI as its own processes: a valid puzzle followed by
 * 100 MB of newlines, a 100 MB single line, 100 MB on stdin, a 7 MB file beside the documented 1 MiB limit. Each
 * file is made in a temp dir by the test. Every case must end with exit 1 and one short line naming the file and
 * the limit, read no more than the limit, and stay small in memory: each process reports its peak RSS at exit
 * (`process.resourceUsage().maxRSS`, through a module loaded with --import).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cubistCommand, REPO_ROOT, trackChild, type CubistProcess } from "../helpers/processes.js";

const PUZZLE = "test/fixtures/clues/clue1.txt";
const MB = 1024 * 1024;
/** Prints the process's peak RSS (KB) on stderr as it exits. */
const RSS_HOOK = 'data:text/javascript,process.on("exit",()=>process.stderr.write("maxrss_kb="+process.resourceUsage().maxRSS+"\\n"))';
/** Node itself takes about 50 MB; reading a 100 MB file whole took 1.7-1.9 GB before the limit. */
const MAX_RSS_KB = 200 * 1024;

interface Outcome { code: number | null; stdout: string; message: string; maxRssKb: number }

function spawnMeasured(args: string[], stdin: "ignore" | "pipe" = "ignore"): CubistProcess {
  return trackChild(spawn(process.execPath, ["--import", RSS_HOOK, ...cubistCommand(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, CUBIST_COORDINATOR: "127.0.0.1:1", CUBIST_MAX_PUZZLE_MB: "" },
    stdio: [stdin, "pipe", "pipe"],
  }));
}

async function outcome(p: CubistProcess): Promise<Outcome> {
  const { code } = await p.exited;
  const err = p.stderr();
  const m = /maxrss_kb=(\d+)\n$/.exec(err);
  assert.ok(m, `no RSS report: ${err.slice(0, 500)}`);
  return { code, stdout: p.stdout(), message: err.slice(0, m.index), maxRssKb: Number(m[1]) };
}

function cubist(args: string[]): Promise<Outcome> {
  return outcome(spawnMeasured(args));
}

/** Exit 1 with one short line on stderr that names the file (or <stdin>) and the limit, in little memory. */
function assertRefused(o: Outcome, command: string, file: string, size: string): void {
  assert.equal(o.code, 1, o.message);
  assert.equal(o.stdout, "");
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  assert.match(o.message, new RegExp(`^cubist ${command}: ${escaped} is ${size}, above the input limit of 1\\.0 MB \\(raise it with --max-puzzle-mb MB; docs/operations.md "Limits"\\)\\n$`));
  assert.ok(o.message.length < 400, `stderr is short: ${o.message.length} bytes`);
  assert.ok(o.maxRssKb < MAX_RSS_KB, `peak RSS ${o.maxRssKb} KB`);
}

function withTemp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-bounded-input-"));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** `text` followed by `mb` MB of newlines, written 1 MB at a time. */
function writeWithNewlines(path: string, text: string, mb: number): void {
  const fd = openSync(path, "w");
  try {
    writeSync(fd, text);
    const newlines = Buffer.alloc(MB, "\n");
    for (let i = 0; i < mb; i++) writeSync(fd, newlines);
  } finally {
    closeSync(fd);
  }
}

test("bounded input - a valid puzzle followed by 100 MB of newlines: solve and run submit exit 1 naming the file and the limit, in little memory", async () => {
  await withTemp(async (dir) => {
    const file = join(dir, "padded.txt");
    writeWithNewlines(file, readFileSync(join(REPO_ROOT, PUZZLE), "utf8"), 100);
    assertRefused(await cubist(["solve", file]), "solve", file, "100 MB");
    assertRefused(await cubist(["run", "submit", file]), "run submit", file, "100 MB");
    assertRefused(await cubist(["encode", file]), "encode", file, "100 MB");
  });
});

test("bounded input - a 100 MB single line as the puzzle, the board and the hint file: refused without echoing it", async () => {
  await withTemp(async (dir) => {
    // A sparse file: one line of 100 MB (NUL bytes) that costs no disk.
    const line = join(dir, "line.txt");
    writeFileSync(line, "");
    truncateSync(line, 100 * MB);
    assertRefused(await cubist(["solve", line]), "solve", line, "100 MB");
    assertRefused(await cubist(["verify", PUZZLE, line]), "verify", line, "100 MB");
    assertRefused(await cubist(["render", PUZZLE, line]), "render", line, "100 MB");
    assertRefused(await cubist(["puzzle", "show", PUZZLE, "--hints", line]), "puzzle show", line, "100 MB");
  });
});

test("bounded input - 100 MB on stdin: solve - stops reading past the limit and exits 1", async () => {
  const p = spawnMeasured(["solve", "-"], "pipe");
  const stdin = p.child.stdin!;
  stdin.on("error", () => undefined); // EPIPE once the CLI stops reading
  const chunk = Buffer.alloc(MB, "\n");
  let written = 0;
  for (let i = 0; i < 100 && !stdin.destroyed && p.child.exitCode === null; i++) {
    const more = stdin.write(chunk);
    written++;
    if (!more) await Promise.race([new Promise((r) => stdin.once("drain", r)), p.exited]);
  }
  stdin.end();
  const o = await outcome(p);
  assertRefused(o, "solve", "<stdin>", "more than 1\\.0 MB");
  assert.ok(written < 100, `the CLI stopped reading after ${written} MB of 100`);
});

test("bounded input - a 7 MB file is refused by default and read with --max-puzzle-mb 8; the flag stops at 16", async () => {
  await withTemp(async (dir) => {
    const file = join(dir, "seven.txt");
    writeFileSync(file, readFileSync(join(REPO_ROOT, PUZZLE), "utf8") + "# a comment line\n".repeat((7 * MB) / 17));
    assertRefused(await cubist(["puzzle", "show", file]), "puzzle show", file, "7\\.0 MB");
    const raised = await cubist(["puzzle", "show", file, "--max-puzzle-mb", "8"]);
    assert.equal(raised.code, 0, raised.message);
    assert.match(raised.stdout, /^seven: 6 x 6, 36 pieces/);
    assert.ok(raised.maxRssKb < MAX_RSS_KB, `peak RSS ${raised.maxRssKb} KB`);
    const above = await cubist(["puzzle", "show", file, "--max-puzzle-mb", "17"]);
    assert.equal(above.code, 1);
    assert.match(above.message, /^cubist puzzle show: --max-puzzle-mb: must be a number in \(0, 16\], got 17\n$/);
  });
});

test("bounded input - a bad line under the limit is quoted as a short excerpt; a file of too many lines stops at the line past the most a puzzle has", async () => {
  await withTemp(async (dir) => {
    const long = join(dir, "long.txt");
    writeFileSync(long, `3 3\n${"7".repeat(900_000)} 1 2 3 4\n`);
    const o = await cubist(["solve", long]);
    assert.equal(o.code, 1);
    assert.match(o.message, new RegExp(`^cubist solve: ${long.replace(/[.]/g, "\\.")}:2: piece id '7{40}\\.\\.\\.' is too large\\n$`));
    const many = join(dir, "many.txt");
    writeFileSync(many, readFileSync(join(REPO_ROOT, PUZZLE), "utf8") + "1 2 3 4 5\n".repeat(90_000));
    const m = await cubist(["solve", many]);
    assert.equal(m.code, 1);
    assert.match(m.message, /:8197: more than 8193 data lines: no puzzle has that many \(at most 64x64 pieces and as many hints\)\n$/);
  });
});
