/**
 * Hint ladder at Eternity II size (issue target: k >= 150): Brendan Owen's 16x16 (planted solution) with all but
 * the last k cells in row-major order given as hints; the largest k that the 2-worker embedded cluster solves
 * within the time limit (default 10 minutes). The puzzle is shuffled first (seeded) so the piece order gives
 * nothing away; hints are taken from the planted solution mapped through the shuffle.
 *
 *   node --import tsx bench/hint-ladder.ts [--ks 60,90,120,150,170,190] [--limit 600] [--seed 1] [-- extra solve flags]
 *
 * Runs `cubist solve --workers 2 --json` per k, in increasing k, and stops after the first k that is not solved.
 * Prints one JSON line per k and a markdown table.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { readBrendan, readBrendanSolution, writeCanonical } from "../core/formats/index.js";
import { shuffleBoard, shufflePuzzle } from "../core/generate.js";
import type { Hint, Puzzle } from "../core/puzzle.js";

const { values, positionals } = parseArgs({
  options: {
    ks: { type: "string", default: "60,90,120,150,170,190,210" },
    limit: { type: "string", default: "600" },
    seed: { type: "string", default: "1" },
    workers: { type: "string", default: "2" },
  },
  allowPositionals: true,
});

const FIX = "test/fixtures/brendan/";
const original = readBrendan(readFileSync(FIX + "pieces_16x16.txt", "utf8"), "pieces_16x16.txt");
const planted = readBrendanSolution(readFileSync(FIX + "solutions_16x16.txt", "utf8"), "solutions_16x16.txt", original);
const { puzzle: shuffled, map } = shufflePuzzle(original, Number(values.seed));
const solution = shuffleBoard(planted, map);

function withLastFree(k: number): Puzzle {
  const cells = shuffled.rows * shuffled.cols;
  const hints: Hint[] = [];
  for (let cell = 0; cell < cells - k; cell++) {
    const c = solution.cells[cell]!;
    hints.push({ row: Math.floor(cell / shuffled.cols), col: cell % shuffled.cols, piece: c.piece, rot: c.rot });
  }
  return { ...shuffled, hints, name: `brendan16-last${k}-s${values.seed}` };
}

const dir = mkdtempSync(join(tmpdir(), "cubist-ladder-"));
const rows: Array<{ k: number; status: string; seconds: number }> = [];
try {
  for (const k of values.ks!.split(",").map(Number)) {
    const file = join(dir, `last${k}.txt`);
    writeFileSync(file, writeCanonical(withLastFree(k)));
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ["dist/cli/main.js", "solve", file, "--workers", values.workers!, "--json", "--time", values.limit!, ...positionals], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    const seconds = (performance.now() - t0) / 1000;
    let status = `exit ${r.status}`;
    try {
      status = JSON.parse(r.stdout).status;
    } catch {
      // keep the exit code
    }
    const row = { k, status, seconds: +seconds.toFixed(1) };
    console.log(JSON.stringify(row));
    rows.push(row);
    if (status !== "sat") break;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`\n| k (free cells) | given | result | seconds |\n|---|---|---|---|`);
for (const r of rows) console.log(`| ${r.k} | ${256 - r.k} | ${r.status} | ${r.seconds} |`);
const best = rows.filter((r) => r.status === "sat").map((r) => r.k);
console.log(`\nlargest k solved: ${best.length ? Math.max(...best) : "none"}`);
