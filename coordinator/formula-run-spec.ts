/**
 * The RunSpec of a formula run (docs/cluster.md "Formula runs"): a DIMACS CNF (format "dimacs") or a Sudoku (format
 * "sudoku") submitted as a run. Its cubes come from the lookahead cuber (cell order "lookahead"), and every cube goes
 * to the SAT solver alone (search ms 0: the placement engine has no board to search); with `certify` the solver's
 * DRAT proof of every cube is checked by the coordinator, as for puzzles. What a formula run does not take is refused
 * by name: counting, the score objective, cube parts, variable orders and the square encodings.
 */

import { InvalidOptionError } from "../core/errors.js";
import { checkPuzzleSize, DEFAULT_SIZE_LIMITS, type SizeLimits } from "../core/limits.js";
import { formulaRunText, parseFormulaPuzzle, type FormulaEncoding, type FormulaPuzzle } from "../core/cnf/run-formula.js";
import type { Puzzle } from "../core/puzzle.js";
import type { TrianglePuzzle } from "../core/triangle/puzzle.js";
import { RunMode, type RunSpec } from "../proto/gen/cubist/v1/run.js";
import { buildRunSpec, intField, numField, requestRunId, sha256Hex, type RunRequest } from "./run-spec.js";
import {
  DEFAULT_RESPLIT_DEPTH, DEFAULT_SPOT_CHECK_PERCENT, DEFAULT_TARGET_CUBES, FORMULA_CUBE_TIME_LIMIT_SEC, MAX_TARGET_CUBES,
} from "./model/run-defaults.js";

/**
 * A formula run's cubes get the whole cube budget at once (0: no shorter first budget): Kissat starts a re-split
 * child from scratch, so a short first budget only throws work away. Measured (BENCHMARKS.md "Random 3-SAT on
 * the cluster"): with the puzzles' 2 s first budget, a random 3-SAT formula Kissat alone solves in 0.12 CPU s had 4 of
 * its cubes re-split under a load of 16-19 and took 15.4 s on the cluster against 1.2 s alone.
 */
export const FORMULA_FIRST_CUBE_TIME_LIMIT_SEC = 0;

/** The cell order a formula run records: its cubes are the lookahead's. */
export const LOOKAHEAD_CELL_ORDER = "lookahead";

/** The request formats of formula runs. */
export function isFormulaFormat(format: string | undefined): format is "dimacs" | "sudoku" {
  return format === "dimacs" || format === "sudoku";
}

/** Builds any run's spec: a formula run's here, a puzzle's by buildRunSpec. */
export function buildAnyRunSpec(req: RunRequest, now: number = Date.now(), limits: SizeLimits = DEFAULT_SIZE_LIMITS): { spec: RunSpec; puzzle: Puzzle | TrianglePuzzle | FormulaPuzzle } {
  return isFormulaFormat(req.format) ? buildFormulaRunSpec(req, now, limits) : buildRunSpec(req, now, limits);
}

/** The encoding a formula request asks for: "dimacs", or a Sudoku's "sudoku" (with --redundant "sudoku-redundant"). */
function formulaEncoding(req: RunRequest): FormulaEncoding {
  const asked = req.encoding ?? "";
  if (req.format === "dimacs") {
    if (asked !== "" && asked !== "dimacs") throw new InvalidOptionError("encoding", `"${asked}" is for puzzles; a DIMACS formula is solved as it is`);
    return "dimacs";
  }
  if (asked === "" || asked === "sudoku" || asked === "sudoku-redundant") return asked === "" ? "sudoku" : asked;
  throw new InvalidOptionError("encoding", `a Sudoku takes sudoku or sudoku-redundant, not "${asked}"`);
}

/** What a formula run does not take (see the module note). */
function checkFormulaRequest(req: RunRequest): void {
  const what = req.format === "dimacs" ? "a DIMACS formula" : "a Sudoku";
  const refuse = (field: string, why: string): never => {
    throw new InvalidOptionError(field, `${why} (${what} runs on the cluster as a formula run: docs/cluster.md "Formula runs")`);
  };
  if (req.mode === "all" || req.solutionLimit || req.everyBoard) refuse("mode", "counting is not for a formula run");
  if (req.objective !== undefined && req.objective !== "sat") refuse("objective", `${req.objective} is for square boards`);
  if (req.order) refuse("order", "variable orders are for square boards");
  if (req.cellOrder !== undefined && req.cellOrder !== LOOKAHEAD_CELL_ORDER) refuse("cell order", `a formula splits by lookahead, not "${req.cellOrder}"`);
  if ((req.cubeParts ?? 1) > 1 || req.memberShare || req.scoreSlots) refuse("cube parts", "cube parts, the member and score slots are for scan cubes");
  if (req.solver === "none") refuse("solver", "none leaves nothing to solve a formula with");
  if (req.searchMs !== undefined && req.searchMs !== 0) refuse("search ms", "the placement engine has no board to search");
}

/** Validates a formula request and returns its spec (formula fields left for the coordinator) and its formula. */
export function buildFormulaRunSpec(req: RunRequest, now: number = Date.now(), limits: SizeLimits = DEFAULT_SIZE_LIMITS): { spec: RunSpec; puzzle: FormulaPuzzle } {
  if (typeof req.puzzleText !== "string" || req.puzzleText.trim() === "") throw new InvalidOptionError("puzzle", "is empty");
  checkPuzzleSize(Buffer.byteLength(req.puzzleText), limits);
  checkFormulaRequest(req);
  const encoding = formulaEncoding(req);
  const label = req.puzzleLabel ?? "<formula>";
  const parsed = parseFormulaPuzzle(req.puzzleText, label, encoding);
  const runId = requestRunId(req);
  const name = (req.name ?? parsed.name ?? runId).slice(0, 200);
  const puzzle: FormulaPuzzle = { ...parsed, name, ...(parsed.sudoku ? { sudoku: { ...parsed.sudoku, name } } : {}) };
  const puzzleText = formulaRunText(puzzle, req.puzzleText);
  const solver = req.solver ?? "kissat";
  if (solver !== "kissat" && solver !== "cadical") throw new InvalidOptionError("solver", `must be kissat or cadical, got "${solver}"`);
  const spec: RunSpec = {
    certify: req.certify ?? false,
    spotCheckPercent: intField("spot check", req.spotCheckPercent, 0, 100, DEFAULT_SPOT_CHECK_PERCENT),
    runId,
    name,
    puzzleText,
    encoding,
    order: "",
    cubing: {
      targetCubes: intField("target cubes", req.targetCubes, 1, MAX_TARGET_CUBES, DEFAULT_TARGET_CUBES),
      maxDepth: intField("max depth", req.maxDepth, 0, 30, 0),
      cellOrder: LOOKAHEAD_CELL_ORDER,
    },
    solver: {
      solver,
      timeLimitSec: numField("time limit", req.timeLimitSec, 0, 10_000_000, FORMULA_CUBE_TIME_LIMIT_SEC),
      conflictLimit: intField("conflict limit", req.conflictLimit, 0, Number.MAX_SAFE_INTEGER, 0),
      seed: intField("seed", req.seed, 0, 2 ** 31 - 1, 0),
      searchMs: 0,
      firstTimeLimitSec: numField("first time limit", req.firstTimeLimitSec, 0, 10_000_000, FORMULA_FIRST_CUBE_TIME_LIMIT_SEC),
      objective: "",
    },
    resplit: {
      afterBudgets: intField("resplit after", req.resplitAfter, 1, 1000, 1),
      depth: intField("resplit depth", req.resplitDepth, 1, 30, DEFAULT_RESPLIT_DEPTH),
      targetChildren: intField("resplit children", req.resplitChildren, 0, 1_000_000, 0),
    },
    priority: intField("priority", req.priority, -1000, 1000, 0),
    mode: RunMode.RUN_MODE_FIRST_SOLUTION,
    createdUnixMs: now,
    puzzleSha256: sha256Hex(puzzleText),
    formulaSha256: "",
    numVars: 0,
    numClauses: 0,
  };
  return { spec, puzzle };
}
