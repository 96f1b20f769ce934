/**
 * One benchmark run of the encoding benchmark: a paper instance, shuffled with a recorded seed, encoded with
 * one encoding (and options), written to a temporary DIMACS file and solved by one solver with a time limit.
 * A SAT answer is decoded and checked with core/verify.ts; a model that does not verify is an error.
 */

import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

import { dimacsChunks, encode, isEncodingName, type EncodeOptions } from "../../core/encode/index.js";
import { parsePuzzle } from "../../core/formats/index.js";
import { shufflePuzzle } from "../../core/generate.js";
import type { Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { runSolver, type SolverName } from "../../host/solver/index.js";

/** The twelve instances of Heule 2008 (Table 1 order) and their fixture files. */
export const PAPER_INSTANCES: ReadonlyArray<{ readonly name: string; readonly file: string }> = [
  { name: "clue1", file: "clues/heule_clue1.txt" },
  { name: "clue2", file: "clues/heule_clue2.txt" },
  { name: "clue3", file: "clues/heule_clue3.txt" },
  { name: "clue4", file: "clues/heule_clue4.txt" },
  { name: "em-7-3-6", file: "heule2008/em_7_3_6.txt" },
  { name: "em-7-4-8", file: "heule2008/em_7_4_8.txt" },
  { name: "em-7-4-9", file: "heule2008/em_7_4_9.txt" },
  { name: "em-8-4-5", file: "heule2008/em_8_4_5.txt" },
  { name: "em-9-3-5", file: "heule2008/em_9_3_5.txt" },
  { name: "em-11-3-4", file: "heule2008/em_11_3_4.txt" },
  { name: "em-12-2-4", file: "heule2008/em_12_2_4.txt" },
  { name: "em-14-7-3", file: "heule2008/em_14_7_3.txt" },
];

const FIXTURES = fileURLToPath(new URL("../../test/fixtures/", import.meta.url));

/** The instance shuffled with `seed` (pieces listed in a random order, each randomly turned). */
export function shuffledInstance(name: string, seed: number): Puzzle {
  const entry = PAPER_INSTANCES.find((i) => i.name === name);
  if (!entry) throw new Error(`unknown instance '${name}' (known: ${PAPER_INSTANCES.map((i) => i.name).join(", ")})`);
  const puzzle = parsePuzzle(readFileSync(join(FIXTURES, entry.file), "utf8"), entry.file);
  return shufflePuzzle(puzzle, seed).puzzle;
}

/** "name+key=value+..." to an encoding name and options ("true" / "false" become booleans). */
export function parseLabel(label: string): { encoding: string; options: EncodeOptions } {
  const [encoding, ...parts] = label.split("+");
  if (!isEncodingName(encoding)) throw new Error(`unknown encoding '${encoding}' in '${label}'`);
  const options: Record<string, string | boolean> = {};
  for (const part of parts) {
    const [key, value] = part.split("=");
    if (!key || value === undefined) throw new Error(`option '${part}' in '${label}' is not key=value`);
    options[key] = value === "true" ? true : value === "false" ? false : value;
  }
  return { encoding, options: options as EncodeOptions };
}

/** What to run. */
export interface RunSpec {
  readonly instance: string;
  readonly seed: number;
  /** Encoding name, optionally with options (the label names the combination in the results). */
  readonly encoding: string;
  readonly options?: EncodeOptions;
  readonly label?: string;
  readonly solver: SolverName;
  readonly limitSec: number;
}

/** One line of the results file. */
export interface RunRecord {
  readonly instance: string;
  readonly seed: number;
  readonly encoding: string;
  readonly label: string;
  readonly options: EncodeOptions;
  readonly solver: SolverName;
  readonly limitSec: number;
  readonly verdict: "sat" | "unsat" | "unknown";
  /** Solver wall time (spawn to exit), seconds. */
  readonly wallSec: number;
  readonly solverSec?: number;
  readonly conflicts?: number;
  readonly decisions?: number;
  readonly vars: number;
  readonly clauses: number;
  readonly encodeSec: number;
  readonly cnfBytes: number;
  /** Load average (1 min) when the run started: other work on the machine. */
  readonly load1: number;
  readonly at: string;
}

/** Encodes, solves, verifies; never throws for a time-out (verdict "unknown"). */
export async function runOne(spec: RunSpec, load1: number): Promise<RunRecord> {
  const puzzle = shuffledInstance(spec.instance, spec.seed);
  const options = spec.options ?? {};
  const t0 = performance.now();
  const formula = encode(spec.encoding, puzzle, options);
  const dir = mkdtempSync(join(tmpdir(), "cubist-bench-"));
  try {
    const file = join(dir, "f.cnf");
    writeFileSync(file, Buffer.concat([...dimacsChunks(formula)]));
    const encodeSec = (performance.now() - t0) / 1000;
    const cnfBytes = statSync(file).size;
    const out = await runSolver(file, formula.numVars, { solver: spec.solver, timeLimitSec: spec.limitSec });
    if (out.kind === "sat") {
      const board = formula.varMap.decode((v) => out.model[v] === 1);
      const verdict = verifySolution(puzzle, board);
      if (!verdict.ok) throw new Error(`${spec.instance} s${spec.seed} ${spec.label ?? spec.encoding}: model is not a solution: ${verdict.violations[0].message}`);
    }
    return {
      instance: spec.instance,
      seed: spec.seed,
      encoding: spec.encoding,
      label: spec.label ?? spec.encoding,
      options,
      solver: spec.solver,
      limitSec: spec.limitSec,
      verdict: out.kind,
      wallSec: Math.round(out.stats.wallMs) / 1000,
      ...(out.stats.solverSeconds !== undefined ? { solverSec: out.stats.solverSeconds } : {}),
      ...(out.stats.conflicts !== undefined ? { conflicts: out.stats.conflicts } : {}),
      ...(out.stats.decisions !== undefined ? { decisions: out.stats.decisions } : {}),
      vars: formula.numVars,
      clauses: formula.clauses.count,
      encodeSec: Math.round(encodeSec * 1000) / 1000,
      cnfBytes,
      load1,
      at: new Date().toISOString(),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
