/**
 * Counting on the cluster (issue 12's targets; results in BENCHMARKS.md "Counting on the cluster").
 *
 *   node --import tsx bench/count-cluster.ts complete [--seeds 1,2] [--time 600]
 *     generated 7x7 boards, 3 border and 8 centre colours, one corner fixed by a hint (the planted solution's
 *     piece): `solve --all --threads 2` and `solve --workers 2 --all`, interleaved per seed; counts must agree.
 *   node --import tsx bench/count-cluster.ts scaling [--rows 6 --cols 6 --border-colors 3 --center-colors 4 --seed 1] [--reps 2]
 *     `solve --workers 1 --all` against `--workers 2 --all`, interleaved; medians and the ratio.
 *   node --import tsx bench/count-cluster.ts frontier [--rows 8 --cols 8 --border-colors 3 --center-colors 9 --seed 1] [--time 1800]
 *     an embedded cluster of 2 workers counting for --time seconds: count so far, covered weight and ETA.
 *
 * Every puzzle is `puzzle gen`'s (pieces listed in random order and orientation by the generator, with the seed
 * recorded); every board counted comes with verified boards (docs/cluster.md "Counting").
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generatePuzzle } from "../core/generate.js";
import { writeCanonical } from "../core/formats/index.js";
import type { Puzzle } from "../core/puzzle.js";
import { cubistCommand } from "../test/helpers/processes.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seeds: { type: "string", default: "1,2" },
    seed: { type: "string", default: "1" },
    time: { type: "string" },
    reps: { type: "string", default: "2" },
    rows: { type: "string" },
    cols: { type: "string" },
    "border-colors": { type: "string", default: "3" },
    "center-colors": { type: "string" },
    cubes: { type: "string" },
  },
});

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(" ");
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b), m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** A generated board with its top-left corner fixed by a hint (the planted solution's piece there). */
function board(rows: number, cols: number, border: number, centre: number, seed: number, cornerHint: boolean): Puzzle {
  const g = generatePuzzle({ rows, cols, borderColors: border, centerColors: centre, seed });
  if (!cornerHint) return g.puzzle;
  const c = g.solution.cells[0]!;
  return { ...g.puzzle, name: `${g.puzzle.name}-corner`, hints: [{ row: 0, col: 0, piece: c.piece, rot: c.rot }] };
}

interface Count { count: number; complete: boolean; seconds: number; reason?: string; progress?: number }

function cubist(args: string[]): Count {
  const [cmd, ...pre] = [process.execPath, ...cubistCommand()];
  const t0 = performance.now();
  let text: string;
  try {
    text = execFileSync(cmd, [...pre, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
  } catch (err) {
    // Exit 20 (no solution) and 30 (unknown: --time) still print the JSON.
    text = String((err as { stdout?: string }).stdout ?? "");
    if (!text.trim()) throw err;
  }
  const out = JSON.parse(text) as { count: number; complete: boolean; reason?: string; stats: { progress?: number } };
  return { count: out.count, complete: out.complete, reason: out.reason, progress: out.stats.progress, seconds: (performance.now() - t0) / 1000 };
}

const show = (c: Count): string => `${c.count} (${c.complete ? "complete" : `incomplete: ${c.reason}`}) in ${c.seconds.toFixed(1)} s`;

const dir = mkdtempSync(join(tmpdir(), "cubist-bench-count-cluster-"));
try {
  const mode = positionals[0] ?? "complete";
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  console.log(`bench count-cluster ${mode}, commit ${commit}, load ${load()}`);
  if (mode === "complete") {
    const time = values.time ?? "600";
    for (const seed of values.seeds.split(",").map(Number)) {
      const p = board(Number(values.rows ?? 7), Number(values.cols ?? 7), Number(values["border-colors"]), Number(values["center-colors"] ?? 8), seed, true);
      const file = join(dir, `${p.name}.txt`);
      writeFileSync(file, writeCanonical(p));
      const local = cubist(["solve", file, "--all", "--json", "--threads", "2", "--time", time]);
      console.log(`${p.name}: solve --all --threads 2: ${show(local)}; load ${load()}`);
      const cluster = cubist(["solve", file, "--workers", "2", "--all", "--json", "--time", time, ...(values.cubes ? ["--cubes", values.cubes] : [])]);
      console.log(`${p.name}: solve --workers 2 --all: ${show(cluster)}; load ${load()}`);
      if (local.complete && cluster.complete && local.count !== cluster.count) throw new Error(`${p.name}: counts differ: ${local.count} vs ${cluster.count}`);
    }
  } else if (mode === "scaling") {
    const p = board(Number(values.rows ?? 6), Number(values.cols ?? 6), Number(values["border-colors"]), Number(values["center-colors"] ?? 4), Number(values.seed), false);
    const file = join(dir, `${p.name}.txt`);
    writeFileSync(file, writeCanonical(p));
    const times: Record<string, number[]> = { "1": [], "2": [] };
    const ratios: number[] = [];
    let count = -1;
    for (let rep = 0; rep < Number(values.reps); rep++) {
      for (const w of rep % 2 === 0 ? ["1", "2"] : ["2", "1"]) {
        const c = cubist(["solve", file, "--workers", w, "--all", "--json", ...(values.cubes ? ["--cubes", values.cubes] : [])]);
        if (!c.complete || (count >= 0 && c.count !== count)) throw new Error(`${p.name}: --workers ${w}: ${show(c)}, expected ${count}`);
        count = c.count;
        times[w].push(c.seconds);
        console.log(`${p.name}: --workers ${w}: ${show(c)}; load ${load()}`);
      }
      ratios.push(times["1"][rep] / times["2"][rep]);
    }
    const [m1, m2] = [median(times["1"]), median(times["2"])];
    console.log(`${p.name}: ${count} solutions; median --workers 1 ${m1.toFixed(1)} s, --workers 2 ${m2.toFixed(1)} s, speed-up ${(m1 / m2).toFixed(2)}x (per interleaved pair: ${ratios.map((r) => r.toFixed(2)).join(", ")})`);
  } else if (mode === "frontier") {
    const p = board(Number(values.rows ?? 8), Number(values.cols ?? 8), Number(values["border-colors"]), Number(values["center-colors"] ?? 9), Number(values.seed), true);
    const file = join(dir, `${p.name}.txt`);
    writeFileSync(file, writeCanonical(p));
    const seconds = Number(values.time ?? 1800);
    const { solveOnLocalCluster } = await import("../cli/local-cluster.js");
    const { runRequestFrom } = await import("../cli/run-options.js");
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), seconds * 1000);
    let last: { count: number; progress: number; eta: number; workEta: number; placements: number } | null = null;
    const t0 = performance.now();
    let lastPrint = 0;
    const result = await solveOnLocalCluster({ ...runRequestFrom({ all: true, ...(values.cubes ? { cubes: Number(values.cubes) } : {}) }, writeCanonical(p), file), format: "canonical" }, {
      workers: 2,
      signal: stop.signal,
      onStatus: (s) => {
        last = { count: s.solutionCount ?? 0, progress: s.progress, eta: s.etaSeconds, workEta: s.workEtaSeconds, placements: s.placements };
        const now = performance.now();
        if (now - lastPrint > 60_000) {
          lastPrint = now;
          console.log(`  ${((now - t0) / 1000).toFixed(0)} s: count ${last.count}, covered ${last.progress.toExponential(3)}, ETA ${last.eta.toFixed(0)} s (tree estimate ${last.workEta.toFixed(0)} s), load ${load()}`);
        }
      },
    });
    clearTimeout(timer);
    const l = last as { count: number; progress: number; eta: number; workEta: number; placements: number } | null;
    console.log(`${p.name}: after ${((performance.now() - t0) / 1000).toFixed(0)} s on 2 workers: ${result.state}; count so far ${result.status.solutionCount ?? 0} ` +
      `(complete ${result.status.countComplete === true}), covered weight ${result.status.progress.toExponential(4)}, ` +
      `ETA by covered weight ${l ? l.eta.toFixed(0) : "?"} s, by tree estimate ${l ? l.workEta.toFixed(0) : "?"} s, placements ${result.status.placements}; load ${load()}`);
  } else {
    throw new Error(`unknown mode ${mode} (complete, scaling, frontier)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
