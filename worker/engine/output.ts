/**
 * Reading the native engine's stdout: `s SATISFIABLE | UNSATISFIABLE | UNKNOWN`, a `v` line of `cell piece rot`
 * triples per solution, `c key value` statistics and `c progress ...` lines while it runs. Nothing is trusted:
 * a malformed line or a board that does not name every cell once is an EngineOutputError; whether a board is a
 * solution is the verifier's call, not this parser's.
 */

import { pathProblem } from "../../core/cubes/parts.js";
import { CubistError } from "../../core/errors.js";
import type { Placement } from "../../core/puzzle.js";

/** Engine output that cannot be read: the engine on this machine is broken (core/errors.ts "worker"). */
export class EngineOutputError extends CubistError {
  override readonly name = "EngineOutputError";
  override readonly fault = "worker";
}

export interface EngineProgress {
  nodes: number;
  seconds: number;
  /** Deepest position reached so far (placements beyond the fixed ones), and how many there are. */
  depth: number;
  of: number;
  /** Estimated fraction of the current pass's tree searched, judged from the top of the path (0..1). */
  covered?: number;
}

export interface EngineStats {
  nodes: number;
  seconds: number;
  solutions: number;
  restarts: number;
  /** "exhausted" | "solution-limit" | "node-limit" | "time-limit" | "stopped" as the engine printed it. */
  end: string;
  depth: number;
  of: number;
  /** With `--estimate`: Knuth's estimate of the placements a complete search makes, and its standard error. */
  estNodes?: number;
  estStderr?: number;
  /**
   * A search in parts (or numbering its subtrees at a depth) stopped by a limit: every subtree of its part numbered
   * below `next` at `depth` is exhausted (`c part-next N depth D`).
   */
  partNext?: { next: number; depth: number };
  /**
   * A static scan stopped by a limit: where it goes on exactly (`c resume-from R0,R1,...`), per depth the rank of the
   * candidate on its path, and at the last the first not yet tried (engine --resume-from).
   */
  resumeFrom?: number[];
}

/**
 * A best board the engine printed (`c best ...` then a `b` line): with `--best` the deepest partial board without a
 * mismatch (only placed cells), in score mode a complete board with `breaks` mismatched inner edges. The engine's
 * own score is a claim; core/score.ts re-scores the board before anyone shows it.
 */
export interface EngineBest {
  placed: number;
  /** Score mode: matched inner edges as the engine counted them, out of `max`. */
  score?: number;
  max?: number;
  breaks?: number;
  nodes: number;
  seconds: number;
  board: Placement[];
}

export type EngineStatus = "sat" | "unsat" | "unknown";

const STATUS: Record<string, EngineStatus> = { SATISFIABLE: "sat", UNSATISFIABLE: "unsat", UNKNOWN: "unknown" };
const MAX_LINE = 1 << 20;

export class EngineOutputParser {
  status: EngineStatus | null = null;
  /**
   * The boards printed, in order: every one, or with `keepBoards` false only the first (the others reach onBoard
   * alone, so a long enumeration does not grow in memory).
   */
  readonly boards: Placement[][] = [];
  readonly stats: EngineStats = { nodes: 0, seconds: 0, solutions: 0, restarts: 0, end: "", depth: 0, of: 0 };
  /** The last best board printed. */
  best: EngineBest | null = null;
  private pendingBest: Record<string, number> | null = null;
  private rest = "";

  constructor(
    private readonly cells: number,
    private readonly pieces: number,
    private readonly onProgress?: (p: EngineProgress) => void,
    private readonly onBoard?: (board: Placement[]) => void,
    private readonly keepBoards = true,
    private readonly onBest?: (best: EngineBest) => void,
  ) {}

  push(chunk: Buffer | string): void {
    const text = this.rest + chunk.toString();
    const lines = text.split("\n");
    this.rest = lines.pop()!;
    if (this.rest.length > MAX_LINE) throw new EngineOutputError(`engine output line longer than ${MAX_LINE} bytes`);
    for (const line of lines) this.line(line);
  }

  end(): void {
    if (this.rest !== "") this.line(this.rest);
    this.rest = "";
  }

  private line(line: string): void {
    if (line === "") return;
    if (line.startsWith("s ")) {
      const s = STATUS[line.slice(2).trim()];
      if (s === undefined) throw new EngineOutputError(`unknown status line '${line.slice(0, 40)}'`);
      this.status = s;
    } else if (line.startsWith("b")) {
      const f = this.pendingBest;
      if (!f) throw new EngineOutputError("a best-board line without its 'c best' line");
      this.pendingBest = null;
      const board = this.board(line, true);
      const best: EngineBest = { placed: board.length, nodes: f.nodes ?? 0, seconds: f.seconds ?? 0, board };
      if (f.score !== undefined) Object.assign(best, { score: f.score, max: f.max, breaks: f.breaks });
      this.best = best;
      this.onBest?.(best);
    } else if (line.startsWith("c best ")) {
      this.pendingBest = fields(line.slice(7));
    } else if (line.startsWith("v")) {
      const board = this.board(line);
      if (this.keepBoards || this.boards.length === 0) this.boards.push(board);
      this.onBoard?.(board);
    } else if (line.startsWith("c estimate ")) {
      const f = fields(line.slice(11));
      if (f.nodes !== undefined && f.nodes >= 0) {
        this.stats.estNodes = f.nodes;
        this.stats.estStderr = f.stderr !== undefined && f.stderr >= 0 ? f.stderr : 0;
      }
    } else if (line.startsWith("c progress ")) {
      const f = fields(line.slice(11));
      const p: EngineProgress = { nodes: f.nodes ?? 0, seconds: f.seconds ?? 0, depth: f.depth ?? 0, of: f.of ?? 0 };
      if (f.covered !== undefined && f.covered >= 0 && f.covered <= 1) p.covered = f.covered;
      this.stats.nodes = Math.max(this.stats.nodes, p.nodes);
      this.onProgress?.(p);
    } else if (line.startsWith("c part-next ")) {
      const [next, word, depth] = line.slice(12).trim().split(" ").map((t, i) => (i === 1 ? t : Number(t))) as [number, string, number];
      if (word !== "depth" || !Number.isSafeInteger(next) || next < 0 || !Number.isSafeInteger(depth) || depth < 0) {
        throw new EngineOutputError(`a malformed part-next line '${line.slice(0, 60)}'`);
      }
      this.stats.partNext = { next, depth };
    } else if (line.startsWith("c resume-from ")) {
      this.stats.resumeFrom = resumeRanks(line);
    } else if (line.startsWith("c ")) {
      const [key, value, , of] = line.slice(2).split(" ");
      const n = Number(value);
      if (key === "end") this.stats.end = value ?? "";
      else if (key === "depth") { this.stats.depth = n; this.stats.of = Number(of); }
      else if ((key === "nodes" || key === "seconds" || key === "solutions" || key === "restarts") && Number.isFinite(n)) this.stats[key] = n;
    } else {
      throw new EngineOutputError(`unexpected engine output line '${line.slice(0, 40)}'`);
    }
  }

  /** A `v` line (every cell) or, `partial`, a `b` line (any cells, each once). */
  private board(line: string, partial = false): Placement[] {
    const body = line.slice(1).trim();
    const t = body === "" ? [] : body.split(/\s+/).map(Number);
    if (partial ? t.length % 3 !== 0 || t.length > 3 * this.cells : t.length !== 3 * this.cells) {
      throw new EngineOutputError(`a board line with ${t.length / 3} placements for ${this.cells} cells`);
    }
    const seen = new Uint8Array(this.cells);
    const board: Placement[] = partial ? [] : new Array(this.cells);
    for (let i = 0; i < t.length; i += 3) {
      const cell = t[i], piece = t[i + 1], rot = t[i + 2];
      if (!(Number.isInteger(cell) && cell >= 0 && cell < this.cells && !seen[cell])) throw new EngineOutputError(`a board line names cell ${cell} twice or out of range`);
      if (!(Number.isInteger(piece) && piece >= 0 && piece < this.pieces)) throw new EngineOutputError(`a board line names piece ${piece} out of range`);
      if (!(Number.isInteger(rot) && rot >= 0 && rot <= 3)) throw new EngineOutputError(`a board line has rotation ${rot}`);
      seen[cell] = 1;
      if (partial) board.push({ cell, piece, rot });
      else board[cell] = { cell, piece, rot };
    }
    return board;
  }
}

function fields(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const kv of text.trim().split(/\s+/)) {
    const eq = kv.indexOf("=");
    if (eq > 0) {
      const n = Number(kv.slice(eq + 1));
      if (Number.isFinite(n)) out[kv.slice(0, eq)] = n;
    }
  }
  return out;
}

/** The ranks of a `c resume-from` line; malformed (not comma-separated ranks the engine takes back, pathProblem): EngineOutputError. */
function resumeRanks(line: string): number[] {
  const text = line.slice("c resume-from ".length).trim();
  const ranks = /^\d+(,\d+)*$/.test(text) ? text.split(",").map(Number) : [];
  if (pathProblem({ ranks }) !== null) throw new EngineOutputError(`a malformed resume-from line '${line.slice(0, 60)}'`);
  return ranks;
}
