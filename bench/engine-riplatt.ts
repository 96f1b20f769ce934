/**
 * The engine's inner loop against riplatt/e2-puzzle-cpp-solver (C++23, a diagonal "wavefront" fill; not part of this
 * project), side by side on the same boards: placements per CPU second and, with --callgrind, instructions per
 * placement (valgrind's count, repeatable under any load).
 *
 *   node --import tsx bench/engine-riplatt.ts --riplatt DIR [--boards FILE,...] [--repeats 3] [--first]
 *        [--callgrind] [--order row] [--engine dist/engine/cubist-engine] [--callgrind-engine BIN]
 *
 * --riplatt DIR   a checkout of riplatt/e2-puzzle-cpp-solver built as its README says (`mkdir build && cd build &&
 *                 cmake .. && make`: -O3 -march=native -flto); the program is DIR/build/solver.
 * --boards        square boards in its format (`rows cols`, then `N E S W` per piece, 0 = grey; Brendan's square
 *                 files read the same); default its own data/e2pieces_hard_6x6.txt, which is Brendan's 6x6 (its
 *                 hard_7x7 is Brendan's 7x7 too).
 *
 * Both programs search each board completely, counting every solution (`solver FILE`; `cubist-engine --order row
 * --count`, no seed, no symmetry breaking: neither program breaks symmetry; both find the 260 boards of the 6x6),
 * or with --first to their first solution (`solver FILE -f`), interleaved per board and repeat so that the load hits
 * them alike. Both count a placement the same way: one piece put on a cell (riplatt's "Placements tried" is
 * incremented per candidate that passes its used-piece test and is placed; the engine's `c nodes` per placement
 * made, including those its look-ahead then backs out of at once). The two search orders differ (row scan against a
 * diagonal wavefront), so the trees differ: what is compared is the rate, placements over the process's CPU time
 * (user + system, from /usr/bin/time: the machine's load steals wall time, not CPU time), and the median of the
 * per-board ratios is the figure. With --callgrind each runs once more under `valgrind --tool=callgrind`, to its
 * first solution, and the instructions of the whole process are divided by its placements (the engine's start-up,
 * measured with `--nodes 1`, is taken off; riplatt's cannot be and is in its figure). Valgrind 3.19 cannot decode
 * AVX-512, so on such a CPU callgrind needs builds for AVX2: DIR/build-v3/solver (`g++ -std=c++23 -O3
 * -march=x86-64-v3 -flto -DNDEBUG -static -pthread src/solver.cpp -o build-v3/solver`) and --callgrind-engine
 * (`make -C engine OUT=/tmp/engine-v3 CFLAGS_ARCH=-march=x86-64-v3`).
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { median } from "./lib/summary.js";

const { values } = parseArgs({
  options: {
    riplatt: { type: "string" },
    boards: { type: "string" },
    repeats: { type: "string", default: "3" },
    callgrind: { type: "boolean", default: false },
    order: { type: "string", default: "row" },
    first: { type: "boolean", default: false },
    "callgrind-engine": { type: "string" },
    engine: { type: "string", default: "dist/engine/cubist-engine" },
  },
});
if (!values.riplatt) {
  process.stderr.write("engine-riplatt: give --riplatt DIR, a built checkout of riplatt/e2-puzzle-cpp-solver\n");
  process.exit(2);
}
const solver = join(values.riplatt, "build", "solver");
const boards = values.boards?.split(",") ?? [join(values.riplatt, "data/e2pieces_hard_6x6.txt")];
const mode = values.first ? { riplatt: ["-f"], engine: [] } : { riplatt: [], engine: ["--count"] };
const tmp = mkdtempSync(join(tmpdir(), "cubist-riplatt-"));
process.on("exit", () => rmSync(tmp, { recursive: true, force: true }));

/** The engine's input for a file of `rows cols` and `N E S W` lines. */
function engineInput(file: string): string {
  const lines = readFileSync(file, "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const [rows, cols] = lines[0].split(/\s+/);
  if (rows !== cols) throw new Error(`${file}: ${rows}x${cols} is not square (riplatt's file and Brendan's differ in the order of the sides)`);
  return `cubist-engine 1\n${rows} ${cols}\n${lines.slice(1).join("\n")}\n0\n`;
}

interface Run { placements: number; cpu: number }

/** Runs `cmd args` under /usr/bin/time; the placements are read from its output with `pattern`. */
function timed(cmd: string, args: string[], input: string | undefined, pattern: RegExp): Run {
  const timeFile = join(tmp, "time");
  const r = spawnSync("/usr/bin/time", ["-o", timeFile, "-f", "%U %S", cmd, ...args], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  const m = pattern.exec(r.stdout);
  if (!m) throw new Error(`${cmd} printed no placement count (exit ${r.status}): ${r.stdout.slice(-300)} ${r.stderr.slice(-300)}`);
  const [user, sys] = readFileSync(timeFile, "utf8").trim().split("\n").pop()!.split(" ").map(Number);
  return { placements: Number(m[1]), cpu: user + sys };
}

const RIPLATT = /Placements tried: (\d+)/;
const ENGINE = /^c nodes (\d+)/m;

/** Instructions and placements under callgrind. */
function callgrind(cmd: string, args: string[], input: string | undefined, pattern: RegExp): { ir: number; placements: number } {
  const out = join(tmp, "cg.out");
  const r = spawnSync("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, cmd, ...args], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  const placements = Number(pattern.exec(r.stdout)?.[1]);
  const total = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, "utf8"))?.[1];
  rmSync(out, { force: true });
  if (!total || !placements) throw new Error(`callgrind of ${cmd} gave no count (an instruction valgrind cannot decode? see --help): ${r.stderr.slice(-400)}`);
  return { ir: Number(total), placements };
}

process.stdout.write(`1-min load at start ${loadavg()[0].toFixed(2)}; engine ${values.engine} --order ${values.order}; ${solver}${values.first ? " -f" : " (every solution)"}\n`);
const ratios: number[] = [];
for (const file of boards) {
  const input = engineInput(file);
  const name = basename(file);
  const rates = { riplatt: [] as number[], engine: [] as number[] };
  let placements = { riplatt: 0, engine: 0 };
  for (let i = 0; i < Number(values.repeats); i++) {
    const a = timed(solver, [file, ...mode.riplatt], undefined, RIPLATT);
    const b = timed(values.engine!, ["--order", values.order!, ...mode.engine], input, ENGINE);
    rates.riplatt.push(a.placements / a.cpu / 1e6);
    rates.engine.push(b.placements / b.cpu / 1e6);
    placements = { riplatt: a.placements, engine: b.placements };
  }
  const ratio = median(rates.engine) / median(rates.riplatt);
  ratios.push(ratio);
  process.stdout.write(`${name}: riplatt ${(placements.riplatt / 1e6).toFixed(1)} M placements, median ${median(rates.riplatt).toFixed(1)} M/s CPU ` +
    `[${rates.riplatt.map((r) => r.toFixed(1)).join(" ")}]; engine ${(placements.engine / 1e6).toFixed(1)} M placements, median ` +
    `${median(rates.engine).toFixed(1)} M/s CPU [${rates.engine.map((r) => r.toFixed(1)).join(" ")}]; engine / riplatt ${ratio.toFixed(2)}x\n`);
  if (values.callgrind) {
    const cgSolver = join(values.riplatt, "build-v3", "solver");
    const cgEngine = values["callgrind-engine"] ?? values.engine!;
    const a = callgrind(cgSolver, [file, "-f"], undefined, RIPLATT);
    const b = callgrind(cgEngine, ["--order", values.order!], input, ENGINE);
    const start = callgrind(cgEngine, ["--order", values.order!, "--nodes", "1"], input, ENGINE);
    const perA = a.ir / a.placements, perB = (b.ir - start.ir) / b.placements;
    process.stdout.write(`${name}: instructions per placement to the first solution (callgrind): riplatt ${perA.toFixed(1)} ` +
      `(${(a.placements / 1e6).toFixed(2)} M placements), engine ${perB.toFixed(1)} (${(b.placements / 1e6).toFixed(2)} M); riplatt / engine ${(perA / perB).toFixed(2)}x\n`);
  }
}
process.stdout.write(`median engine / riplatt rate over ${ratios.length} boards: ${median(ratios).toFixed(2)}x (target 1.5x); 1-min load at end ${loadavg()[0].toFixed(2)}\n`);
