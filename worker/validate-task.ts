/**
 * Step 3 of docs/cluster.md "A worker, per slot": a worker never trusts a message. A pulled message is checked
 * against the consumer it came from and the run's record before any work is done, and the outcome says what to do
 * with it:
 * - "run": a well-formed task of a running run;
 * - "term": malformed or foreign (does not decode, another run than its subject, units or placements out of
 *   range, a formula or variable count that is not the run's, limits out of range): never redelivered;
 * - "nak": a good task that cannot run now (its run is paused or not started): redelivered later;
 * - "ack": nothing left to do (its run is finished or gone, or the cube was cancelled).
 */

import { partProblem } from "../core/cubes/parts.js";
import { scanSymmetry } from "../core/cubes/scan-split.js";
import { CUBE_ID_RE, RUN_ID_RE, type Names } from "../proto/contract.js";
import { CubeTask, type Placement, type SolverSpec } from "../proto/gen/cubist/v1/cube.js";
import type { Puzzle } from "../core/puzzle.js";
import { isTrianglePuzzle, type TrianglePuzzle } from "../core/triangle/puzzle.js";
import { isFormulaPuzzle, placementLiteral } from "../core/cnf/run-formula.js";
import { RunState } from "../proto/gen/cubist/v1/run.js";
import { isTerminal, runStateName } from "../proto/vocabulary.js";
import type { WorkerRun } from "./run-table.js";
import type { DeliveryInfo } from "./pull.js";
import { SOLVER_NAMES, type SolverName } from "../host/solver/index.js";
import { ENGINE_ORDERS } from "./engine/index.js";

export type TaskCheck =
  | { action: "run"; task: CubeTask; run: WorkerRun; limits: CubeLimits }
  | { action: "term"; reason: string; run?: string; cube?: string }
  | { action: "nak"; reason: string; run: string; cube: string; delayMs?: number }
  | { action: "ack"; reason: string; run: string; cube: string };

/** A task's solver settings, checked and with defaults applied. */
export interface CubeLimits {
  /** Empty in the task: the worker's own solver; "none": the placement engine alone. */
  solver: SolverName | "none" | undefined;
  /** Undefined: no limit. */
  timeLimitSec: number | undefined;
  conflictLimit: number | undefined;
  seed: number;
  searchMs: number;
  /** "score": the engine's score mode alone (docs/engine.md); "count": the engine counts the cube; otherwise find or refute. */
  objective: "sat" | "score" | "count";
  /** Objective "count": boards sent with a cube's count (absent for other objectives). */
  countBoards?: number;
}

/** A cube id is a path in the cube tree; this bounds its length well beyond any real split depth. */
const MAX_CUBE_ID_LENGTH = 512;
const MAX_TIME_LIMIT_SEC = 30 * 86_400;
const MAX_SEARCH_MS = 3_600_000;
const MAX_SEED = 2 ** 31 - 1;
/** Boards a counted cube's verdict carries when the task does not say (the coordinator always does). */
const DEFAULT_COUNT_BOARDS = 100;
/** A sanity bound on count_boards (the coordinator picks it so that a verdict stays under NATS's 1 MB payload). */
const MAX_COUNT_BOARDS = 10_000;

/** How long a spot check of a worker's own refutation waits after that worker hands it back (a nak) the first time. */
export const SPOT_CHECK_NAK_MS = 100;
/** The longest such wait: the wait doubles at each delivery up to this. */
export const SPOT_CHECK_NAK_MAX_MS = 1_000;

/**
 * The wait before a task this worker hands back as not its own (its own refutation's spot check, its own proof's
 * check) is delivered again: short at first, so that another worker's pull takes it soon, then doubling with the
 * deliveries. A pull consumer delivers such messages before new ones, so with a fixed short wait a worker whose own
 * checks pile up (every other worker busy) would spend its pulls handing them back and never reach a new cube.
 */
export function handBackDelayMs(deliveries: number): number {
  const doublings = Math.min(Math.max(0, Math.floor(deliveries) - 1), 16);
  return Math.min(SPOT_CHECK_NAK_MAX_MS, SPOT_CHECK_NAK_MS * 2 ** doublings);
}

export interface ValidateContext {
  names: Names;
  /** The worker's view of the run. */
  run(id: string): WorkerRun | undefined;
  /** True when a cancel for this cube (or its whole run) was seen recently. */
  cancelled(run: string, cube: string): boolean;
  /** This worker's id: a spot check of its own refutation (`CubeTask.not_worker`) is handed back for another. */
  workerId?: string;
}

/** The run id behind a consumer name (`run-<id>`, the front queue's `front-<id>`, the lead queue's `lead-<id>`), or null. */
export function runOfConsumer(names: Names, consumer: string): string | null {
  for (const name of [names.runConsumer, names.frontConsumer, names.leadConsumer]) {
    const prefix = name("");
    if (!consumer.startsWith(prefix)) continue;
    const run = consumer.slice(prefix.length);
    if (RUN_ID_RE.test(run) && name(run) === consumer) return run;
  }
  return null;
}

/** The subject a run's consumer takes its tasks from. */
function subjectOfConsumer(names: Names, consumer: string, run: string): string {
  if (consumer === names.leadConsumer(run)) return names.leadSubject(run);
  return consumer === names.frontConsumer(run) ? names.frontSubject(run) : names.cubesSubject(run);
}

function checkLimits(spec: SolverSpec | undefined): CubeLimits | string {
  const s = spec ?? { solver: "", timeLimitSec: 0, conflictLimit: 0, seed: 0, searchMs: 0, objective: "" };
  let solver: SolverName | "none" | undefined;
  if (s.solver !== "") {
    if (s.solver !== "none" && !SOLVER_NAMES.includes(s.solver as SolverName)) return `unknown solver "${s.solver.slice(0, 40)}"`;
    solver = s.solver as SolverName | "none";
  }
  if (!Number.isFinite(s.timeLimitSec) || s.timeLimitSec < 0 || s.timeLimitSec > MAX_TIME_LIMIT_SEC) return `time_limit_sec ${s.timeLimitSec} out of range`;
  if (!Number.isSafeInteger(s.conflictLimit) || s.conflictLimit < 0) return `conflict_limit ${s.conflictLimit} out of range`;
  if (!Number.isInteger(s.seed) || s.seed < 0 || s.seed > MAX_SEED) return `seed ${s.seed} out of range`;
  // The coordinator always sets search_ms on a task; unset means none.
  const searchMs = s.searchMs ?? 0;
  if (!Number.isInteger(searchMs) || searchMs < 0 || searchMs > MAX_SEARCH_MS) return `search_ms ${searchMs} out of range`;
  if (solver === "none" && searchMs === 0) return "solver none with search_ms 0: nothing to run";
  const objective = s.objective ?? "";
  if (objective !== "" && objective !== "sat" && objective !== "score" && objective !== "count") return `unknown objective "${objective.slice(0, 40)}"`;
  if ((objective === "score" || objective === "count") && (solver !== "none" || searchMs === 0)) return `objective ${objective} needs solver none and the engine (search_ms > 0)`;
  const countBoards = s.countBoards ?? DEFAULT_COUNT_BOARDS;
  if (!Number.isInteger(countBoards) || countBoards < 0 || countBoards > MAX_COUNT_BOARDS) return `count_boards ${countBoards} out of range`;
  return {
    objective: objective === "score" || objective === "count" ? objective : "sat",
    ...(objective === "count" ? { countBoards } : {}),
    solver,
    timeLimitSec: s.timeLimitSec > 0 ? s.timeLimitSec : undefined,
    conflictLimit: s.conflictLimit > 0 ? s.conflictLimit : undefined,
    seed: s.seed,
    searchMs,
  };
}

/** Why a task's placements are not placements of the run's puzzle (cell, piece and rotation in range), or null. */
function checkPlacements(puzzle: Puzzle | TrianglePuzzle, placements: readonly Placement[]): string | null {
  const triangle = isTrianglePuzzle(puzzle);
  const cells = triangle ? puzzle.side * puzzle.side : puzzle.rows * puzzle.cols;
  const maxRot = triangle ? (puzzle.rotate ? 2 : 0) : 3;
  const board = triangle ? `a triangle of side ${puzzle.side}` : `a ${puzzle.rows}x${puzzle.cols} puzzle`;
  if (placements.length > cells) return `${placements.length} placements on ${cells} cells`;
  for (const p of placements) {
    if (p.cell >= cells || p.piece >= puzzle.pieces.length || p.rot > maxRot) {
      return `placement (cell ${p.cell}, piece ${p.piece}, rot ${p.rot}) out of range for ${board} of ${puzzle.pieces.length} pieces`;
    }
  }
  return null;
}

/** Decides what to do with a pulled message. Pure apart from the lookups in `ctx`. */
export function validateTask(ctx: ValidateContext, subject: string, data: Uint8Array, info: DeliveryInfo): TaskCheck {
  const { names } = ctx;
  if (info.stream !== names.cubesStream) return { action: "term", reason: `delivered by stream ${info.stream.slice(0, 80)}, not ${names.cubesStream}` };
  const runId = runOfConsumer(names, info.consumer);
  if (runId === null) return { action: "term", reason: `delivered by a consumer that is not a run's: ${info.consumer.slice(0, 80)}` };
  const expected = subjectOfConsumer(names, info.consumer, runId);
  if (subject !== expected) return { action: "term", reason: `subject ${subject.slice(0, 120)} is not run ${runId}'s`, run: runId };
  let task: CubeTask;
  try {
    task = CubeTask.decode(data);
  } catch (err) {
    return { action: "term", reason: `does not decode as CubeTask (${data.length} bytes): ${(err as Error).message}`, run: runId };
  }
  if (task.runId !== runId) return { action: "term", reason: `run_id "${task.runId.slice(0, 80)}" differs from the subject's run ${runId}`, run: runId };
  const cube = task.cubeId;
  if (cube.length > MAX_CUBE_ID_LENGTH || !CUBE_ID_RE.test(cube)) return { action: "term", reason: `bad cube id "${cube.slice(0, 80)}"`, run: runId };
  const bad = (reason: string): TaskCheck => ({ action: "term", reason, run: runId, cube });

  const run = ctx.run(runId);
  if (!run) return bad("run is not in the runs bucket");
  if (task.formulaSha256 !== run.formulaSha256) return bad(`formula_sha256 ${task.formulaSha256.slice(0, 64)} is not the run's`);
  if (task.numVars !== run.numVars) return bad(`num_vars ${task.numVars} is not the run's (${run.numVars})`);
  if (task.puzzleSha256 !== "" && run.puzzleSha256 !== "" && task.puzzleSha256 !== run.puzzleSha256) return bad("puzzle_sha256 is not the run's");
  if (task.units.length > run.numVars) return bad(`${task.units.length} units for ${run.numVars} variables`);
  for (const u of task.units) {
    if (!Number.isInteger(u) || u === 0 || Math.abs(u) > run.numVars) return bad(`unit ${u} is not a literal within ±${run.numVars}`);
  }
  const limits = checkLimits(task.solver);
  if (typeof limits === "string") return bad(limits);
  if (isFormulaPuzzle(run.puzzle)) {
    // A formula run's cube is literals (core/cnf/run-formula.ts), solved by the SAT solver alone.
    const problem = formulaTaskProblem(task, limits, run.numVars);
    return problem !== null ? bad(problem) : admitted(ctx, run, task, limits, info.deliveryCount);
  }
  const placements = checkPlacements(run.puzzle, task.placements);
  if (placements !== null) return bad(placements);
  if (task.engineOrder !== "" && !(ENGINE_ORDERS as readonly string[]).includes(task.engineOrder)) return bad(`unknown engine order "${task.engineOrder.slice(0, 40)}"`);
  const tree = treeProblem(task, run.puzzle);
  if (tree !== null) return bad(tree);
  if (task.part) {
    // A part of a scan cube (core/cubes/parts.ts): the engine searches it alone or beside a SAT solver on the whole cube.
    const problem = partProblem(task.part);
    if (problem !== null) return bad(problem);
    // A whole-board member (engine_order set) is numbered as part 0 of 1, so that it can go on where it stopped.
    if (isTrianglePuzzle(run.puzzle) || task.certify || limits.objective !== "sat" || (task.engineOrder !== "" && task.part.n !== 1)) {
      return bad(`a cube part on ${isTrianglePuzzle(run.puzzle) ? "a triangle run" : task.certify ? "a certified run" : limits.objective !== "sat" ? `objective ${limits.objective}` : "a whole-board member"} (parts are for scan cubes)`);
    }
  }
  if (isTrianglePuzzle(run.puzzle)) {
    // A triangle cube runs the triangle search and the SAT solver (worker/triangle/cube.ts): nothing square-only.
    if (limits.objective === "score" || task.certify || task.engineOrder !== "") {
      return bad(`${limits.objective === "score" ? "objective score" : task.certify ? "certify" : "engine_order"} on a triangle run (square boards only)`);
    }
  }
  return admitted(ctx, run, task, limits, info.deliveryCount);
}

/**
 * Why a task's tree (engine_mirror, engine_corner) is not a whole-board member's, or null: both only with engine_order
 * (a member, no placements), the corner piece 0-3, and a corner piece other than the first only where the worker breaks
 * the board's symmetry (worker/solve-cube.ts: no hints, not certified), since --corner means nothing without it.
 */
function treeProblem(task: CubeTask, puzzle: Puzzle | TrianglePuzzle): string | null {
  if (!task.engineMirror && task.engineCorner === 0) return null;
  if (task.engineOrder === "" || task.placements.length > 0) return "engine_mirror and engine_corner are for a whole-board task with engine_order";
  if (!Number.isInteger(task.engineCorner) || task.engineCorner > 3) return `engine_corner ${task.engineCorner} is not a corner piece 0-3`;
  if (task.engineCorner > 0 && (isTrianglePuzzle(puzzle) || !scanSymmetry(puzzle, { certify: task.certify, findOne: true }))) {
    return `engine_corner ${task.engineCorner} on a run whose board's symmetry is not broken (hints, a certified run or a triangle board)`;
  }
  return null;
}

/**
 * Why a formula run's task is not one (literal placements within the variables, the SAT solver alone), or null. A
 * certified one is welcome: the SAT solver writes the cube's proof (worker/certify-cube.ts).
 */
function formulaTaskProblem(task: CubeTask, limits: Exclude<ReturnType<typeof checkLimits>, string>, numVars: number): string | null {
  if (task.placements.length !== task.units.length) return `${task.placements.length} placements for ${task.units.length} units`;
  for (let i = 0; i < task.placements.length; i++) {
    const p = task.placements[i];
    if (p.cell >= numVars || p.piece > 1 || p.rot !== 0 || placementLiteral(p) !== task.units[i]) return `placement ${i} is not the literal ${task.units[i]}`;
  }
  if (limits.objective !== "sat" || task.engineOrder !== "" || task.part || limits.searchMs !== 0 || limits.solver === "none") {
    return "a formula run's cube is for the SAT solver alone (objective sat, search_ms 0, no part or engine order)";
  }
  return null;
}

/** A task whose content is good: run it, unless its run or cube says otherwise. */
function admitted(ctx: ValidateContext, run: WorkerRun, task: CubeTask, limits: Exclude<ReturnType<typeof checkLimits>, string>, deliveries: number): TaskCheck {
  const runId = run.id, cube = task.cubeId;
  // Checked after the content, so that a forged or malformed task is terminated (and counted) even when its run has
  // ended or its cube was cancelled.
  if (isTerminal(run.state)) return { action: "ack", reason: `run ${runStateName(run.state)}`, run: runId, cube };
  if (ctx.cancelled(runId, cube)) return { action: "ack", reason: "cube cancelled", run: runId, cube };
  if (run.state !== RunState.RUN_STATE_RUNNING) return { action: "nak", reason: `run ${runStateName(run.state)}`, run: runId, cube };
  // Handed back for a moment that grows with the deliveries (handBackDelayMs), so that another worker's pull takes it.
  if (task.notWorker !== "" && task.notWorker === ctx.workerId) {
    const why = task.check ? "a check of this worker's own proof: for another worker" : "a spot check of this worker's own refutation: for another worker";
    return { action: "nak", reason: why, run: runId, cube, delayMs: handBackDelayMs(deliveries) };
  }
  return { action: "run", task, run, limits };
}
