/**
 * Counting every solution of generated side-6 triangle puzzles (issue 12): 3, 4 and 5 labels, seeds 1-3, with a frame
 * (every outer edge label 0) and with free outer edges. Each count is `cubist solve --all --json --threads 2` (the
 * built CLI, the placement search over two worker threads); complete counts up to --sat-max solutions are cross-checked
 * by the SAT path (Kissat with blocking clauses, one call per solution, every model verified). With --workers N each
 * count is also run on the embedded cluster (`cubist solve --workers N --all --json`: cubes of triangle placements, the
 * search in each worker's thread, every board the coordinator gets verified) and compared with the count alone.
 *
 *   node --import tsx bench/count-triangle.ts [--labels 3,4,5] [--seeds 1,2,3] [--time 120] [--sat-max 400] [--free] [--frame L] [--workers N]
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
    frame: { type: "string", default: "0" },
    workers: { type: "string", default: "0" },
  },
});

const dir = mkdtempSync(join(tmpdir(), "cubist-bench-tri-"));
const [cmd, ...pre] = [process.execPath, ...cubistCommand()];
const workers = Number(values.workers);
const clusterHead = workers > 0 ? ` --workers ${workers}: seconds, cubes counted / re-split |` : "";
console.log(`| board | frame | count | complete | seconds | placements/s | SAT path (Kissat + blocking) |${clusterHead}`);
console.log(`|---|---|---|---|---|---|---|${workers > 0 ? "---|" : ""}`);
/** `cubist solve ARGS`: its JSON (exit codes 20 and 30 are answers too). */
function solveJSON(args: string[]): { count: number; complete: boolean; stats: { wallMs: number; placements: number; cubes?: { counted: number; resplit: number } } } {
  let out: string;
  try {
    out = execFileSync(cmd, [...pre, "solve", ...args], { encoding: "utf8" });
  } catch (err) {
    out = String((err as { stdout?: string }).stdout ?? "");
  }
  return JSON.parse(out);
}
try {
  for (const frame of values.free ? [Number(values.frame), null] : [Number(values.frame)]) {
    for (const labels of values.labels!.split(",").map(Number)) {
      for (const seed of values.seeds!.split(",").map(Number)) {
        const { puzzle } = generateTriangle({ side: 6, labels, seed, frame });
        const file = join(dir, `${puzzle.name}.txt`);
        writeFileSync(file, writeTriangle(puzzle));
        const r = solveJSON([file, "--all", "--json", "--threads", "2", "--time", values.time!]);
        const secs = r.stats.wallMs / 1000;
        let sat = "-";
        if (r.complete && r.count <= Number(values["sat-max"])) {
          const t0 = performance.now();
          const s = await countBySat(triangleBlockingProblem(puzzle));
          const agree = s.complete && s.count === r.count ? "agrees" : `DISAGREES (${s.count}, complete ${s.complete})`;
          sat = `${s.count} in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${agree}`;
        }
        let cluster = "";
        if (workers > 0) {
          const c = solveJSON([file, "--workers", String(workers), "--all", "--json", "--time", values.time!]);
          const agree = c.complete === r.complete && c.count === r.count ? "" : ` DISAGREES (${c.count}, complete ${c.complete})`;
          cluster = ` ${(c.stats.wallMs / 1000).toFixed(2)} s, ${c.stats.cubes!.counted} / ${c.stats.cubes!.resplit}${agree} |`;
        }
        console.log(`| ${puzzle.name} | ${frame === null ? "free" : frame} | ${r.count} | ${r.complete} | ${secs.toFixed(2)} | ${(r.stats.placements / secs / 1e6).toFixed(1)} M | ${sat} |${cluster}`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
