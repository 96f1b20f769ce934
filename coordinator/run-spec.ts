/**
 * Building and validating a RunSpec: what a user asks for (from the CLI or the gRPC API), with defaults filled
 * in and every value checked against its range. Invalid input is an InvalidOptionError / InvalidPuzzleError
 * naming the field, which the API maps to INVALID_ARGUMENT.
 */

import { createHash, randomBytes } from "node:crypto";
import { InvalidOptionError } from "../core/errors.js";
import { parseAnyPuzzle, parsePuzzle, writeCanonical, isFormatOption } from "../core/formats/index.js";
import { isEncodingName, DEFAULT_ENCODING, variableOrders } from "../core/encode/index.js";
import { cellOrders } from "../core/cubes/types.js";
import type { Puzzle } from "../core/puzzle.js";
import { parseTriangle, writeTriangle } from "../core/triangle/format.js";
import { isTrianglePuzzle, type TrianglePuzzle } from "../core/triangle/puzzle.js";
import { RunMode, type RunSpec } from "../proto/gen/cubist/v1/run.js";
import { RUN_ID_RE } from "../proto/contract.js";
import { defaultMemberShare } from "./model/scan-trees.js";

export {
  DEFAULT_CELL_ORDER, DEFAULT_CUBE_TIME_LIMIT_SEC, DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC, DEFAULT_RESPLIT_DEPTH, DEFAULT_TARGET_CUBES,
  DEFAULT_SEARCH_MS, defaultSolver, cubeBudgetSec, MAX_TARGET_CUBES,
} from "./model/run-defaults.js";
import { TRIANGLE_CELL_ORDER, TRIANGLE_ENCODING, DEFAULT_CELL_ORDER, defaultCellOrder, DEFAULT_CUBE_TIME_LIMIT_SEC, DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC, DEFAULT_RESPLIT_DEPTH, DEFAULT_SEARCH_MS, DEFAULT_CERTIFIED_TARGET_CUBES, DEFAULT_SPOT_CHECK_PERCENT, DEFAULT_TARGET_CUBES, defaultSolver, MAX_CUBE_PARTS, MAX_MEMBER_SHARE, MAX_SCORE_SLOTS, MAX_TARGET_CUBES, SCORE_SLOT_SEC } from "./model/run-defaults.js";
import { checkBoardSize, checkPuzzleSize, DEFAULT_SIZE_LIMITS, type SizeLimits } from "../core/limits.js";

/** What a caller may set; everything else is defaulted. */
export interface RunRequest {
  runId?: string;
  name?: string;
  puzzleText: string;
  /** Label for error messages (a file name). */
  puzzleLabel?: string;
  format?: string;
  encoding?: string;
  order?: string;
  targetCubes?: number;
  maxDepth?: number;
  cellOrder?: string;
  /** Scan cubes: search each cube as this many parts (CubePart), so that many workers share one cube. @default 1 */
  cubeParts?: number;
  /** Like cubeParts, but only where a run can take parts (scan cubes, not certified, not score; `solve --workers N`: its slots); cubeParts wins. */
  cubePartsIfScan?: number;
  /** Scan runs: the share of the workers' time the portfolio member may take by going on (0..MAX_MEMBER_SHARE). @default 0 */
  memberShare?: number;
  /** Objective score: the score slots to keep going (0 or unset: as many as the live workers' solver slots). */
  scoreSlots?: number;
  solver?: string;
  timeLimitSec?: number;
  conflictLimit?: number;
  seed?: number;
  searchMs?: number;
  /** Budget of an initial cube in seconds, doubling per generation up to timeLimitSec. */
  firstTimeLimitSec?: number;
  resplitAfter?: number;
  resplitDepth?: number;
  resplitChildren?: number;
  priority?: number;
  mode?: "first" | "all";
  /** Certified UNSAT: DRAT proofs for every refuted cube, checked, plus the coverage proof. @default false */
  certify?: boolean;
  /** Refuted cubes re-solved by another worker, percent (coordinator/model/run-trust.ts). @default DEFAULT_SPOT_CHECK_PERCENT */
  spotCheckPercent?: number;
  /** "sat" (default) or "score": the engine's score mode on every cube; the run keeps the best board (issue 13). */
  objective?: string;
  /** Mode "all": end once at least this many solutions are counted (0 or unset: no limit). */
  solutionLimit?: number;
  /** Mode "all": record every board, each verified (docs/cluster.md "Counting"). @default false: the first KEPT_SOLUTIONS */
  everyBoard?: boolean;
}

/** A whole-number request field in min..max, or its default; the formula runs' spec shares these checks. */
export function intField(field: string, v: number | undefined, min: number, max: number, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (!Number.isInteger(v) || v < min || v > max) throw new InvalidOptionError(field, `must be an integer in ${min}..${max}, got ${v}`);
  return v;
}

/** A finite request field in min..max, or its default. */
export function numField(field: string, v: number | undefined, min: number, max: number, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (!Number.isFinite(v) || v < min || v > max) throw new InvalidOptionError(field, `must be a number in ${min}..${max}, got ${v}`);
  return v;
}

/** Boards a counted cube's verdict carries unless the run records every board (docs/cluster.md "Counting"). */
export const COUNT_BOARDS = 32;

/**
 * Boards a counted cube's verdict carries: COUNT_BOARDS, or with every_board as many as fit in about 256 kB (a
 * placement is at most 12 bytes on the wire, and a verdict must stay well under NATS's 1 MB payload limit), at most
 * 1000. Verifying a board costs the coordinator about 60 us on a 6x6 board: every board of a 170,000-solution count
 * would be about 10 s of the coordinator's time beside about 100 s of search (BENCHMARKS.md "Counting on the cluster").
 */
export function countBoardsFor(cells: number, everyBoard: boolean): number {
  const fit = Math.max(1, Math.min(1000, Math.floor(256_000 / (12 * cells))));
  return everyBoard ? fit : Math.min(COUNT_BOARDS, fit);
}

export function newRunId(): string {
  return `r${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The request's puzzle, parsed and checked against `limits` (and, a triangle, against what a triangle run takes). */
function requestPuzzle(req: RunRequest, limits: SizeLimits): { puzzle: Puzzle | TrianglePuzzle; triangle: TrianglePuzzle | null; label: string } {
  if (typeof req.puzzleText !== "string" || req.puzzleText.trim() === "") throw new InvalidOptionError("puzzle", "is empty");
  checkPuzzleSize(Buffer.byteLength(req.puzzleText), limits);
  const format = req.format ?? "auto";
  if (!isFormatOption(format)) throw new InvalidOptionError("format", `unknown format "${format}"`);
  const label = req.puzzleLabel ?? "<puzzle>";
  const puzzle = parseAnyPuzzle(req.puzzleText, label, format);
  checkBoardSize(puzzle, limits);
  const triangle = isTrianglePuzzle(puzzle) ? puzzle : null;
  if (triangle) checkTriangleRequest(req);
  return { puzzle, triangle, label };
}

/** The objective ("sat" or "score"), checked with the mode: a score or a counting run runs the placement engine alone. */
function requestObjective(req: RunRequest): "sat" | "score" {
  const objective = req.objective ?? "sat";
  if (objective !== "sat" && objective !== "score") throw new InvalidOptionError("objective", `must be sat or score, got "${objective}"`);
  if (objective === "score" && ((req.solver !== undefined && req.solver !== "none") || req.searchMs === 0 || req.certify)) {
    throw new InvalidOptionError("objective", "score runs the placement engine alone: not with a SAT solver, --search-ms 0 or --certify");
  }
  if (req.mode === "all") {
    // Counting runs the placement engine alone (docs/cluster.md "Counting": chosen by measurement, BENCHMARKS.md).
    if (req.certify) throw new InvalidOptionError("mode", "all (counting) does not go with certify");
    if (objective !== "sat") throw new InvalidOptionError("mode", "all (counting) does not go with objective score");
    if ((req.solver !== undefined && req.solver !== "none") || req.searchMs === 0) {
      throw new InvalidOptionError("mode", "all (counting) runs the placement engine alone: not with a SAT solver or search ms 0");
    }
  } else if (req.solutionLimit || req.everyBoard) {
    throw new InvalidOptionError(req.solutionLimit ? "solution limit" : "every board", "goes with mode all (counting)");
  }
  return objective;
}

/**
 * The cube solver. Without the engine (search_ms 0) the SAT solver is the default whatever the board. Triangles: the
 * placement search alone unless a solver is asked for, as `cubist solve` does on one machine.
 */
function requestSolver(req: RunRequest, puzzle: Puzzle | TrianglePuzzle, triangle: boolean, objective: string, all: boolean): string {
  const solver = objective === "score" || all ? "none" : req.solver ?? (req.searchMs === 0 ? "kissat" : triangle ? "none" : defaultSolver(puzzle as Puzzle));
  if (solver !== "kissat" && solver !== "cadical" && solver !== "none") throw new InvalidOptionError("solver", `must be kissat, cadical or none, got "${solver}"`);
  if (solver === "none" && req.searchMs === 0) throw new InvalidOptionError("solver", "none with search ms 0 leaves nothing to run on a cube");
  return solver;
}

/** How the run splits: the cell order, the cube parts and the member's share (scan cubes), the target and depth. */
function requestCubing(req: RunRequest, puzzle: Puzzle | TrianglePuzzle, triangle: boolean, solver: string, objective: string, all: boolean): NonNullable<RunSpec["cubing"]> {
  // Counting splits by the splitter's cell order: a scan run's whole-board member refutes the board, it does not count it.
  const cellOrder = triangle ? TRIANGLE_CELL_ORDER : req.cellOrder ?? (all ? DEFAULT_CELL_ORDER : defaultCellOrder(puzzle as Puzzle, solver, objective));
  if (!triangle && !(cellOrders as readonly string[]).includes(cellOrder)) throw new InvalidOptionError("cell order", `unknown cell order "${cellOrder}" (known: ${cellOrders.join(", ")})`);
  if (all && cellOrder === "scan") throw new InvalidOptionError("cell order", "scan does not go with mode all (counting)");
  // The soft default (solve --workers: its slots) applies only where parts can be used.
  const partsFit = cellOrder === "scan" && req.certify !== true && objective !== "score";
  const parts = intField("cube parts", req.cubeParts ?? (partsFit ? req.cubePartsIfScan : undefined), 1, MAX_CUBE_PARTS, 1);
  if (parts > 1 && cellOrder !== "scan") throw new InvalidOptionError("cube parts", `parts are for scan cubes (cell order scan), not ${cellOrder}`);
  if (parts > 1 && (req.certify === true || objective === "score")) {
    throw new InvalidOptionError("cube parts", `not with ${req.certify === true ? "certify (a proof covers whole cubes)" : "objective score (the score search does not split)"}`);
  }
  // Resolved here, so the run's ledger keeps it: a replay goes on as the run began.
  const membersFit = cellOrder === "scan" && !triangle && req.certify !== true && solver === "none" && objective === "sat" && !all;
  const memberShare = numField("member share", req.memberShare, 0, MAX_MEMBER_SHARE, membersFit ? defaultMemberShare(puzzle as Puzzle) : 0);
  if (memberShare > 0 && cellOrder !== "scan") throw new InvalidOptionError("member share", `the member is for scan cubes (cell order scan), not ${cellOrder}`);
  const scoreSlots = intField("score slots", req.scoreSlots, 0, MAX_SCORE_SLOTS, 0);
  if (scoreSlots > 0 && objective !== "score") throw new InvalidOptionError("score slots", "are for objective score");
  return {
    targetCubes: intField("target cubes", req.targetCubes, 1, MAX_TARGET_CUBES, req.certify === true ? DEFAULT_CERTIFIED_TARGET_CUBES : DEFAULT_TARGET_CUBES),
    maxDepth: intField("max depth", req.maxDepth, 0, 1024, 0),
    cellOrder,
    ...(parts > 1 ? { parts } : {}),
    ...(memberShare > 0 ? { memberShare } : {}),
    ...(scoreSlots > 0 ? { scoreSlots } : {}),
  };
}

/** The cube solver's spec: its budgets, seed and objective ("count" for a counting run, with the boards a verdict carries). */
function solverSpecOf(req: RunRequest, solver: string, objective: string, all: boolean, cells: number): NonNullable<RunSpec["solver"]> {
  return {
    solver,
    // A score run's slots are whole-board searches that go on, not cubes: their own default budget.
    timeLimitSec: numField("time limit", req.timeLimitSec, 0, 10_000_000, objective === "score" ? SCORE_SLOT_SEC : DEFAULT_CUBE_TIME_LIMIT_SEC),
    conflictLimit: intField("conflict limit", req.conflictLimit, 0, Number.MAX_SAFE_INTEGER, 0),
    seed: intField("seed", req.seed, 0, 2 ** 31 - 1, 0),
    searchMs: intField("search ms", req.searchMs, 0, 3_600_000, DEFAULT_SEARCH_MS),
    firstTimeLimitSec: numField("first time limit", req.firstTimeLimitSec, 0, 10_000_000, DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC),
    objective: objective === "score" ? "score" : all ? "count" : "",
    ...(all ? { countBoards: countBoardsFor(cells, req.everyBoard === true) } : {}),
  };
}

/** The run id a request asks for, or a new one; InvalidOptionError unless it matches RUN_ID_RE. */
export function requestRunId(req: RunRequest): string {
  const runId = req.runId ?? newRunId();
  if (!RUN_ID_RE.test(runId)) throw new InvalidOptionError("run id", `"${runId.slice(0, 80)}" must be 1-64 characters of A-Z a-z 0-9 _ -`);
  return runId;
}

/**
 * Validates a request and returns the spec (formula fields left for the coordinator to fill) and the puzzle. A puzzle
 * text or a board above `limits` is a LimitExceededError (the formula is checked when it is built: coordinator/shell/run.ts).
 */
export function buildRunSpec(req: RunRequest, now: number = Date.now(), limits: SizeLimits = DEFAULT_SIZE_LIMITS): { spec: RunSpec; puzzle: Puzzle | TrianglePuzzle } {
  const { puzzle, triangle, label } = requestPuzzle(req, limits);
  const runId = requestRunId(req);
  const encoding = triangle ? TRIANGLE_ENCODING : req.encoding ?? DEFAULT_ENCODING;
  if (!triangle && !isEncodingName(encoding)) throw new InvalidOptionError("encoding", `unknown encoding "${encoding}"`);
  const order = req.order ?? "";
  if (order !== "" && !(variableOrders as readonly string[]).includes(order)) throw new InvalidOptionError("order", `unknown order "${order}"`);
  const objective = requestObjective(req);
  const all = req.mode === "all";
  const solver = requestSolver(req, puzzle, triangle !== null, objective, all);
  const cubing = requestCubing(req, puzzle, triangle !== null, solver, objective, all);
  const name = (req.name ?? puzzle.name ?? runId).slice(0, 200);
  const puzzleText = triangle ? writeTriangle({ ...triangle, name }) : writeCanonical({ ...(puzzle as Puzzle), name });
  const cells = triangle ? triangle.side ** 2 : (puzzle as Puzzle).rows * (puzzle as Puzzle).cols;
  const spec: RunSpec = {
    certify: req.certify === true,
    spotCheckPercent: intField("spot check", req.spotCheckPercent, 0, 100, DEFAULT_SPOT_CHECK_PERCENT),
    runId,
    name,
    puzzleText,
    encoding,
    order,
    cubing,
    solver: solverSpecOf(req, solver, objective, all, cells),
    resplit: {
      afterBudgets: intField("resplit after", req.resplitAfter, 1, 1000, 1),
      depth: intField("resplit depth", req.resplitDepth, 1, 64, DEFAULT_RESPLIT_DEPTH),
      targetChildren: intField("resplit children", req.resplitChildren, 0, 1_000_000, 0),
    },
    priority: intField("priority", req.priority, -1000, 1000, 0),
    mode: all ? RunMode.RUN_MODE_ALL_SOLUTIONS : RunMode.RUN_MODE_FIRST_SOLUTION,
    ...(all ? { solutionLimit: intField("solution limit", req.solutionLimit, 0, Number.MAX_SAFE_INTEGER, 0), everyBoard: req.everyBoard === true } : {}),
    createdUnixMs: now,
    puzzleSha256: sha256Hex(puzzleText),
    formulaSha256: "",
    numVars: 0,
    numClauses: 0,
  };
  return { spec, puzzle: triangle ? parseTriangle(puzzleText, label) : parsePuzzle(puzzleText, label, "canonical") };
}

/**
 * What a triangle run cannot take (docs/cluster.md "Triangle runs"): another encoding or variable order, another
 * cell order than the search's own, the score objective, certification.
 */
function checkTriangleRequest(req: RunRequest): void {
  if (req.encoding !== undefined && req.encoding !== DEFAULT_ENCODING && req.encoding !== TRIANGLE_ENCODING) {
    throw new InvalidOptionError("encoding", `"${req.encoding}" is for square boards; a triangle puzzle has its own encoding (${TRIANGLE_ENCODING})`);
  }
  if (req.order) throw new InvalidOptionError("order", "variable orders are for square boards");
  if (req.cellOrder !== undefined && req.cellOrder !== TRIANGLE_CELL_ORDER) {
    throw new InvalidOptionError("cell order", `a triangle splits along its search's order, ${TRIANGLE_CELL_ORDER}; "${req.cellOrder}" is for square boards`);
  }
  if (req.objective !== undefined && req.objective !== "sat") throw new InvalidOptionError("objective", `${req.objective} is for square boards`);
  if (req.certify) throw new InvalidOptionError("certify", "certified UNSAT is for square boards (the proofs number square placements)");
}
