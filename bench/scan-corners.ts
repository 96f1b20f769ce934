/**
 * Placements to the first board from the two starting corners (issue 24): for each of Brendan's boards, shuffled
 * with `cubist puzzle shuffle --seed S` (core/generate.ts shufflePuzzle, the same shuffle), the engine's short-side
 * scan with the symmetry break (`cubist-engine --order short --symmetry`), its mirror (`--mirror`, the scan from the
 * top-right corner) and the two in turns on one core (`--alternate N`), each to its first board or the node cap;
 * with --probes, Knuth's estimate of each scan's whole tree first (does it say which start is better?). Placements
 * are the engine's own count, so the figures do not depend on the machine's load; the seconds do. Every board the
 * engine prints is checked by core/verify.ts.
 *
 *   node --import tsx bench/scan-corners.ts [--boards 11x5,9x7] [--seeds 1,2,3] [--nodes 2000000000]
 *        [--turn 4194304] [--probes 20000] [--scans short,mirror,alternate] (--scans "": the estimates alone)
 *
 * The scans c1, c1m, c2, c2m, c3, c3m pin another corner piece (`--corner K`, with the mirror for m): another starting
 * corner of the solution, another tree (`--scans short,mirror,c1,c1m,c2,c2m,c3,c3m`: all eight).
 */

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { readBrendan } from "../core/formats/index.js";
import { shufflePuzzle } from "../core/generate.js";
import { boardFromPlacements, type Placement } from "../core/puzzle.js";
import { verifySolution } from "../core/verify.js";
import { engineProblem, locateEngine } from "../worker/engine/index.js";

const { values } = parseArgs({
  options: {
    boards: { type: "string", default: "11x5,10x6,9x7,13x5,12x5" },
    seeds: { type: "string", default: "1,2,3" },
    nodes: { type: "string", default: "2000000000" },
    turn: { type: "string", default: "4194304" },
    probes: { type: "string", default: "0" },
    scans: { type: "string", default: "short,mirror,alternate" },
  },
});

const engine = locateEngine();
const ALL: Record<string, string[]> = { short: [], mirror: ["--mirror"], alternate: ["--alternate", values.turn!] };
for (const k of [1, 2, 3]) {
  ALL[`c${k}`] = ["--corner", String(k)];
  ALL[`c${k}m`] = ["--corner", String(k), "--mirror"];
}
const SCANS = values.scans!.split(",").filter(Boolean).map((name): [string, string[]] => {
  if (!(name in ALL)) throw new Error(`--scans: unknown scan '${name}' (known: ${Object.keys(ALL).join(", ")})`);
  return [name, ALL[name]];
});

interface Scan {
  text: string;
  nodes: number;
}

/** One engine run; the board it prints is verified. `text`: placements (M), "> cap" when it stopped, + seconds. */
function run(puzzle: ReturnType<typeof shufflePuzzle>["puzzle"], input: string, args: string[]): Scan {
  let out: string;
  try {
    out = execFileSync(engine, ["--order", "short", "--symmetry", "--nodes", values.nodes!, ...args], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  } catch (err) {
    const e = err as { status?: number; stdout?: string };
    if (e.status !== 10 && e.status !== 20) throw err; // 10 (a board) and 20 (none) are answers, not failures
    out = e.stdout ?? "";
  }
  const nodes = Number(/^c nodes (\d+)/m.exec(out)?.[1]);
  const seconds = Number(/^c seconds (\S+)/m.exec(out)?.[1]);
  const v = /^v (.*)$/m.exec(out);
  if (!v) return { text: `> ${(nodes / 1e6).toFixed(0)} M`, nodes: Infinity };
  const nums = v[1].trim().split(/\s+/).map(Number);
  const placements: Placement[] = [];
  for (let i = 0; i < nums.length; i += 3) placements.push({ cell: nums[i], piece: nums[i + 1], rot: nums[i + 2] });
  const check = verifySolution(puzzle, boardFromPlacements(puzzle, placements));
  if (!check.ok) throw new Error(`${puzzle.name} ${args.join(" ")}: the engine's board does not verify: ${JSON.stringify(check)}`);
  return { text: `${(nodes / 1e6).toFixed(1)} M (${seconds.toFixed(2)} s)`, nodes };
}

function estimate(input: string, args: string[]): string {
  const out = execFileSync(engine, ["--order", "short", "--symmetry", "--nodes", "1", "--estimate", values.probes!, ...args], { input, encoding: "utf8" });
  return Number(/^c estimate nodes=(\S+)/m.exec(out)?.[1]).toExponential(2);
}

const probes = Number(values.probes);
process.stdout.write(`placements to the first board (cap ${values.nodes}), turns of ${values.turn}${probes ? `; Knuth's estimate of each tree from ${probes} probes` : ""}\n`);
process.stdout.write(`| board | seed | ${SCANS.map(([n]) => n).join(" | ")} | alternate / best |${probes ? " estimate short | estimate mirror |" : ""}\n`);
process.stdout.write(`|---|---|${SCANS.map(() => "---|").join("")}---|${probes ? "---|---|" : ""}\n`);
for (const board of values.boards!.split(",")) {
  const [c, r] = board.split("x");
  const file = `bench/puzzles/brendan/pieces_${c.padStart(2, "0")}x${r.padStart(2, "0")}.txt`;
  const base = readBrendan(readFileSync(file, "utf8"), file);
  for (const seed of values.seeds!.split(",").map(Number)) {
    const { puzzle } = shufflePuzzle(base, seed);
    const input = engineProblem(puzzle, [])!;
    const scans = new Map(SCANS.map(([name, args]) => [name, run(puzzle, input, args)]));
    const best = Math.min(scans.get("short")?.nodes ?? Infinity, scans.get("mirror")?.nodes ?? Infinity);
    const alt = scans.get("alternate")?.nodes ?? Infinity;
    const ratio = Number.isFinite(alt) && Number.isFinite(best) ? (alt / best).toFixed(2) : "-";
    const est = probes ? ` ${estimate(input, [])} | ${estimate(input, ["--mirror"])} |` : "";
    process.stdout.write(`| ${board} | ${seed} | ${[...scans.values()].map((s) => s.text).join(" | ")} | ${ratio} |${est}\n`);
  }
}
