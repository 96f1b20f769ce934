/**
 * Counting every solution of generated side-6 triangle puzzles (issue 12): 3, 4 and 5 labels, seeds 1-3, with a frame
 * (every outer edge label 0) and with free outer edges. Each count is `cubist solve --all --json --threads 2` (the
 * built CLI, the placement search over two worker threads); complete counts up to --sat-max solutions are cross-checked
 * by the SAT path (Kissat with blocking clauses, one call per solution, every model verified).
 *
 *   node --import tsx bench/count-triangle.ts [--labels 3,4,5] [--seeds 1,2,3] [--time 120] [--sat-max 400] [--free]
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generateTriangle } from "../core/triangle/generate.js";
import { writeTriangle } from "../core/triangle/format.js";
import { countBySat, triangleBlockingProblem } from "../cli/count-sat.js";
import { cubistCommand } from "../test/helpers/processes.js";

const { values } = parseArgs({
  options: {
    labels: { type: "string", default: "3,4,5" },
    seeds: { type: "string", default: "1,2,3" },
    time: { type: "string", default: "120" },
    "sat-max": { type: "string", default: "400" },
    free: { type: "boolean", default: false },
  },
});

const dir = mkdtempSync(join(tmpdir(), "cubist-bench-tri-"));
const [cmd, ...pre] = [process.execPath, ...cubistCommand()];
console.log("| board | frame | count | complete | seconds | placements/s | SAT path (Kissat + blocking) |");
console.log("|---|---|---|---|---|---|---|");
try {
  for (const frame of values.free ? [0, null] : [0]) {
    for (const labels of values.labels!.split(",").map(Number)) {
      for (const seed of values.seeds!.split(",").map(Number)) {
        const { puzzle } = generateTriangle({ side: 6, labels, seed, frame });
        const file = join(dir, `${puzzle.name}.txt`);
        writeFileSync(file, writeTriangle(puzzle));
        let out: string;
        try {
          out = execFileSync(cmd, [...pre, "solve", file, "--all", "--json", "--threads", "2", "--time", values.time!], { encoding: "utf8" });
        } catch (err) {
          out = String((err as { stdout?: string }).stdout ?? ""); // exit 20 / 30 are answers
        }
        const r = JSON.parse(out) as { count: number; complete: boolean; stats: { wallMs: number; placements: number } };
        const secs = r.stats.wallMs / 1000;
        let sat = "-";
        if (r.complete && r.count <= Number(values["sat-max"])) {
          const t0 = performance.now();
          const s = await countBySat(triangleBlockingProblem(puzzle));
          const agree = s.complete && s.count === r.count ? "agrees" : `DISAGREES (${s.count}, complete ${s.complete})`;
          sat = `${s.count} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${agree}`;
        }
        console.log(`| ${puzzle.name} | ${frame === null ? "free" : frame} | ${r.count} | ${r.complete} | ${secs.toFixed(2)} | ${(r.stats.placements / secs / 1e6).toFixed(1)} M | ${sat} |`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
