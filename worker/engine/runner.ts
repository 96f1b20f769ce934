/**
 * runEngine: one `cubist-engine` process (the native placement engine, engine/) on one problem, returning a typed
 * outcome. The lifecycle is host/child.ts's: spawned in its own process group, problem written to stdin, stdout
 * parsed as it arrives; a stop sends SIGTERM to the group (the engine then prints its statistics and exits), SIGKILL
 * after a grace period; the promise settles only after the exit and the end of all output.
 *
 * Exit codes: 10 a solution, 20 the space (or the given part of it) exhausted without one, 0 unknown, 1 bad input,
 * 2 usage. Anything else, a signal we did not send, or output that contradicts the exit code is a crash.
 */

import { accessSync, constants } from "node:fs";
import { fileURLToPath } from "node:url";
import { CubistError } from "../../core/errors.js";
import type { Placement } from "../../core/puzzle.js";
import type { ResumePath } from "../../core/cubes/types.js";
import { runChild, type ChildExit } from "../../host/child.js";
import { EngineOutputParser, type EngineBest, type EngineProgress, type EngineStats } from "./output.js";

/**
 * Score mode's settings, chosen on the official Eternity II (BENCHMARKS.md "Score mode"): breaks allowed from 75%
 * of a row scan on, along a ramp with the exponent 1.6 (B * f^1.6 at the fraction f of it: the breaks kept for the
 * last rows), Luby restarts of 4 x 10^6 placements.
 */
export const SCORE_FROM_PCT = 75;
export const SCORE_RAMP_PCT = 160;
export const SCORE_RESTART_NODES = 4_000_000;

/** Scan orders: `short` runs lines along the board's shorter side, `long` along the longer one; `mcf` (most constrained first) picks at each node the cell with the fewest candidates left. */
export const ENGINE_ORDERS = ["short", "long", "row", "col", "spiral", "border", "mcf"] as const;
export type EngineOrder = (typeof ENGINE_ORDERS)[number];

export interface EngineOptions {
  /** @default "short" */
  order?: EngineOrder;
  /** The scan order mirrored left to right: it starts from the top-right corner, another tree. */
  mirror?: boolean;
  /** Run the scan and its mirror in turns of this many placements, in one process on one core (0: one scan). */
  alternate?: number;
  /** With `symmetry`: pin the corner-th corner piece without a twin (0-3; 0, the first, by default): another tree. */
  corner?: number;
  /** With `alternate`: the scans taking turns instead of the scan and its mirror, e.g. ["0", "0m", "2", "2m"]. */
  scans?: string[];
  /** Shuffles the candidate order (0: piece order). @default 0 */
  seed?: number;
  /** The static orders' inner loop: candidates as bit sets, or the bucket scan (for comparisons). @default "bits" */
  loop?: "bits" | "scan";
  /** Restart with a new shuffle after Luby(i) * restartBase placements (0: never). @default 0 */
  restartBase?: number;
  /**
   * Break the board's rotational symmetry (docs/engine.md "Symmetry"; not with `count`). Only for a puzzle without
   * hints: the fixed cells are then taken as a cube's placements.
   */
  symmetry?: boolean;
  /** Go on after the first solution and count them. */
  count?: boolean;
  /** With `count`: stop after this many. */
  solutionLimit?: number;
  /** Print (and report through onBoard) every solution, not just the first. */
  printAll?: boolean;
  /**
   * Search only part k of n of the space (n processes with the same order and seed cover all of it): the subtrees at
   * `depth` numbered k mod n, and none numbered below `from` (an earlier search of the part exhausted them). With
   * n = 1 and a depth the whole space is searched, and a stop by a limit reports how far it got (stats.partNext).
   * `resume` (n = 1 only): go on exactly where an earlier search with the same options stopped, its
   * stats.resumeFrom (engine --resume-from); with `from`, that search's part-next.
   */
  part?: { k: number; n: number; depth?: number; from?: number; resume?: ResumePath };
  nodeLimit?: number;
  timeLimitMs?: number;
  /** Progress lines every this many ms (to `onProgress`). */
  progressMs?: number;
  onProgress?: (p: EngineProgress) => void;
  onBoard?: (board: Placement[]) => void;
  /** First estimate the search tree's size with this many random probes (stats.estNodes). */
  estimateProbes?: number;
  /** Report the deepest partial board (with progress lines and at the end) to `onBest` and the outcome. */
  best?: boolean;
  /**
   * Score mode (docs/engine.md "Score mode"): complete boards with as few mismatched inner edges as possible, each
   * improvement to `onBest`; runs until a limit or a stop unless a perfect board turns up (then "sat").
   * lnsMs: branch and bound for this long, then neighbourhood search around the best board (engine --lns).
   * boundFile: a file whose break bound the engine reads twice a second and takes when tighter than its own, without
   * a restart (a cluster's shared bound). restartSkip: placements of the Luby schedule an earlier search already
   * made, so that its restarts go on where that one's ended; with the same seed and `resume` (that search's
   * stats.resumeFrom), exactly where it stopped.
   */
  score?: { breaks?: number; fromPct?: number; rampPct?: number; lnsMs?: number; boundFile?: string; restartSkip?: number; resume?: readonly number[] };
  onBest?: (best: EngineBest) => void;
  /** Keep every printed board in the outcome's `boards` (false: only the first; see EngineOutputParser). @default true */
  keepBoards?: boolean;
  signal?: AbortSignal;
  /** The executable. @default CUBIST_ENGINE, else the one the build put in dist/engine */
  binary?: string;
  /** @default 1000 */
  killGraceMs?: number;
}

export type EngineOutcome =
  | { kind: "sat"; board: Placement[]; boards: Placement[][]; stats: EngineStats & { wallMs: number }; best?: EngineBest | null }
  | { kind: "unsat"; stats: EngineStats & { wallMs: number }; best?: EngineBest | null }
  | {
      kind: "unknown";
      reason: "time-limit" | "node-limit" | "solution-limit" | "aborted" | "interrupted";
      stats: EngineStats & { wallMs: number };
      /** The last best board printed (with `best` or `score`), unverified. */
      best?: EngineBest | null;
    };

/** The engine (or prover) executable is missing or cannot be executed on this machine. */
export class EngineNotFoundError extends CubistError {
  override readonly name = "EngineNotFoundError";
  override readonly fault = "worker";
  constructor(readonly binary: string, reason: string) {
    super(`placement engine ${binary}: ${reason}; build it with scripts/setup.sh (or npm run build)`);
  }
}

/**
 * The engine (or prover) crashed, refused its input or printed output that contradicts its exit code. Its input is
 * built by this process from a validated task, so a refusal too says the engine here is broken: the worker's fault.
 */
export class EngineCrashedError extends CubistError {
  override readonly name = "EngineCrashedError";
  override readonly fault = "worker";
}

const BUILT = [new URL("../../engine/cubist-engine", import.meta.url), new URL("../../dist/engine/cubist-engine", import.meta.url)];
let located: string | null = null;

/** The engine executable: CUBIST_ENGINE, else the build's dist/engine/cubist-engine. */
export function locateEngine(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.CUBIST_ENGINE;
  if (given) {
    try {
      accessSync(given, constants.X_OK);
      return given;
    } catch {
      throw new EngineNotFoundError(given, "CUBIST_ENGINE names no executable file");
    }
  }
  if (located) return located;
  for (const url of BUILT) {
    const file = fileURLToPath(url);
    try {
      accessSync(file, constants.X_OK);
      located = file;
      return file;
    } catch {
      // next
    }
  }
  throw new EngineNotFoundError(fileURLToPath(BUILT[BUILT.length - 1]), "not built");
}

function engineArgs(o: EngineOptions, shape: { rows: number; cols: number }): string[] {
  const args: string[] = [];
  let order: string = o.order ?? "short";
  if (order === "long") order = shape.cols > shape.rows ? "row" : "col";
  args.push("--order", order);
  if (o.mirror) args.push("--mirror");
  if (o.alternate) args.push("--alternate", String(Math.floor(o.alternate)));
  if (o.alternate && o.scans?.length) args.push("--scans", o.scans.join(","));
  if (o.corner) args.push("--corner", String(o.corner));
  if (o.seed) args.push("--seed", String(o.seed));
  if (o.loop === "scan") args.push("--loop", "scan");
  if (o.restartBase) args.push("--restart", String(o.restartBase));
  if (o.symmetry && !o.count) args.push("--symmetry");
  if (o.count) args.push("--count");
  if (o.solutionLimit) args.push("--limit", String(o.solutionLimit));
  if (o.printAll) args.push("--print");
  if (o.part && (o.part.n > 1 || o.part.depth !== undefined)) {
    args.push("--part", `${o.part.k}/${o.part.n}`);
    if (o.part.depth !== undefined) args.push("--part-depth", String(o.part.depth));
    if (o.part.from) args.push("--part-from", String(Math.floor(o.part.from)));
  }
  const resume = o.part?.resume?.ranks ?? o.score?.resume;
  if (resume?.length) args.push("--resume-from", resume.map((r) => Math.floor(r)).join(","));
  if (o.nodeLimit) args.push("--nodes", String(Math.floor(o.nodeLimit)));
  if (o.timeLimitMs) args.push("--time-ms", String(Math.max(1, Math.ceil(o.timeLimitMs))));
  if (o.progressMs) args.push("--progress-ms", String(Math.max(1, Math.ceil(o.progressMs))));
  if (o.best) args.push("--best");
  if (o.estimateProbes) args.push("--estimate", String(Math.max(1, Math.floor(o.estimateProbes))));
  if (o.score) {
    args.push("--score");
    if (o.score.breaks !== undefined) args.push("--breaks", String(Math.max(0, Math.floor(o.score.breaks))));
    if (o.score.fromPct !== undefined) args.push("--score-from", String(Math.min(100, Math.max(0, Math.round(o.score.fromPct)))));
    if (o.score.rampPct !== undefined) args.push("--score-ramp", String(Math.min(1000, Math.max(10, Math.round(o.score.rampPct)))));
    if (o.score.lnsMs !== undefined) args.push("--lns", String(Math.max(0, Math.round(o.score.lnsMs))));
    if (o.score.boundFile !== undefined) args.push("--bound-file", o.score.boundFile);
    if (o.score.restartSkip) args.push("--restart-skip", String(Math.floor(o.score.restartSkip)));
  }
  return args;
}

/** The statistics of a run that made no placement (no process, or stopped before it started). */
export function noEngineStats(end: "stopped" | "exhausted"): EngineStats & { wallMs: number } {
  return { nodes: 0, seconds: 0, solutions: 0, restarts: 0, end, depth: 0, of: 0, wallMs: 0 };
}

const UNKNOWN_REASON: Record<string, "time-limit" | "node-limit" | "solution-limit" | "interrupted"> = {
  "time-limit": "time-limit",
  "node-limit": "node-limit",
  "solution-limit": "solution-limit",
  stopped: "interrupted",
};

/**
 * Runs the engine on `problem` (engineProblem's text) for a board of `shape` with `pieces` pieces.
 * @throws EngineNotFoundError, EngineCrashedError (bad exit, bad input, contradicting output), EngineOutputError
 */
export function runEngine(problem: string, shape: { rows: number; cols: number; pieces: number }, options: EngineOptions = {}): Promise<EngineOutcome> {
  const binary = options.binary ?? locateEngine();
  const cells = shape.rows * shape.cols;
  const started = performance.now();
  if (options.signal?.aborted) return Promise.resolve({ kind: "unknown", reason: "aborted", stats: noEngineStats("stopped"), best: null });
  const parser = new EngineOutputParser(cells, shape.pieces, options.onProgress, options.onBoard, options.keepBoards ?? true, options.onBest);
  return runChild(binary, engineArgs(options, shape), { input: problem, onStdout: (chunk) => parser.push(chunk), signal: options.signal, killGraceMs: options.killGraceMs })
    .then((run): EngineOutcome => {
      throwIfNotRun(run, binary);
      const { code, signal: sig } = run;
      const stopped = run.stoppedBy !== null;
      const tail = run.stderr.trim();
      parser.end();
      const stats = { ...parser.stats, wallMs: Math.round((performance.now() - started) * 1000) / 1000 };
      if (code === 1 || code === 2) throw new EngineCrashedError(`placement engine rejected its input (exit ${code}): ${tail || "no message"}`);
      if (sig !== null) {
        if (stopped) return { kind: "unknown", reason: "aborted", stats, best: parser.best };
        throw new EngineCrashedError(`placement engine killed by ${sig}${tail ? `: ${tail}` : ""}`);
      }
      if (code === 10 && parser.status === "sat" && parser.boards.length > 0) {
        return { kind: "sat", board: parser.boards[0], boards: parser.boards, stats, best: parser.best };
      }
      if (code === 20 && parser.status === "unsat") return { kind: "unsat", stats, best: parser.best };
      if (code === 0 && parser.status === "unknown") {
        const reason = stopped ? "aborted" : UNKNOWN_REASON[parser.stats.end] ?? "interrupted";
        return { kind: "unknown", reason, stats, best: parser.best };
      }
      throw new EngineCrashedError(`placement engine exit ${code} with status '${parser.status ?? "none"}'${tail ? `: ${tail}` : ""}`);
    });
}

/**
 * Throws what kept a run of the engine (or the prover) from answering: a binary that cannot be executed
 * (EngineNotFoundError), another spawn failure (EngineCrashedError), or what parsing its output threw.
 */
export function throwIfNotRun(run: ChildExit, binary: string): void {
  const e = run.spawnError;
  if (e !== null) {
    if (e.code === "ENOENT" || e.code === "EACCES" || e.code === "ENOTDIR") throw new EngineNotFoundError(binary, `cannot execute it (${e.code})`);
    throw new EngineCrashedError(`cannot start ${binary}: ${e.message}`, { cause: e });
  }
  if (run.thrown !== null) throw run.thrown.error;
}
