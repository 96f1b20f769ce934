/**
 * Enumeration throughput (issue 12: at least 100x the obvious peer on a board with >= 1,000 solutions): boards per
 * second of `cubist solve --all -o FILE --threads 1` (the native engine, every board verified and written) against
 * Kissat with blocking clauses on the placement variables (one call per solution, every model verified), on one core
 * each. Kissat's rate is measured over its first --kissat-limit solutions (its calls only grow with more blocking
 * clauses, so this favours it).
 *
 *   node --import tsx bench/count-throughput.ts [--rows 5 --cols 5 --border-colors 2 --center-colors 3 --seed 1] [--kissat-limit 1000]
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { generatePuzzle } from "../core/generate.js";
import { writeCanonical } from "../core/formats/index.js";
import { countBySat, squareBlockingProblem } from "../cli/count-sat.js";
import { cubistCommand } from "../test/helpers/processes.js";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "5" },
    cols: { type: "string", default: "5" },
    "border-colors": { type: "string", default: "2" },
    "center-colors": { type: "string", default: "3" },
    seed: { type: "string", default: "1" },
    "kissat-limit": { type: "string", default: "1000" },
  },
});

const { puzzle } = generatePuzzle({
  rows: Number(values.rows), cols: Number(values.cols), borderColors: Number(values["border-colors"]),
  centerColors: Number(values["center-colors"]), seed: Number(values.seed),
});
const dir = mkdtempSync(join(tmpdir(), "cubist-bench-thr-"));
try {
  const file = join(dir, "p.txt"), boards = join(dir, "boards.ndjson");
  writeFileSync(file, writeCanonical(puzzle));
  const [cmd, ...pre] = [process.execPath, ...cubistCommand()];
  const t0 = performance.now();
  const out = JSON.parse(execFileSync(cmd, [...pre, "solve", file, "--all", "--json", "--threads", "1", "-o", boards], { encoding: "utf8" })) as { count: number; complete: boolean };
  const engineSecs = (performance.now() - t0) / 1000;
  const written = readFileSync(boards, "utf8").trim().split("\n").length;
  const t1 = performance.now();
  const sat = await countBySat(squareBlockingProblem(puzzle), { limit: Number(values["kissat-limit"]) });
  const satSecs = (performance.now() - t1) / 1000;
  const engineRate = out.count / engineSecs, satRate = sat.count / satSecs;
  console.log(`board ${puzzle.name}: ${out.count} solutions (complete ${out.complete}), ${written} boards written`);
  console.log(`engine (solve --all -o, 1 thread, process start included): ${engineSecs.toFixed(2)} s, ${engineRate.toFixed(0)} boards/s`);
  console.log(`Kissat + blocking clauses: ${sat.count} boards in ${satSecs.toFixed(1)} s (${sat.calls} calls), ${satRate.toFixed(1)} boards/s`);
  console.log(`ratio: ${(engineRate / satRate).toFixed(0)}x`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
