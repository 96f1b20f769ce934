/**
 * The read model: what the gRPC API (serve/run-calls.ts) and the dashboard's JSON endpoints (serve/http-routes.ts)
 * return, built from the coordinator's reads (serve/coordinator-view.ts) in one place: runs, one run in detail, its
 * cubes. Plain objects; nothing here changes state. The board shown (serve/board-view.ts) and the workers
 * (serve/worker-views.ts) have their own modules.
 */

import { DEFAULT_CUBE_LIMIT, MAX_CUBE_LIMIT } from "../../proto/contract.js";
import type { CubeInfo, RunInfo } from "../../proto/gen/cubist/v1/api.js";
import type { CubeCounts, RunRecord, RunSpec, RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { isFormulaEncoding } from "../../core/cnf/run-formula.js";
import { RunMode } from "../../proto/gen/cubist/v1/run.js";
import { cubeStateOf, CubeState } from "../../proto/api-vocabulary.js";
import { isTerminal, runStateName, type CubeStateName } from "../../proto/vocabulary.js";
import { resplitDepth, subtreeOf, type CubeEntry } from "../model/cube-entry.js";
import { isScoreSlot } from "../model/score-slots.js";
import type { CoordinatorView, RunView } from "./coordinator-view.js";
import { workersView, type WorkerSpeeds } from "./worker-views.js";

/** A run as the runs list shows it. */
export interface RunSummary {
  runId: string;
  name: string;
  state: string;
  /** The run is over (its state is terminal). */
  ended: boolean;
  live: boolean;
  /**
   * "square": rows x cols; "triangle": `rows` is the side (rows x rows cells), the base row holds `cols` = 2 rows - 1;
   * "formula" (a DIMACS or Sudoku run): a Sudoku's N x N, a DIMACS formula's 1 x its variables.
   */
  shape: "square" | "triangle" | "formula";
  rows: number;
  cols: number;
  encoding: string;
  progress: number;
  etaSeconds: number;
  cubesPerSecond: number;
  cubes: Record<string, number>;
  solutions: number;
  rejectedModels: number;
  startedUnixMs: number;
  finishedUnixMs: number;
  createdUnixMs: number;
  message: string;
  /** Placements by the workers' searches, their rate, and the tree-estimate view (coordinator/model/work-estimate.ts). */
  placements: number;
  placementsPerSecond: number;
  remainingNodes: number;
  remainingNodesStderr: number;
  workEtaSeconds: number;
  /** Seconds the run has run (paused time left out). */
  runningSeconds: number;
  /** A score run (objective "score"): anytime optimisation, no ETA. */
  scoreRun: boolean;
  /** The current priority, why queued cubes wait ("" when they do not), and the cubes the initial split made. */
  priority: number;
  waiting: string;
  initialCubes: number;
  /** Counting run (mode all): solutions counted so far and whether the count is complete; null for other runs. */
  count: { solutions: number; complete: boolean; limit: number } | null;
}

/**
 * The shape, rows and columns of a run's puzzle, from the first line of its canonical text (0 x 0 if it has none): a
 * triangle of side n (`triangle n`) has n rows, the widest of 2n - 1 cells.
 */
export function boardSize(puzzleText: string, spec?: Pick<RunSpec, "encoding" | "numVars">): { shape: "square" | "triangle" | "formula"; rows: number; cols: number } {
  if (spec && isFormulaEncoding(spec.encoding)) return formulaSize(puzzleText, spec);
  const line = puzzleText.split("\n").find((l) => l.trim() !== "" && !l.trimStart().startsWith("#")) ?? "";
  const t = /^\s*triangle\s+(\d+)\s*$/i.exec(line);
  if (t) return { shape: "triangle", rows: Number(t[1]), cols: 2 * Number(t[1]) - 1 };
  const m = /^\s*(\d+)\s+(\d+)\s*$/.exec(line);
  return { shape: "square", ...(m ? { rows: Number(m[1]), cols: Number(m[2]) } : { rows: 0, cols: 0 }) };
}

/** A formula run's size: a Sudoku's side (its canonical grid's first row), else 1 x the formula's variables. */
function formulaSize(puzzleText: string, spec: Pick<RunSpec, "encoding" | "numVars">): { shape: "formula"; rows: number; cols: number } {
  if (spec.encoding === "dimacs") return { shape: "formula", rows: 1, cols: spec.numVars };
  const n = (puzzleText.split("\n").find((l) => l.trim() !== "" && !l.startsWith("#")) ?? "").trim().length;
  return { shape: "formula", rows: n, cols: n };
}

/** A run as the gRPC API returns it. */
export function runInfo(rec: RunRecord): RunInfo {
  const spec = rec.spec!;
  return {
    runId: spec.runId,
    name: spec.name,
    status: rec.status,
    encoding: spec.encoding,
    ...boardSize(spec.puzzleText, spec),
    numVars: spec.numVars,
    numClauses: spec.numClauses,
    cubing: spec.cubing,
    solver: spec.solver,
    resplit: spec.resplit,
    mode: spec.mode,
    createdUnixMs: spec.createdUnixMs,
  };
}

/** The run's cube counts under their proto names (CubeCounts), zeros when the status has none. */
function cubesOf(s: RunStatus | undefined): Record<keyof CubeCounts, number> {
  const c = s?.cubes;
  return {
    queued: c?.queued ?? 0, running: c?.running ?? 0, unsat: c?.unsat ?? 0, sat: c?.sat ?? 0, unknown: c?.unknown ?? 0,
    failed: c?.failed ?? 0, resplit: c?.resplit ?? 0, refutedBySplit: c?.refutedBySplit ?? 0, purged: c?.purged ?? 0,
  };
}

export function runSummary(rec: RunRecord, live: boolean): RunSummary {
  const spec = rec.spec!;
  const s = rec.status!;
  return {
    runId: spec.runId,
    name: spec.name,
    state: runStateName(s.state),
    ended: isTerminal(s.state),
    live,
    ...boardSize(spec.puzzleText, spec),
    encoding: spec.encoding,
    progress: s.progress,
    etaSeconds: s.etaSeconds,
    cubesPerSecond: s.cubesPerSecond,
    cubes: cubesOf(s),
    solutions: s.solutions,
    rejectedModels: s.rejectedModels,
    startedUnixMs: s.startedUnixMs,
    finishedUnixMs: s.finishedUnixMs,
    createdUnixMs: spec.createdUnixMs,
    message: s.message,
    placements: s.placements,
    placementsPerSecond: s.placementsPerSecond,
    remainingNodes: s.remainingNodes,
    remainingNodesStderr: s.remainingNodesStderr,
    workEtaSeconds: s.workEtaSeconds,
    runningSeconds: s.runningSeconds ?? 0,
    scoreRun: spec.solver?.objective === "score",
    priority: s.priority,
    waiting: s.waiting ?? "",
    initialCubes: s.initialCubes ?? 0,
    count: spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? { solutions: s.solutionCount ?? 0, complete: s.countComplete === true, limit: spec.solutionLimit ?? 0 } : null,
  };
}

/** Every run: the ones in memory plus finished ones only in the runs bucket; newest first. */
export async function runSummaries(c: CoordinatorView): Promise<RunSummary[]> {
  const records = await c.listRunRecords();
  return records
    .map((r) => runSummary(r, c.getRun(r.spec!.runId) !== undefined))
    .sort((a, b) => b.createdUnixMs - a.createdUnixMs || a.runId.localeCompare(b.runId));
}

/**
 * A cube's state as the API and the dashboard report it: queued cubes a worker reports are "running"; once the run
 * has ended, queued cubes are "purged" (removed from the queue, never searched).
 */
export function cubeState(run: RunView, e: CubeEntry): CubeStateName {
  if (e.state !== "queued" && e.state !== "unknown") return e.state;
  if (isTerminal(run.state)) return "purged";
  return e.state === "queued" && run.running.has(e.id) ? "running" : e.state;
}

export interface RunningCubeView {
  cubeId: string;
  workerId: string;
  ageSec: number;
  depth: number;
  placed: number;
  weight: number;
  /** Solver seconds its subtree has taken (verdicts so far, plus this cube's time running) and the subtree's re-splits. */
  subtreeSec: number;
  subtreeResplits: number;
}

/** A score run's slot in flight (coordinator/model/score-slots.ts) that a worker reports running: it counts as a running cube. */
function busySlot(run: RunView, id: string): boolean {
  return isScoreSlot(id) && run.table.member(id)?.open === true;
}

/** A busy score slot as a cube entry of the views: the whole board, no weight, no placements. */
function slotEntry(run: RunView, id: string): CubeEntry {
  return { id, weight: 0, state: "queued", unknowns: 0, errors: 0, seq: 0, lease: run.table.member(id)?.lease ?? "", branching: [], placements: [], placementCount: 0 };
}

/** Cubes being worked on (a score run: its busy slots), oldest first. */
export function runningCubes(run: RunView, now = Date.now()): RunningCubeView[] {
  const out: RunningCubeView[] = [];
  if (isTerminal(run.state)) return out;
  for (const [id, r] of run.running) {
    const e = busySlot(run, id) ? slotEntry(run, id) : run.table.get(id);
    if (!e || e.state !== "queued") continue;
    const ageSec = Math.max(0, (now - r.since) / 1000);
    const sub = run.table.subtree(id);
    out.push({ cubeId: id, workerId: r.worker, ageSec, depth: id.split(".").length, placed: e.placementCount, weight: e.weight, subtreeSec: sub.spentMs / 1000 + ageSec, subtreeResplits: sub.resplits });
  }
  return out.sort((a, b) => b.ageSec - a.ageSec || a.cubeId.localeCompare(b.cubeId));
}

export interface CubeView {
  cubeId: string;
  state: CubeStateName;
  weight: number;
  placed: number;
  workerId: string;
  unknowns: number;
  errors: number;
  reason: string;
  wallMs: number;
  /** Seconds since a worker started it (running cubes), else 0. */
  runningSec: number;
  /** The initial cube it descends from, the solver time spent on that subtree (verdicts and cubes running now), and its re-splits. */
  subtree: string;
  subtreeSec: number;
  subtreeResplits: number;
  /** Re-split generations above it. */
  depth: number;
}

export interface CubeFilter {
  state?: CubeStateName;
  /** Only this cube and its descendants. */
  prefix?: string;
  /** Only running cubes running at least this long. */
  minRunningSec?: number;
  /** Only cubes running on this worker. */
  worker?: string;
  /** At most this many (DEFAULT_CUBE_LIMIT, at most MAX_CUBE_LIMIT). */
  limit?: number;
  /** Newest first, instead of in creation order. */
  recent?: boolean;
  /** Only open cubes (queued, running, unknown) whose subtree has taken at least this many solver seconds. */
  stuckSec?: number;
}

/** Seconds each subtree's running cubes have run so far. */
function runningBySubtree(run: RunView, now: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, r] of run.running) {
    if (run.table.get(id)?.state !== "queued") continue;
    const key = subtreeOf(id);
    out.set(key, (out.get(key) ?? 0) + Math.max(0, (now - r.since) / 1000));
  }
  return out;
}

/** The run's cubes, then a score run's busy slots (a score run has no cubes: its slots are what runs). */
function* entriesAndSlots(run: RunView): Iterable<CubeEntry> {
  yield* run.table.entries();
  if (isTerminal(run.state)) return;
  for (const id of run.running.keys()) if (busySlot(run, id)) yield slotEntry(run, id);
}

/** Cubes of a run that pass the filter; `total` counts them all, `cubes` holds at most `limit`. */
export function selectCubes(run: RunView, filter: CubeFilter = {}, now = Date.now()): { total: number; cubes: Array<CubeView & { entry: CubeEntry }> } {
  const limit = Math.max(1, Math.min(filter.limit || DEFAULT_CUBE_LIMIT, MAX_CUBE_LIMIT));
  let picked: Array<{ entry: CubeEntry; state: CubeStateName; runningSec: number }> = [];
  let total = 0;
  const runningSecs = runningBySubtree(run, now);
  const subtreeSec = (id: string): number => run.table.subtree(id).spentMs / 1000 + (runningSecs.get(subtreeOf(id)) ?? 0);
  for (const e of entriesAndSlots(run)) {
    const state = cubeState(run, e);
    if (filter.state && filter.state !== state) continue;
    if (filter.stuckSec && ((state !== "queued" && state !== "running" && state !== "unknown") || subtreeSec(e.id) < filter.stuckSec)) continue;
    if (filter.prefix && e.id !== filter.prefix && !e.id.startsWith(`${filter.prefix}.`)) continue;
    const r = run.running.get(e.id);
    const runningSec = state === "running" && r ? (now - r.since) / 1000 : 0;
    if (filter.minRunningSec && runningSec < filter.minRunningSec) continue;
    if (filter.worker && r?.worker !== filter.worker) continue;
    total++;
    if (filter.recent) {
      picked.push({ entry: e, state, runningSec });
      // The newest `limit`: trim now and then rather than keeping every match.
      if (picked.length >= 2 * limit) picked = picked.slice(-limit);
    } else if (picked.length < limit) {
      picked.push({ entry: e, state, runningSec });
    }
  }
  if (filter.recent) picked = picked.slice(-limit).reverse();
  const cubes = picked.map(({ entry: e, state, runningSec }) => ({
    entry: e, cubeId: e.id, state, weight: e.weight, placed: e.placementCount, workerId: run.running.get(e.id)?.worker ?? e.worker ?? "",
    unknowns: e.unknowns, errors: e.errors, reason: e.reason ?? "", wallMs: e.wallMs ?? 0, runningSec,
    subtree: subtreeOf(e.id), subtreeSec: subtreeSec(e.id), subtreeResplits: run.table.subtree(e.id).resplits, depth: resplitDepth(e.id),
  }));
  return { total, cubes };
}

/** The dashboard's cube list (`cubes` without the table entries). */
export function cubesView(run: RunView, filter: CubeFilter): { total: number; cubes: CubeView[] } {
  const { total, cubes } = selectCubes(run, filter);
  return { total, cubes: cubes.map(({ entry: _entry, ...view }) => view) };
}

/** A listed cube as the gRPC API returns it. */
export function cubeInfo(c: CubeView & { entry: CubeEntry }, placements: boolean, pieceIds: readonly number[] = []): CubeInfo {
  const ps = placements ? c.entry.placements : [];
  return {
    cubeId: c.cubeId,
    state: cubeStateOf(c.state) ?? CubeState.CUBE_STATE_UNSPECIFIED,
    weight: c.weight,
    placements: ps.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })),
    pieceIds: ps.map((p) => pieceIds[p.piece] ?? p.piece),
    workerId: c.workerId,
    runningSec: c.runningSec,
    unknowns: c.unknowns,
    errors: c.errors,
    reason: c.reason,
    subtree: c.subtree,
    subtreeSec: c.subtreeSec,
    subtreeResplits: c.subtreeResplits,
    depth: c.depth,
  };
}

/** Everything the run page shows, except the map and the board (sent separately, when they change). */
export function runDetail(c: CoordinatorView, run: RunView, speeds: WorkerSpeeds, now = Date.now()) {
  const status = run.status(now);
  const spec = run.spec;
  return {
    run: runSummary({ spec, status }, true),
    spec: {
      encoding: spec.encoding,
      order: spec.order,
      targetCubes: spec.cubing?.targetCubes ?? 0,
      cellOrder: spec.cubing?.cellOrder ?? "",
      solver: spec.solver?.solver ?? "",
      timeLimitSec: spec.solver?.timeLimitSec ?? 0,
      searchMs: spec.solver?.searchMs ?? 0,
      resplitAfter: spec.resplit?.afterBudgets ?? 0,
      mode: spec.mode === RunMode.RUN_MODE_ALL_SOLUTIONS ? "all" : "first",
      // Null for a run without a base formula (a score run), rather than a formula of 0 variables.
      numVars: spec.formulaSha256 === "" ? null : spec.numVars,
      numClauses: spec.formulaSha256 === "" ? null : spec.numClauses,
      pieces: run.shape.pieceIds.length,
      hints: run.shape.hintPlacements.length,
    },
    running: runningCubes(run, now),
    workers: workersView(c, speeds, now),
    // The first 100: a counting run with every_board may hold millions.
    solutions: run.solutions.slice(0, 100).map((s) => ({ index: s.index, cubeId: s.cubeId, workerId: s.workerId, foundUnixMs: s.foundUnixMs })),
    best: run.best ? { score: run.best.score, maxScore: run.best.maxScore, placed: run.best.placed, cubeId: run.best.cubeId, workerId: run.best.workerId, foundUnixMs: run.best.foundUnixMs } : null,
    bestHistory: run.bestHistory.slice(-500),
    now,
  };
}
