/**
 * Placements per second of the native engine on a row-scan workload (issue 10: at least the public C backtracker's
 * ~30 M/s per core, goal 60 M/s): each of Brendan's frontier boards, shuffled with seeds 1-3, searched along the
 * short side for a fixed number of placements (or to its first solution), one process at a time. The rate is the
 * engine's own count over its own clock (no process start); the median over boards and seeds is the figure.
 *
 * `--engines A,B` compares engine binaries side by side: each board and seed runs every binary in turn (interleaved,
 * so a change in the machine's load hits them alike), and the summary gives each one's median and their ratio.
 *
 *   node --import tsx bench/engine-rate.ts [--nodes 200000000] [--order short] [--repeats 1] [--engines A,B]
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { readBrendan } from "../core/formats/index.js";
import { shufflePuzzle } from "../core/generate.js";
import { engineProblem, locateEngine } from "../worker/engine/index.js";
import { median } from "./lib/summary.js";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "200000000" },
    order: { type: "string", default: "short" },
    repeats: { type: "string", default: "1" },
    boards: { type: "string", default: "07x06,08x05,07x07,08x06,09x05,08x07,09x06,10x05" },
    engines: { type: "string" },
  },
});

const engines = values.engines ? values.engines.split(",") : [locateEngine()];
const rows: Array<{ engine: string; board: string; seed: number; nodes: number; seconds: number; rate: number }> = [];
process.stdout.write(`1-min load at start ${loadavg()[0].toFixed(2)}\n`);
for (const board of values.boards!.split(",")) {
  const file = `bench/puzzles/brendan/pieces_${board}.txt`;
  const puzzle = readBrendan(readFileSync(file, "utf8"), file);
  for (const seed of [1, 2, 3]) {
    const { puzzle: shuffled } = shufflePuzzle(puzzle, seed);
    const input = engineProblem(shuffled, [])!;
    for (let r = 0; r < Number(values.repeats); r++) {
      for (const engine of engines) {
        let out: string;
        try {
          out = execFileSync(engine, ["--order", values.order!, "--nodes", values.nodes!], { input, encoding: "utf8" });
        } catch (err) {
          out = String((err as { stdout?: string }).stdout ?? ""); // exit 10/20 are answers, not failures
        }
        const stat = (k: string): number => Number(new RegExp(`^c ${k} (\\S+)`, "m").exec(out)?.[1] ?? NaN);
        const nodes = stat("nodes"), seconds = stat("seconds");
        rows.push({ engine, board, seed, nodes, seconds, rate: nodes / seconds });
        const label = engines.length > 1 ? ` ${engine}` : "";
        process.stdout.write(`${board} seed ${seed}${label}: ${(nodes / 1e6).toFixed(1)} M placements in ${seconds.toFixed(3)} s = ${(nodes / seconds / 1e6).toFixed(1)} M/s\n`);
      }
    }
  }
}
process.stdout.write("\n");
const medians: number[] = [];
for (const engine of engines) {
  const rates = rows.filter((r) => r.engine === engine && r.seconds >= 0.05).map((r) => r.rate / 1e6);
  medians.push(median(rates));
  const label = engines.length > 1 ? `${engine}: ` : "";
  process.stdout.write(`${label}median ${median(rates).toFixed(1)} M placements/s over ${rates.length} runs of at least 50 ms (order ${values.order}); ` +
    `min ${Math.min(...rates).toFixed(1)}, max ${Math.max(...rates).toFixed(1)}\n`);
}
if (engines.length > 1) {
  process.stdout.write(`ratio of medians ${engines[engines.length - 1]} / ${engines[0]}: ${(medians[medians.length - 1] / medians[0]).toFixed(2)}x\n`);
}
process.stdout.write(`1-min load at end ${loadavg()[0].toFixed(2)}\n`);
