/**
 * Solving one validated cube (steps 4-6 of docs/cluster.md "A worker, per slot"): the native placement engine on
 * the puzzle with the cube's placements fixed, beside the SAT solver on the cached base formula plus the cube's
 * units, each its own process; the first proof (a board, a model, or an exhausted space) wins and the other is
 * stopped. The engine runs for `search_ms` (capped by the cube's time limit); 0 leaves the SAT solver alone, and
 * a SAT solver named "none" leaves the engine alone (boards where the solver never wins, e.g. 16x16 cubes).
 *
 * A certified task (`certify`) needs a proof for every UNSAT (worker/certify-cube.ts), and the engine's UNSAT
 * no longer decides the race (its boards still do, since every board is verified). On a cubist-placement formula the
 * proof-producing placement search (`cubist-prove`) runs beside the engine for the cube's whole budget and writes it
 * (binary DRAT; with the worker's `--proof-format lrat`, LRAT about the cube's formula file); the SAT solver runs
 * too when the task names one. Otherwise the SAT solver always runs (the configured one when the task names "none")
 * and writes it.
 *
 * Expected answers and failures are values: a crash, garbage output, a missing formula or a missing solver are
 * "error" results (the task is retried elsewhere) unless the other process proved the answer; a stop (cancel,
 * pause, shutdown) is "stopped".
 */

import { performance } from "node:perf_hooks";
import { modelToBitset } from "../core/accept.js";
import { faultOf } from "../core/errors.js";
import { scanSymmetry } from "../core/cubes/scan-split.js";
import type { CubePart, PartProgress } from "../core/cubes/types.js";
import { parsePuzzle } from "../core/formats/index.js";
import { placementsOfBoard, type Puzzle } from "../core/puzzle.js";
import type { WorkerContext } from "./context.js";
import { engineProblem, firstProof, noEngineStats, runEngine, type Contender, type EngineOrder, type EngineOutcome, type EngineStats } from "./engine/index.js";
import { proofFiles, proverTable, publishProof, type ProofFiles } from "./certify-cube.js";
import { proverBinary, proverProblem, runProver, type ProverOutcome } from "./engine/prove.js";
import { countCube } from "./count-cube.js";
import { cubeFormula, cubeSolverOptions, NO_SOLVER, type CubeJob } from "./cube-job.js";
import { cubeInput, type CachedFormula } from "../host/formula-cache.js";
import type { WorkerRun } from "./run-table.js";
import { runSolver, type SolverOutcome, type SolverStats } from "../host/solver/index.js";
import type { CubeResult, CubeStats } from "./verdict.js";
import { scoreSearch } from "./score-search.js";

/** Random probes of the cube's tree before the search (Knuth's estimator, for the run's ETA): milliseconds. */
const ESTIMATE_PROBES = 256;

/** Parsed run puzzles, by puzzle hash (a worker serves few runs at a time). */
const puzzles = new Map<string, Puzzle>();

function runPuzzle(run: WorkerRun): Puzzle {
  const key = run.puzzleSha256 || run.id;
  let p = puzzles.get(key);
  if (!p) {
    p = parsePuzzle(run.puzzleText, "<run puzzle>", "canonical");
    if (puzzles.size >= 8) puzzles.clear();
    puzzles.set(key, p);
  }
  return p;
}

function solverStats(s: SolverStats | undefined, engine: string, search: EngineOutcome | undefined, wallMs: number): CubeStats {
  const stats: CubeStats = { engine, wallMs, searchNodes: search?.stats.nodes ?? 0 };
  if (search?.stats.estNodes !== undefined) {
    stats.estNodes = search.stats.estNodes;
    stats.estNodesStderr = search.stats.estStderr;
  }
  if (s) {
    stats.conflicts = s.conflicts;
    stats.decisions = s.decisions;
    stats.propagations = s.propagations;
    stats.solverSeconds = s.solverSeconds;
    stats.maxRssBytes = s.maxRssBytes;
  }
  const cpu = (s?.cpuMs ?? 0) + (search ? Math.round(search.stats.seconds * 1000) : 0);
  if (cpu > 0) stats.cpuMs = cpu;
  return stats;
}

type Member = { search: EngineOutcome } | { solver: SolverOutcome } | { prove: ProverOutcome };

export async function solveCube(ctx: WorkerContext, job: CubeJob): Promise<CubeResult> {
  const { task, run, limits, active } = job;
  const certify = task.certify;
  const named = limits.solver ?? ctx.config.solver;
  const budgetMs = limits.timeLimitSec ? limits.timeLimitSec * 1000 : 0;
  const searchMs = budgetMs > 0 ? Math.min(limits.searchMs, budgetMs) : limits.searchMs;
  const useEngine = searchMs > 0;
  // Certified, beside the engine: the prover writes the proofs where it can (and its binary is there).
  const prover = certify && useEngine ? proverBinary(ctx.config.enginePath) : null;
  const table = prover ? proverTable(run) : null;
  const solver = certify && named === NO_SOLVER && !table ? ctx.config.solver : named;
  const useSolver = solver !== NO_SOLVER;
  const stopped = (stats: CubeStats): CubeResult => ({ kind: "stopped", stats });
  const t0 = performance.now();
  const elapsed = (): number => Math.round((performance.now() - t0) * 1000) / 1000;

  // The solver reads the cube's formula, and so does the LRAT prover (its hints name the formula's clauses).
  const lrat = table !== null && ctx.config.proofFormat === "lrat";
  let formula: CachedFormula | null = null;
  if (useSolver || lrat) {
    const got = await cubeFormula(ctx, job, useSolver ? solver : "prove");
    if ("kind" in got) return got;
    formula = got;
  }

  const contenders: Contender<Member>[] = [];
  if (useEngine) {
    let puzzle: Puzzle;
    try {
      puzzle = runPuzzle(run);
    } catch (err) {
      return { kind: "error", fault: faultOf(err), reason: `run puzzle: ${(err as Error).message}`, stats: { engine: "search" } };
    }
    const problem = engineProblem(puzzle, task.placements);
    const shape = { rows: puzzle.rows, cols: puzzle.cols, pieces: puzzle.pieces.length };
    // The board's symmetry, as `cubist solve` breaks it: on a scan run's cubes (the coordinator split with the same
    // rule) and on a whole-board task, never with hints (scan-split.ts scanSymmetry; a count or score returned above).
    const symmetry = (run.cellOrder === "scan" || task.placements.length === 0) && scanSymmetry(puzzle, { certify, findOne: true });
    if (limits.objective === "score") return scoreCube(ctx, job, problem, shape, searchMs, t0);
    if (limits.objective === "count") return countCube(ctx, job, problem, shape, searchMs, t0);
    contenders.push({
      name: "search",
      // Certified: only a board decides (the engine's UNSAT carries no proof).
      decided: (r) => "search" in r && (certify ? r.search.kind === "sat" : r.search.kind !== "unknown"),
      run: async (signal) => ({
        // Contradicting placements: refuted without a process.
        search: problem === null
          ? { kind: "unsat", stats: noEngineStats("exhausted") }
          : await runEngine(problem, shape, {
            order: (task.engineOrder || "short") as EngineOrder, symmetry, timeLimitMs: searchMs, signal, binary: ctx.config.enginePath, best: true,
            // A portfolio member's tree (validate-task.ts checked it): mirrored, another pinned corner piece.
            ...(task.engineMirror ? { mirror: true } : {}),
            ...(task.engineCorner > 0 ? { corner: task.engineCorner } : {}),
            // A part (core/cubes/parts.ts): the engine's --part (from where an earlier search stopped); no tree estimate
            // for a part of several (the probes would measure the whole cube). Part 0 of 1 is the whole cube, numbered.
            ...(task.part ? { part: task.part } : {}),
            ...(!task.part || task.part.n === 1 ? { estimateProbes: ESTIMATE_PROBES } : {}),
          }),
      }),
    });
  }
  let files: ProofFiles | null = null;
  if (certify && (useSolver || table)) {
    try {
      files = await proofFiles(formula, task.units, ctx.config.proofFormat);
    } catch (err) {
      return { kind: "error", fault: faultOf(err), reason: `cube formula for the proof: ${(err as Error).message}`, stats: { engine: solver } };
    }
  }
  if (table && files && prover) {
    const problem = proverProblem(table, [...table.hintLits, ...task.units]);
    const proofPath = files.proverProof, cnfPath = lrat ? files.cnf : undefined;
    contenders.push({
      name: "prove",
      decided: (r) => "prove" in r && r.prove.kind !== "unknown",
      run: async (signal) => ({ prove: await runProver(problem, { proofPath, cnfPath, binary: prover, support: table.support, timeLimitMs: budgetMs || undefined, signal }) }),
    });
  }
  try {
    return await race();
  } finally {
    await files?.remove();
  }

  async function race(): Promise<CubeResult> {
  if (useSolver) {
    const f = formula!;
    const proof = files;
    contenders.push({
      name: solver,
      decided: (r) => "solver" in r && r.solver.kind !== "unknown",
      run: async (signal) => ({
        solver: await runSolver(proof?.cnf ? proof.cnf : cubeInput(f, task.units), run.numVars, { ...cubeSolverOptions(ctx, limits, solver, signal), proofPath: proof?.proof }),
      }),
    });
  }
  active.phase = useSolver || table ? "solver" : "search";
  const { winner, entries } = await firstProof(contenders, active.signal);
  const search = entries.find((e) => e.result && "search" in e.result)?.result as { search: EngineOutcome } | undefined;
  const solved = entries.find((e) => e.result && "solver" in e.result)?.result as { solver: SolverOutcome } | undefined;
  const searchError = entries.find((e) => e.name === "search")?.error;
  const proved = entries.find((e) => e.result && "prove" in e.result)?.result as { prove: ProverOutcome } | undefined;
  const solverError = entries.find((e) => e.name !== "search" && e.error)?.error;
  const wallMs = elapsed();

  if (winner) {
    const r = winner.result!;
    if ("prove" in r) {
      const stats = withProver(solverStats(solved?.solver.stats, "prove", search?.search, wallMs), r.prove);
      if (r.prove.kind === "sat") return { kind: "sat-board", board: placementsOfBoard(table!.decode(r.prove.lits)), stats };
      try {
        return { kind: "unsat", stats, proofSha256: await publishProof(ctx, files!.proverProof, run.id, task.cubeId) };
      } catch (err) {
        return proofNotPublished(err, stats);
      }
    }
    if ("search" in r) {
      const stats = solverStats(solved?.solver.stats, "search", r.search, wallMs);
      if (r.search.kind === "sat") return { kind: "sat-board", board: r.search.board, stats };
      return { kind: "unsat", stats };
    }
    const stats = solverStats(r.solver.stats, solver, search?.search, wallMs);
    if (r.solver.kind === "sat") return { kind: "sat", model: modelToBitset(r.solver.model), stats };
    if (!files) return { kind: "unsat", stats };
    try {
      return { kind: "unsat", stats, proofSha256: await publishProof(ctx, files.proof, run.id, task.cubeId) };
    } catch (err) {
      return proofNotPublished(err, stats);
    }
  }
  const engineName = useSolver ? solver : table ? "prove" : "search";
  const stats = withProver(solverStats(solved?.solver.stats, engineName, search?.search, wallMs), proved?.prove);
  if (active.stopReason !== null) return stopped(stats);
  if (searchError) ctx.log.warn("placement engine failed", { run: run.id, cube: task.cubeId, err: searchError.message });
  const failure = solverError ?? (useSolver || table ? undefined : searchError);
  if (failure) {
    // The cached file vanished or became unreadable: look again next time.
    if ((failure as NodeJS.ErrnoException).code !== undefined && formula) ctx.cache.forget(formula.sha256);
    return { kind: "error", fault: faultOf(failure), reason: `${failure.name}: ${failure.message}`, stats };
  }
  const reason = solved?.solver.kind === "unknown" ? solved.solver.reason : proved?.prove.kind === "unknown" ? `prover ${proved.prove.reason}` : search?.search.kind === "unknown" ? search.search.reason : "aborted";
  // The deepest partial board the search reached: the run's best board is the best of these (the coordinator checks).
  const best = search?.search.best?.board;
  // How far a search in parts got: the cube's next search starts there (docs/cubing.md "Resuming").
  const partNext = task.part && search?.search.kind === "unknown" ? partProgress(task.part, search.search.stats) : undefined;
  return { kind: "unknown", reason, stats, ...(best && best.length > 0 ? { best } : {}), ...(partNext ? { partNext } : {}) };
  }
}

/** A task of a score run (worker/score-search.ts); contradicting placements have no board at all. */
async function scoreCube(
  ctx: WorkerContext, job: CubeJob, problem: string | null, shape: { rows: number; cols: number; pieces: number }, searchMs: number, t0: number,
): Promise<CubeResult> {
  job.active.phase = "search";
  if (problem === null) return { kind: "unsat", stats: { engine: "search", wallMs: Math.round((performance.now() - t0) * 1000) / 1000 } };
  return scoreSearch(ctx, job, problem, shape, searchMs, t0);
}

/** A refuted cube whose proof did not reach the proofs store: an unclassified failure is NATS's (transient). */
function proofNotPublished(err: unknown, stats: CubeStats): CubeResult {
  return { kind: "error", fault: faultOf(err, "transient"), reason: `proof not published: ${(err as Error).message}`, stats };
}

/** The prover's placements and time count with the engine's (both are placement searches). */
function withProver(stats: CubeStats, prove: ProverOutcome | undefined): CubeStats {
  if (!prove) return stats;
  stats.searchNodes = (stats.searchNodes ?? 0) + prove.stats.nodes;
  stats.cpuMs = (stats.cpuMs ?? 0) + Math.round(prove.stats.seconds * 1000);
  return stats;
}

/**
 * How far a search in parts got (stats.partNext), and for the whole cube (part 0 of 1, a portfolio member) exactly
 * where it stopped, so that its next attempt goes on there (engine --resume-from).
 */
function partProgress(part: CubePart, stats: EngineStats): PartProgress | undefined {
  if (!stats.partNext) return undefined;
  const { next, depth } = stats.partNext;
  return { next, depth, ...(part.n === 1 && stats.resumeFrom ? { path: { ranks: stats.resumeFrom } } : {}) };
}
