/**
 * Score mode on the official Eternity II with its 5 hints (issue 13 target: score >= 440 within 10 minutes on
 * 2 cores; goal 460+ on long runs). The puzzle is shuffled first (seeded: piece order and orientation) so the
 * file's piece order gives nothing away, then `cubist solve --objective score --json --time T` runs on it.
 *
 *   node --import tsx bench/score.ts [--time 600] [--seeds 1,2,3] [--threads 2] [-- extra solve flags]
 *
 * Prints one JSON line per seed (final score and the score-over-time curve) and a markdown table of the score
 * reached at 10 s, 60 s, 180 s and the end.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseE2Hints, readCanonical, withHints, writeCanonical } from "../core/formats/index.js";
import { shufflePuzzle } from "../core/generate.js";

const { values, positionals } = parseArgs({
  options: {
    time: { type: "string", default: "600" },
    seeds: { type: "string", default: "1" },
    threads: { type: "string", default: "2" },
  },
  allowPositionals: true,
});

const FIX = "test/fixtures/eternity2/";
const bare = readCanonical(readFileSync(FIX + "e2_pieces.txt", "utf8"), "e2_pieces.txt");
const e2 = withHints(bare, parseE2Hints(readFileSync(FIX + "e2_hints.txt", "utf8"), "e2_hints.txt", bare));
const dir = mkdtempSync(join(tmpdir(), "cubist-score-"));
const marks = [10, 60, 180, 600, 1800];
const rows: Array<{ seed: number; final: number | null; at: Record<number, number | null>; seconds: number }> = [];
try {
  for (const seed of values.seeds!.split(",").map(Number)) {
    const { puzzle } = shufflePuzzle(e2, seed);
    const file = join(dir, `e2-s${seed}.txt`);
    writeFileSync(file, writeCanonical({ ...puzzle, name: `e2-hints5-s${seed}` }));
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ["dist/cli/main.js", "solve", file, "--objective", "score", "--json", "--time", values.time!, "--threads", values.threads!, ...positionals], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    const seconds = (performance.now() - t0) / 1000;
    const out = JSON.parse(r.stdout) as { best: { score: number } | null; history: Array<{ seconds: number; score: number }> };
    const at: Record<number, number | null> = {};
    for (const m of marks.filter((m) => m <= Number(values.time))) {
      const upTo = out.history.filter((h) => h.seconds <= m);
      at[m] = upTo.length ? upTo[upTo.length - 1].score : null;
    }
    const row = { seed, final: out.best?.score ?? null, at, seconds: +seconds.toFixed(1) };
    console.log(JSON.stringify({ ...row, history: out.history }));
    rows.push(row);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const shown = marks.filter((m) => m <= Number(values.time));
console.log(`\n| shuffle seed | ${shown.map((m) => `score at ${m} s`).join(" | ")} | final |\n|---|${shown.map(() => "---|").join("")}---|`);
for (const r of rows) console.log(`| ${r.seed} | ${shown.map((m) => r.at[m] ?? "-").join(" | ")} | ${r.final ?? "-"} |`);
