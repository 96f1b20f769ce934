/**
 * The named formulas of bench/cnf-cluster.ts beside its random 3-SAT: Sudoku boards and edge-matching puzzles as
 * CNF. Each instance is what the cluster is sent (a run request's text and format) and the formula Kissat alone gets,
 * the same one the coordinator builds from that text:
 * - sudoku: the hard 9x9 puzzles of bench/puzzles/sudoku9-hard.txt (one-line form), and seeded 16x16 and 25x25
 *   boards with few givens (core/sudoku/generate.ts), sent as format "sudoku" (the coordinator encodes them with
 *   core/sudoku/encode.ts, no redundant clauses) and encoded the same way here for Kissat alone;
 * - edge: bench/puzzles' edge-matching boards, shuffled with a recorded seed (`cubist puzzle shuffle --seed S`) and
 *   encoded by `cubist encode` (the default encoding), sent as format "dimacs".
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import type { Cnf } from "../../core/cnf/cnf.js";
import { readDimacs } from "../../core/cnf/read-dimacs.js";
import { encodeSudoku } from "../../core/sudoku/encode.js";
import { parseSudoku, writeSudoku } from "../../core/sudoku/format.js";
import { generateSudoku } from "../../core/sudoku/generate.js";
import { givenCount, type Sudoku } from "../../core/sudoku/sudoku.js";
import { runCubist } from "../../test/helpers/processes.js";

/** A formula as the benchmark runs it. */
export interface CnfInstance {
  readonly suite: "sudoku" | "edge";
  readonly name: string;
  /** The run's puzzle text and format (the coordinator builds `cnf` from them). */
  readonly text: string;
  readonly format: "sudoku" | "dimacs";
  readonly cnf: Cnf;
  /** A Sudoku's givens. */
  readonly givens?: number;
}

const HARD9 = fileURLToPath(new URL("../puzzles/sudoku9-hard.txt", import.meta.url));
const PUZZLES = fileURLToPath(new URL("../puzzles/", import.meta.url));

function sudokuInstance(s: Sudoku, name: string): CnfInstance {
  const named = { ...s, name };
  return { suite: "sudoku", name, text: writeSudoku(named), format: "sudoku", cnf: encodeSudoku(named), givens: givenCount(s) };
}

/**
 * Sudoku instances by name: `hard9-K` (line K of sudoku9-hard.txt), `random-16x16-gG-sS` or `random-25x25-gG-sS`
 * (generateSudoku with G givens and seed S).
 */
export function sudokuByName(name: string): CnfInstance {
  const hard = /^hard9-(\d+)$/.exec(name);
  if (hard) {
    const lines = readFileSync(HARD9, "utf8").split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    const k = Number(hard[1]);
    if (!(k >= 1 && k <= lines.length)) throw new Error(`${name}: sudoku9-hard.txt has ${lines.length} puzzles`);
    return sudokuInstance(parseSudoku(lines[k - 1], `${HARD9}:${k}`), name);
  }
  const random = /^random-(16x16|25x25)-g(\d+)-s(\d+)$/.exec(name);
  if (random) return sudokuInstance(generateSudoku(random[1] === "16x16" ? 4 : 5, Number(random[2]), Number(random[3])), name);
  throw new Error(`unknown Sudoku instance ${name} (hard9-K, random-16x16-gG-sS, random-25x25-gG-sS)`);
}

/** An edge-matching instance `BOARD-sS`: bench/puzzles/BOARD.txt shuffled with seed S, encoded by `cubist encode`. */
export async function edgeByName(name: string, dir: string): Promise<CnfInstance> {
  const m = /^(.+)-s(\d+)$/.exec(name);
  if (!m) throw new Error(`edge instance ${name}: BOARD-sSEED, e.g. unsat-hard-s1`);
  const shuffled = `${dir}/${name}.txt`, cnfFile = `${dir}/${name}.cnf`;
  const sh = await runCubist(["puzzle", "shuffle", `${PUZZLES}${m[1]}.txt`, "--seed", m[2], "-o", shuffled]);
  if (sh.code !== 0) throw new Error(`cubist puzzle shuffle: ${sh.stderr}`);
  const enc = await runCubist(["encode", shuffled, "-o", cnfFile]);
  if (enc.code !== 0) throw new Error(`cubist encode: ${enc.stderr}`);
  const bytes = readFileSync(cnfFile);
  return { suite: "edge", name, text: bytes.toString("utf8"), format: "dimacs", cnf: readDimacs(bytes, cnfFile) };
}
