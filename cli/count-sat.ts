/**
 * The SAT path of counting: Kissat with blocking clauses, one call per solution (the obvious peer of the engines'
 * counting, and their cross-check). Each model is decoded and verified by the independent verifier before it
 * counts; then its placement variables are blocked (models and boards correspond one to one on them: identical
 * pieces are one unit and a symmetric piece's equal orientations one placement), and the solver runs again until
 * it answers UNSAT. The count is exact only then.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arrayValue } from "../core/accept.js";
import { encode, type ClauseBuffer } from "../core/encode/index.js";
import { EncoderBugError } from "../core/errors.js";
import type { Board, Puzzle } from "../core/puzzle.js";
import { verifySolution } from "../core/verify.js";
import { encodeTriangle } from "../core/triangle/encode.js";
import type { TriangleBoard, TrianglePuzzle } from "../core/triangle/puzzle.js";
import { verifyTriangleBoard } from "../core/triangle/verify.js";
import { runSolver, type SolverName } from "../host/solver/index.js";

/** A formula whose models are the puzzle's boards, with what turns a model into a verified board. */
export interface BlockingProblem<B> {
  readonly numVars: number;
  readonly clauses: ClauseBuffer;
  /** The verified board of a model and the clause that blocks it; throws EncoderBugError when not a solution. */
  accept(value: (v: number) => boolean): { board: B; blocking: number[] };
}

export interface SatCountOptions<B> {
  solver?: SolverName;
  binary?: string;
  /** Stop after this many solutions (the count is then a lower bound). */
  limit?: number;
  onBoard?: (board: B) => void;
  /** Time limit of each solver call (then the count is a lower bound, reason "time-limit"). */
  timeLimitSec?: number;
  signal?: AbortSignal;
}

export interface SatCountResult {
  count: number;
  complete: boolean;
  reason?: "limit" | "aborted" | "time-limit" | "conflict-limit" | "interrupted";
  /** Solver calls made (count + 1 when complete). */
  calls: number;
}

function clauseText(cb: ClauseBuffer): string {
  const view = cb.view();
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < view.length; i++) {
    if (view[i] === 0) {
      parts.push(Array.prototype.join.call(view.subarray(start, i + 1), " ") as string);
      start = i + 1;
    }
  }
  return parts.join("\n") + "\n";
}

export async function countBySat<B>(problem: BlockingProblem<B>, options: SatCountOptions<B> = {}): Promise<SatCountResult> {
  const base = clauseText(problem.clauses);
  const blocked: string[] = [];
  let count = 0, calls = 0;
  // The formula goes to the solver as a file: measurably cheaper per call than a pipe for these many small calls.
  const dir = mkdtempSync(join(tmpdir(), "cubist-count-"));
  const file = join(dir, "f.cnf");
  try {
    for (;;) {
      if (options.limit !== undefined && count >= options.limit) return { count, complete: false, reason: "limit", calls };
      writeFileSync(file, `p cnf ${problem.numVars} ${problem.clauses.count + blocked.length}\n${base}${blocked.join("")}`);
      calls++;
      const out = await runSolver(file, problem.numVars, { solver: options.solver ?? "kissat", binary: options.binary, timeLimitSec: options.timeLimitSec, signal: options.signal });
      if (out.kind === "unsat") return { count, complete: true, calls };
      if (out.kind === "unknown") return { count, complete: false, reason: out.reason, calls };
      const { board, blocking } = problem.accept(arrayValue(out.model));
      if (blocking.length === 0) throw new EncoderBugError("a model with no placement variable set cannot be blocked");
      blocked.push(blocking.join(" ") + " 0\n");
      count++;
      options.onBoard?.(board);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A square puzzle in cubist-placement with identical pieces merged; blocks each board's placement variables. */
export function squareBlockingProblem(puzzle: Puzzle): BlockingProblem<Board> {
  const formula = encode("cubist-placement", puzzle, { identical: "merged" });
  return {
    numVars: formula.numVars,
    clauses: formula.clauses,
    accept(value) {
      const board = formula.varMap.decode(value);
      const verdict = verifySolution(puzzle, board);
      if (!verdict.ok) throw new EncoderBugError(verdict.violations[0].message);
      const blocking = board.cells.map((c, cell) => -formula.varMap.placementLiterals({ cell, piece: c!.piece, rot: c!.rot })[0]);
      return { board, blocking };
    },
  };
}

/** A triangle puzzle (core/triangle/encode.ts). */
export function triangleBlockingProblem(puzzle: TrianglePuzzle): BlockingProblem<TriangleBoard> {
  const formula = encodeTriangle(puzzle);
  return {
    numVars: formula.numVars,
    clauses: formula.clauses,
    accept(value) {
      const board = formula.decode(value);
      const verdict = verifyTriangleBoard(puzzle, board);
      if (!verdict.ok) throw new EncoderBugError(verdict.violations[0].message);
      return { board, blocking: formula.blockingClause(value) };
    },
  };
}
