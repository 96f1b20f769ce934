/**
 * The proof-producing placement search (engine/prove.c, `cubist-prove`) for certified cubes: it refutes a cube of a
 * cubist-placement run and writes the refutation as a proof the coordinator checks against the cube's formula
 * (docs/operations.md "Certificates"): binary DRAT for drat-trim; given the cube's formula file (`cnfPath`, a
 * worker's `--proof-format lrat`) it propagates on that formula and writes text LRAT, every lemma naming the clauses
 * it follows from, for lrat-check (engine/prove-lrat.c). Its input is the encoder's own placement table
 * (core/encode/placement-table.ts) plus the cube's and the hints' true literals, so its lemmas speak of the
 * formula's variables. The process lifecycle is host/child.ts's: its own process group, stdin written,
 * SIGTERM to the group on a stop and SIGKILL after a grace period; it settles after the exit and all output.
 *
 * Exit codes: 20 refuted (the proof is complete), 10 a board (its placement literals on the `v` line), 0 unknown
 * (a limit or a stop), 1 bad input or I/O error, 2 usage.
 */

import { accessSync, constants } from "node:fs";
import { dirname, join } from "node:path";
import type { PlacementTable } from "../../core/encode/placement-table.js";
import { runChild, TailBuffer } from "../../host/child.js";
import { EngineCrashedError, EngineNotFoundError, locateEngine, throwIfNotRun } from "./runner.js";

export type ProverOutcome =
  | { kind: "unsat"; stats: ProverStats }
  /** `lits`: the placement variables of a board (decode them with the formula's VarMap). */
  | { kind: "sat"; lits: number[]; stats: ProverStats }
  | { kind: "unknown"; reason: "limit" | "aborted"; stats: ProverStats };

export interface ProverStats {
  nodes: number;
  lemmas: number;
  seconds: number;
  wallMs: number;
}

export interface ProverOptions {
  /** Where the proof goes: text LRAT with `cnfPath`, else binary DRAT. */
  proofPath: string;
  /**
   * The cube's formula exactly as the checker reads it (the run's base formula + the cube's units, certify/cnf.ts):
   * the prover propagates on it and writes LRAT whose hints are its clause numbers.
   */
  cnfPath?: string;
  /** The formula has the encoding's support clauses: the search propagates through them too (PlacementTable.support). */
  support?: boolean;
  timeLimitMs?: number;
  signal?: AbortSignal;
  /** @default CUBIST_PROVER, else cubist-prove beside the placement engine */
  binary?: string;
  /** @default 1000 */
  killGraceMs?: number;
}

/** The prover's path: CUBIST_PROVER, else `cubist-prove` in the directory of the placement engine `enginePath`. */
function proverPath(enginePath: string, env: NodeJS.ProcessEnv): string {
  return env.CUBIST_PROVER || join(dirname(enginePath), "cubist-prove");
}

const found = new Map<string, string | null>();

/**
 * The prover beside the engine `enginePath` (or CUBIST_PROVER) when it is an executable file, else null: a worker's
 * certified cubes then use the SAT solver. Looked up once per path.
 */
export function proverBinary(enginePath: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const file = proverPath(enginePath, env);
  let hit = found.get(file);
  if (hit === undefined) {
    try {
      accessSync(file, constants.X_OK);
      hit = file;
    } catch {
      hit = null;
    }
    found.set(file, hit);
  }
  return hit;
}

/** The prover executable beside the located engine (proverBinary); throws EngineNotFoundError when there is none. */
export function locateProver(env: NodeJS.ProcessEnv = process.env): string {
  const enginePath = locateEngine(env);
  const file = proverBinary(enginePath, env);
  if (file === null) throw new EngineNotFoundError(proverPath(enginePath, env), env.CUBIST_PROVER ? "CUBIST_PROVER names no executable file" : "not built");
  return file;
}

/** The table's part of the prover's input, made once per table (a worker sends the same one with every cube). */
const tableTexts = new WeakMap<PlacementTable, string>();

function tableText(table: PlacementTable): string {
  let text = tableTexts.get(table);
  if (text === undefined) {
    const out: string[] = ["cubist-prove 1", `${table.rows} ${table.cols} ${table.copies.length} ${table.cell.length}`, table.copies.join(" ")];
    const { cell, unit, lit, side } = table;
    for (let i = 0; i < cell.length; i++) out.push(`${cell[i]} ${unit[i]} ${lit[i]} ${side[4 * i]} ${side[4 * i + 1]} ${side[4 * i + 2]} ${side[4 * i + 3]}`);
    text = out.join("\n");
    tableTexts.set(table, text);
  }
  return text;
}

/** The prover's input: the placement table and the literals that are true (the cube's units, the hints'). */
export function proverProblem(table: PlacementTable, trueLits: Iterable<number>): string {
  const lits = [...trueLits];
  return [tableText(table), String(lits.length), ...lits.map(String), ""].join("\n");
}

const EMPTY: ProverStats = { nodes: 0, lemmas: 0, seconds: 0, wallMs: 0 };

/**
 * Runs the prover on `problem` (proverProblem's text).
 * @throws EngineNotFoundError, EngineCrashedError (bad exit, bad input, output that contradicts the exit code)
 */
export function runProver(problem: string, options: ProverOptions): Promise<ProverOutcome> {
  const binary = options.binary ?? locateProver();
  if (options.signal?.aborted) return Promise.resolve({ kind: "unknown", reason: "aborted", stats: EMPTY });
  const started = performance.now();
  const args = options.cnfPath ? ["--cnf", options.cnfPath, "--lrat", options.proofPath] : ["--proof", options.proofPath];
  if (options.support && !options.cnfPath) args.push("--support");
  if (options.timeLimitMs) args.push("--time-ms", String(Math.max(1, Math.ceil(options.timeLimitMs))));
  const stdout = new TailBuffer(1 << 20);
  return runChild(binary, args, { input: problem, onStdout: (chunk) => stdout.push(chunk), signal: options.signal, killGraceMs: options.killGraceMs })
    .then((run): ProverOutcome => {
      throwIfNotRun(run, binary);
      const { code, signal: sig } = run;
      const stopped = run.stoppedBy !== null;
      const tail = run.stderr.trim();
      const text = stdout.text();
      const stat = (name: string): number => Number(new RegExp(`^c ${name} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
      const stats: ProverStats = { nodes: stat("nodes"), lemmas: stat("lemmas"), seconds: stat("seconds"), wallMs: Math.round(performance.now() - started) };
      const status = /^s (\S+)$/m.exec(text)?.[1];
      if (sig !== null) {
        if (stopped) return { kind: "unknown", reason: "aborted", stats };
        throw new EngineCrashedError(`prover killed by ${sig}${tail ? `: ${tail}` : ""}`);
      }
      if (code === 20 && status === "UNSATISFIABLE") return { kind: "unsat", stats };
      if (code === 10 && status === "SATISFIABLE") {
        const v = /^v((?: -?\d+)+)$/m.exec(text);
        if (v) return { kind: "sat", lits: v[1].trim().split(" ").map(Number), stats };
      }
      if (code === 0 && status === "UNKNOWN") return { kind: "unknown", reason: stopped ? "aborted" : "limit", stats };
      throw new EngineCrashedError(`prover exit ${code} with status '${status ?? "none"}'${tail ? `: ${tail}` : ""}`);
    });
}
