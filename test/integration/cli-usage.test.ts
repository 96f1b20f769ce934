/**
 * The command line as a new user meets it, each command its own process: mistyped options and commands get a
 * suggestion (exit 2), a bad value or a file that is no puzzle gets a message naming it, output files are written
 * whole even when the reader of stdout is gone, `solve --json --svg` draws the board, and the `puzzle` commands
 * read the tool's own triangle files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cubistCommand, REPO_ROOT, trackChild, runCubist, type CubistResult } from "../helpers/processes.js";
import { parseTriangle } from "../../core/triangle/format.js";
import { countTriangle } from "../../core/triangle/search.js";

const CLUE = "examples/clue1.txt";
const TRIANGLE = "test/fixtures/cluster/tri-4-l4-s4.txt";

/** Runs a command whose stdout reader is gone before it writes anything (as `| head -0` would leave it). */
async function cubistClosedStdout(args: string[]): Promise<CubistResult> {
  const child = spawn(process.execPath, [...cubistCommand(), ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  const p = trackChild(child);
  const { code } = await p.exited;
  return { code, stdout: "", stderr: p.stderr() };
}

test("cli usage - a mistyped option or command gets the closest name and exit 2", async () => {
  const thread = await runCubist(["solve", CLUE, "--thread", "2"]);
  assert.deepEqual([thread.code, thread.stderr], [2, "cubist solve: unknown option --thread (did you mean --threads?)\n"]);
  const worker = await runCubist(["solve", CLUE, "--worker", "2"]);
  assert.deepEqual([worker.code, worker.stderr], [2, "cubist solve: unknown option --worker (did you mean --workers?)\n"]);
  const slove = await runCubist(["slove", CLUE]);
  assert.deepEqual([slove.code, slove.stderr], [2, 'cubist: unknown command "slove" (did you mean solve?)\n']);
  const sub = await runCubist(["run", "sumbit", CLUE]);
  assert.deepEqual([sub.code, sub.stderr], [2, 'cubist: "run sumbit" is not a command (did you mean run submit?)\n']);
});

test("cli usage - a negative time says it must be positive; a file that is no puzzle is named as such", async () => {
  const time = await runCubist(["solve", CLUE, "--time", "-5"]);
  assert.deepEqual([time.code, time.stderr], [1, "cubist solve: --time: must be 0 or a positive number, got -5\n"]);
  const json = await runCubist(["solve", "package.json"]);
  assert.equal(json.code, 1);
  assert.match(json.stderr, /^cubist solve: package\.json:1: not a puzzle in any known format: its first data line "\{" is none of .*docs\/formats\.md\)\n$/);
});

test("cli usage - output files are written whole when stdout's reader is gone; solve --json --svg draws the board", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cubist-usage-"));
  try {
    const board = join(dir, "b.json"), picture = join(dir, "r.svg"), solved = join(dir, "s.svg");
    const solve = await runCubist(["solve", CLUE, "--json", "--svg", solved]);
    assert.equal(solve.code, 0, solve.stderr);
    writeFileSync(board, solve.stdout);
    assert.match(readFileSync(solved, "utf8"), /^<svg[\s\S]*<\/svg>\n?$/, "--json --svg writes the picture");
    const render = await cubistClosedStdout(["render", CLUE, board, "--svg", picture]);
    assert.deepEqual([render.code, render.stderr], [0, ""]);
    assert.equal(readFileSync(picture, "utf8"), readFileSync(solved, "utf8"), "the whole picture, as solve drew it");
    const missing = await cubistClosedStdout(["render", CLUE, board, "--svg", join(dir, "no/such/dir/r.svg")]);
    assert.equal(missing.code, 1, "a file that cannot be written is an error, not a quiet exit");
    assert.match(missing.stderr, /^cubist render: \S+r\.svg: cannot write: no such file or directory\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cli usage - puzzle show, shuffle and convert read the tool's own triangle files", async () => {
  const puzzle = parseTriangle(readFileSync(join(REPO_ROOT, TRIANGLE), "utf8"), TRIANGLE);
  const show = await runCubist(["puzzle", "show", TRIANGLE]);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^tri-4-l4-s4: triangle of side 4, 16 pieces, 18 joins\npieces: keep their orientation; outer edges: free\nlabels: 4 \[1 2 3 4\]\nhints: none\n$/);
  const summary = JSON.parse((await runCubist(["puzzle", "show", TRIANGLE, "--json"])).stdout) as Record<string, unknown>;
  assert.deepEqual(summary, { name: "tri-4-l4-s4", shape: "triangle", side: 4, pieces: 16, rotate: false, frame: null, labels: [1, 2, 3, 4], hints: [] });
  const convert = await runCubist(["puzzle", "convert", TRIANGLE]);
  assert.equal(convert.code, 0, convert.stderr);
  assert.deepEqual(parseTriangle(convert.stdout, "converted"), puzzle);
  const shuffle = await runCubist(["puzzle", "shuffle", TRIANGLE, "--seed", "3"]);
  assert.equal(shuffle.code, 0, shuffle.stderr);
  const shuffled = parseTriangle(shuffle.stdout, "shuffled");
  assert.equal(shuffled.name, "tri-4-l4-s4-shuffled-s3");
  assert.notDeepEqual(shuffled.pieces, puzzle.pieces);
  assert.equal(countTriangle(shuffled).count, countTriangle(puzzle).count, "the same puzzle, pieces listed otherwise");
  const hints = await runCubist(["puzzle", "show", TRIANGLE, "--hints", "test/fixtures/eternity2/e2_hints.txt"]);
  assert.equal(hints.code, 1);
  assert.match(hints.stderr, /--hints: is for square boards/);
});
