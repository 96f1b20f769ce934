/**
 * Engine test helpers: a wrapper script around the built engine that records the pid of every process started
 * through it, and the check that none of them (nor anything in their process groups) is left running.
 */
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { acceptScored } from "../../core/score.js";
import type { Puzzle } from "../../core/puzzle.js";
import { locateEngine, type EngineBest } from "../../worker/engine/index.js";
import { processAlive, processGroupMembers } from "./processes.js";

/** A script in `dir` named `name` that runs `before` (shell), then execs the engine, logging each pid. */
export function trackedEngine(dir: string, name: string, before = ""): { binary: string; pids(): number[] } {
  const pidFile = join(dir, `${name}.pids`);
  const binary = join(dir, `${name}.sh`);
  writeFileSync(binary, `#!/bin/sh\necho $$ >> "${pidFile}"\n${before}\nexec "${locateEngine()}" "$@"\n`);
  chmodSync(binary, 0o755);
  return {
    binary,
    pids: () => {
      try {
        return readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number);
      } catch {
        return [];
      }
    },
  };
}

/**
 * Every pid, and its process group, is gone. A process killed as its group was stopped can still be listed for a
 * moment after its pipes closed (dead, not yet reaped by init): it gets `graceMs` to disappear.
 */
export async function assertGone(pids: readonly number[], graceMs = 2000): Promise<void> {
  const end = Date.now() + graceMs;
  while (Date.now() < end && pids.some((pid) => processAlive(pid) || processGroupMembers(pid).length > 0)) await new Promise((r) => setTimeout(r, 20));
  for (const pid of pids) {
    assert.ok(!processAlive(pid), `engine process ${pid} is still running`);
    assert.deepEqual(processGroupMembers(pid), [], `engine process group ${pid} is not empty`);
  }
}

/**
 * The complete boards a score-mode engine reported, each checked by core/score.ts apart from the engine: a valid
 * board of every cell with the puzzle's hints at their cells, the score, breaks and maximum the engine claimed, each
 * better than the one before. Returns the last board's score (-1 without one).
 */
export function checkScoredBoards(puzzle: Puzzle, bests: readonly EngineBest[], label: string): number {
  let last = -1;
  for (const b of bests) {
    const a = acceptScored(puzzle, b.board);
    assert.ok(a.ok, `${label}: ${a.ok ? "" : a.reason}`);
    assert.equal(a.scored.placed, puzzle.rows * puzzle.cols);
    assert.equal(a.scored.score, b.score, `${label}: the engine's score agrees with the checker's`);
    assert.equal(a.scored.mismatches.length, b.breaks);
    assert.equal(a.scored.maxScore, b.max);
    for (const h of puzzle.hints) assert.deepEqual(a.scored.board.cells[h.row * puzzle.cols + h.col], { piece: h.piece, rot: h.rot });
    assert.ok(a.scored.score > last, `${label}: each reported board improves on the last`);
    last = a.scored.score;
  }
  return last;
}
