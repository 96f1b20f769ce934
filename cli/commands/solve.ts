import { onInterrupt } from "../interrupt.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT, EXIT_CODES_HELP } from "../exit-codes.js";
import { terminalSafe } from "../../cluster/terminal-text.js";
import { checkBoardSize, DEFAULT_MAX_CELLS, DEFAULT_MAX_FORMULA_MB, sizeLimits } from "../../core/limits.js";
import { inputLimitOf, loadPuzzle, PUZZLE_OPTIONS, puzzleReadOptions } from "../io.js";
import { ENCODING_OPTIONS, encodeOptionsFrom } from "../encode-options.js";
import { BOARD_OUTPUT_OPTIONS, showBoard } from "../board-output.js";
import { defaultPortfolio, defaultThreads, solveLocal, type LocalSolveResult } from "../solve-local.js";
import { parsePortfolio } from "../../worker/engine/index.js";
import { boardToJSON } from "../../core/formats/index.js";
import { SOLVER_NAMES, type SolverName } from "../../host/solver/types.js";
import { type Puzzle } from "../../core/puzzle.js";
import { countOf, PLAIN_INTERVAL_MS, SolveProgress } from "../solve-progress.js";
import type { EngineProgress } from "../../worker/engine/index.js";
import { InvalidOptionError } from "../../core/errors.js";
import { closeSync, openSync, writeSync } from "node:fs";
import { countLocal } from "../solve-all.js";
import { printCountLine } from "../count-line.js";
import { RUN_OPTIONS } from "../run-options.js";
import { PROOF_FORMATS } from "../../worker/config.js";
import { readPuzzleText } from "../triangle-commands.js";
import { runCluster } from "../solve-cluster.js";
import { puzzleView } from "../puzzle-view.js";
import { bestJSON } from "../../core/score.js";
import { isCnfPath } from "../cnf-io.js";
import { isSudokuPath } from "../../core/sudoku/format.js";

export const spec: CommandSpec = {
  name: "solve",
  summary: "Solve a puzzle: native placement engines (and Kissat) side by side, verify the answer, print the board.",
  usage: "cubist solve <puzzle> [--threads N] [--certify [--certificate DIR]] [--all [--limit N] [-o FILE] [--up-to-symmetry]] [--workers N [--nats URL]] [--encoding E] [--solver kissat|cadical|none] [--time S] [--json]",
  positionals: { min: 1, max: 1 },
  options: {
    ...PUZZLE_OPTIONS,
    ...ENCODING_OPTIONS,
    solver: { type: "string", arg: "NAME", description: "SAT solver (none: placement engines only; with --workers the default is none above 200 cells and on near-unique boards)", choices: [...SOLVER_NAMES, "none"], env: "CUBIST_SOLVER" },
    "solver-path": { type: "string", arg: "PATH", description: "solver binary (default: looked up on PATH)", env: "CUBIST_SOLVER_PATH" },
    time: { type: "number", arg: "S", description: "time limit in seconds (then the answer is unknown)", min: 0 },
    seed: { type: "integer", arg: "N", description: "solver random seed", min: 0, max: 2147483647 },
    lns: { type: "number", arg: "S", description: "alone, --objective score: branch and bound for S seconds, then neighbourhood search around each engine's best board (docs/engine.md \"Score mode\")", min: 0 },
    threads: { type: "integer", arg: "N", description: "alone: cores to use (one search process each; default: every core)", min: 1, max: 256 },
    portfolio: { type: "string", arg: "SPEC", description: "alone: the searches to run side by side, e.g. short,spiral:s1:r100000,kissat (docs/engine.md)" },
    all: { type: "boolean", description: "count every solution, alone or with --workers (and with -o write every board, verified, one JSON line each)" },
    limit: { type: "integer", arg: "N", description: "with --all: stop after N solutions (with --workers: once at least N are counted; the count is then a lower bound)", min: 1 },
    output: { type: "string", short: "o", arg: "FILE", output: true, description: "with --all: write every board as a JSON line to FILE (- for stdout)" },
    "up-to-symmetry": { type: "boolean", description: "with --all: count (and write) one board per orbit under the board's rotations and reflections that the piece set allows" },
    "sat-delay": { type: "integer", arg: "MS", description: "alone: the SAT member starts after the engines ran this long (default 2000 on near-unique boards, 500 on boards with many solutions)", min: 0, max: 3_600_000 },
    json: { type: "boolean", description: 'print {"status", "rows", "cols", "board": [[[id, rot], ...], ...], ...} instead of the grid' },
    ...BOARD_OUTPUT_OPTIONS,
    workers: { type: "integer", arg: "N", description: "solve on an embedded local cluster: a private nats-server, a coordinator and N workers (in this process, each with its own NATS connection; solvers and engines run as processes)", min: 1, max: 256 },
    concurrency: { type: "integer", arg: "N", description: "with --workers: solver slots per worker", min: 1, max: 256, default: 1 },
    nats: { type: "string", arg: "URL", description: "with --workers: use this NATS server instead of a private one" },
    verbose: { type: "boolean", short: "v", description: "with --workers: show the cluster's logs" },
    certificate: { type: "string", arg: "DIR", output: true, description: "with --certify: write the certificate bundle (formula, puzzle, cubes, proofs, README, check.sh, encode.py) into DIR" },
    "proof-format": { type: "string", arg: "F", description: "with --certify: the placement prover's proofs, binary DRAT (drat-trim) or LRAT (lrat-check; about 27x larger)", choices: PROOF_FORMATS, env: "CUBIST_PROOF_FORMAT", default: "drat" },
    "max-cells": { type: "integer", arg: "N", description: `largest board to take on, in cells (default ${DEFAULT_MAX_CELLS}: Eternity II; docs/operations.md "Limits")`, env: "CUBIST_MAX_CELLS", min: 1, max: 4096 },
    "max-formula-mb": { type: "number", arg: "MB", description: `largest base formula (DIMACS) to build for a SAT solver (default ${DEFAULT_MAX_FORMULA_MB})`, env: "CUBIST_MAX_FORMULA_MB" },
    ...RUN_OPTIONS,
    redundant: { type: "boolean", description: "Sudoku: add each digit's at-least-once clauses per row, column and box to the encoding" },
  },
  details: `Alone, solve runs a portfolio of native placement-engine searches, one process per core (--threads,
default every core), and the SAT solver after --sat-delay; the first proof wins and the rest are stopped. Near-unique
boards get complete scans along the short side from two corners (on one core the two take turns; on one or two
cores a square board whose four corner pieces differ gets its eight trees, each corner piece pinned at the start and
each direction, in turns); boards with many expected solutions get restarting searches with shuffled candidates (docs/engine.md). --portfolio SPEC picks the
members; --search-ms 0 runs the SAT solver alone. With --workers, --search-ms is how long the engine runs on each cube beside the SAT solver.

--certify proves UNSAT with checked certificates: cube-and-conquer on the embedded cluster (one worker with --threads
slots unless --workers is given), every refuted cube's proof (the placement prover's, or Kissat's DRAT) checked in
the coordinator, and the coverage proved and checked once; --certificate DIR exports the bundle
(docs/operations.md "Certificates"). A SAT answer needs no certificate: its board is verified as always.

--objective score searches for complete boards with as few mismatched inner edges as possible (the Eternity II
score: matched inner edges, 480 at most on 16x16), one score-mode engine per core, until --time or Ctrl-C; every
improvement is re-scored by the verifier and shown on stderr, and the best board is printed at the end (--json:
{"status", "board": null, "best": {"score", "maxScore", "placed", "mismatches", "board"}, "history": [{"seconds", "score"}]},
which cubist render and cubist verify read as it is). Reaching --time with a board exits 0, like a solution.

--all counts every solution on this machine (the space split over --threads engine processes): a solution is a
board, copies of identical pieces are interchangeable and a symmetric piece's equal rotations are one board.
--json prints {"status", "count", "complete", ...}; complete is true only when the whole space was searched,
otherwise count is a lower bound. -o FILE writes every board, verified, as one line {"board": [[[id, rot], ...]]}.
--up-to-symmetry counts one board per orbit under the board's rotations and reflections (a square board has 8, a
rectangle 4, a triangle 6), using those whose image is again a solution: its cells are the puzzle's pieces (a
reflection mirrors every piece) and it shows every hint. It lists every board, so it is slower than a plain count.
With --workers N, --all counts on the embedded cluster: the placement engine counts each cube it exhausts within the
cube's budget (--cube-time), other cubes are re-split, and the coordinator verifies the boards that come with each
count and sums the exact counts (docs/cluster.md "Counting"); --json prints the same shape plus "workers" and
"run". With -o every board is recorded and verified by the coordinator. Not with --up-to-symmetry.

A DIMACS CNF file (.cnf or .dimacs, plain or .gz) is solved by cube and conquer on this machine: lookahead cubes,
Kissat per cube in --threads N processes, --max-depth D decisions per cube, the model checked against
every clause and printed as \`s SATISFIABLE\` and \`v\` lines, or \`s UNSATISFIABLE\` (docs/formats.md "DIMACS CNF");
with --certify every cube and the coverage are proved (DRAT, checked by drat-trim), --certificate DIR keeps the bundle.
With --workers N it runs as a formula run on the embedded cluster (the coordinator's lookahead cubes, --cubes N,
Kissat per cube in the workers, the model checked by the coordinator and again here), printed the same way; with
--certify the coordinator checks each cube's Kissat proof and the coverage; what a formula run does not take (--all,
--cell-order, cube parts) is refused before the cluster starts.

A Sudoku file (.sudoku or .sdk: 4x4 to 25x25, a line per row or the one-line form, docs/formats.md "Sudoku") is
encoded (one variable per cell and digit; --redundant adds the implied clauses) and solved by Kissat (alone up to
16x16, cubes on 25x25 or with --max-depth D; with --workers N or --certify a formula run on the embedded cluster,
certified as a CNF's), the grid checked by the Sudoku verifier; --all counts the solutions ("unique", or the count), -o FILE writes each one (not
with --workers).

A triangle puzzle (first line \`triangle N\`, docs/formats.md) is solved by its placement search on this machine
(--search-ms 0: Kissat alone), --all over --threads worker threads; with --workers N on the embedded cluster, cubes
fixing triangle placements, each run by the triangle search (beside Kissat with --solver kissat), every board checked
by the triangle verifier (docs/cluster.md "Triangle runs"). Its board is board[row][pos] = [id, rot], row 0 at the
apex with 2*row+1 cells, rot = clockwise 120-degree turns (0 unless the puzzle allows rotation); --json prints
"shape": "triangle" and "side" instead of rows and cols. --hints, --portfolio, --sat-delay, --certify and
--objective score are for square boards.

Progress goes to stderr (never with --json): on a terminal, the elapsed time (with the engines' searched share and
deepest board, in score mode the best score, with --workers the closed share and cube counts) redrawn every second;
in a pipe or a log, a plain line every 10 s (with --workers also one at the start, so a quick solve prints none
otherwise). There is no time limit unless --time S is given.

The board: board[row][col] = [id, rot], row 0 at the top, id as in the input file (1-based line order where the
format has no ids), rot = clockwise quarter turns applied to the piece as listed.

${EXIT_CODES_HELP}`,
};

function statsJSON(r: LocalSolveResult): Record<string, unknown> {
  const s = r.stats;
  return {
    conflicts: s.conflicts ?? null,
    decisions: s.decisions ?? null,
    propagations: s.propagations ?? null,
    solverSeconds: s.solverSeconds ?? null,
    wallMs: Math.round(s.wallMs),
    maxRssBytes: s.maxRssBytes ?? null,
    engine: r.engine,
    member: r.member,
    searchNodes: r.searchNodes,
    encodeMs: Math.round(r.encodeMs),
    vars: r.numVars || null,
    clauses: r.numClauses || null,
  };
}

function printResult(puzzle: Puzzle, r: LocalSolveResult, values: ParsedValues, extra: Record<string, unknown>): Promise<void> | void {
  if (values.json) {
    const out = {
      status: r.status,
      rows: puzzle.rows,
      cols: puzzle.cols,
      board: r.status === "sat" ? boardToJSON(r.board, puzzle) : null,
      ...(r.status === "unknown" ? { reason: r.reason, best: r.best ? bestJSON(puzzle, r.best) : null } : {}),
      puzzle: puzzle.name ?? null,
      ...extra,
      stats: statsJSON(r),
    };
    process.stdout.write(JSON.stringify(out) + "\n");
    // --svg FILE with --json: the picture of the board the JSON carries (no grid on stdout).
    const board = r.status === "sat" ? r.board : r.status === "unknown" ? r.best?.board : undefined;
    if (board && typeof values.svg === "string") return showBoard(puzzle, board, values, () => undefined);
    return;
  }
  const secs = (r.stats.wallMs / 1000).toFixed(2);
  if (r.status === "sat") {
    process.stdout.write(`solution (verified) for ${terminalSafe(puzzle.name ?? "puzzle")} in ${secs} s${r.engine === "search" ? " (found by the placement search)" : ""}:\n`);
    return showBoard(puzzle, r.board, values);
  }
  if (r.status === "unsat") process.stdout.write(`unsat: ${terminalSafe(puzzle.name ?? "the puzzle")} has no solution (proved in ${secs} s${r.engine === "search" ? " by the placement search" : ""})\n`);
  else {
    process.stdout.write(`unknown: no answer (${terminalSafe(r.reason)}) after ${secs} s\n`);
    if (r.best) {
      process.stdout.write(`deepest partial board (verified): ${r.best.placed} of ${puzzle.rows * puzzle.cols} cells placed, score ${r.best.score} of ${r.best.maxScore}:\n`);
      return showBoard(puzzle, r.best.board, values);
    }
  }
}

/**
 * Folds the members' progress lines into one view: the most any member has searched (members cover the same space
 * in different orders, so the largest fraction is the best lower bound) and the deepest board (hints included).
 */
function searchProgress(progress: SolveProgress, puzzle: Puzzle): (member: string, p: EngineProgress) => void {
  const covered = new Map<string, number>();
  let deepest = 0;
  const cells = puzzle.rows * puzzle.cols;
  return (member, p) => {
    if (p.covered !== undefined) covered.set(member, p.covered);
    deepest = Math.max(deepest, Math.min(cells, p.depth + (cells - p.of)));
    progress.updateSearch({ covered: Math.max(0, ...covered.values()), deepest, cells });
  };
}

/** `solve --all`: the count, and every board (verified) to -o as one JSON line each. */
async function runCount(puzzle: Puzzle, values: ParsedValues, threads: number): Promise<number> {
  const stop = onInterrupt();
  const file = values.output as string | undefined;
  // Written synchronously as the boards arrive: nothing queues in memory however many there are.
  const fd = file === undefined ? null : file === "-" ? 1 : openSync(file, "w");
  try {
    const result = await countLocal(puzzle, {
      threads,
      limit: values.limit as number | undefined,
      timeLimitSec: values.time as number | undefined,
      upToSymmetry: values["up-to-symmetry"] === true,
      onBoard: fd === null ? undefined : (b) => writeSync(fd, JSON.stringify({ board: boardToJSON(b, puzzle) }) + "\n"),
      signal: stop.abort.signal,
    });
    if (stop.interrupted) return EXIT.INTERRUPTED;
    const status = result.count > 0 ? "sat" : result.complete ? "unsat" : "unknown";
    const secs = result.wallMs / 1000;
    if (values.json) {
      process.stdout.write(JSON.stringify({
        status, count: result.count, complete: result.complete, ...(result.reason ? { reason: result.reason } : {}),
        upToSymmetry: values["up-to-symmetry"] === true, rows: puzzle.rows, cols: puzzle.cols, puzzle: puzzle.name ?? null,
        stats: { wallMs: Math.round(result.wallMs), placements: result.placements, threads },
      }) + "\n");
    } else {
      printCountLine({ name: puzzle.name, count: result.count, complete: result.complete, reason: result.reason, seconds: secs, output: file });
    }
    return status === "sat" ? EXIT.OK : status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    if (fd !== null && fd !== 1) closeSync(fd);
    stop.dispose();
  }
}

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const formula = isCnfPath(path) || isSudokuPath(path);
  // A certified Sudoku is a certified formula run (the one-machine certified path takes DIMACS only), as a certified
  // puzzle is a certified run on the embedded cluster.
  const onCluster = values.workers !== undefined || values.nats !== undefined || (isSudokuPath(path) && values.certify === true);
  if (formula && onCluster) return (await import("../solve-formula-cluster.js")).solveFormulaOnCluster(path, values);
  if (isCnfPath(path)) return (await import("../cnf-command.js")).solveCnfCommand(path, values);
  if (isSudokuPath(path)) return (await import("../sudoku-command.js")).solveSudokuCommand(path, values);
  const { text, triangle } = await readPuzzleText(path, inputLimitOf(values));
  if (triangle) {
    const { solveTriangle } = await import("../solve-triangle.js");
    return solveTriangle(triangle, values, (values.threads as number | undefined) ?? defaultThreads());
  }
  const puzzle = await loadPuzzle(path, { ...puzzleReadOptions(values), text });
  const maxFormulaMb = values["max-formula-mb"] as number | undefined;
  if (maxFormulaMb !== undefined && !(maxFormulaMb > 0)) throw new InvalidOptionError("--max-formula-mb", `must be a positive number, got ${maxFormulaMb}`);
  const limits = sizeLimits({ maxCells: values["max-cells"] as number | undefined, maxFormulaMb });
  checkBoardSize(puzzle, limits);
  if ((values.workers !== undefined || values.nats !== undefined) && values.all) {
    if (values["up-to-symmetry"] === true) throw new InvalidOptionError("up-to-symmetry", "folds boards on one machine only (not with --workers)");
    // -o needs every board: the run records them all, each verified by the coordinator.
    if (values.output !== undefined) values["every-board"] = true;
  }
  if (values.certificate !== undefined && values.certify !== true) throw new InvalidOptionError("certificate", "goes with --certify");
  const threads = (values.threads as number | undefined) ?? defaultThreads();
  if (values.certify === true && values.all) throw new InvalidOptionError("certify", "does not go with --all (counting)");
  if (values.lns !== undefined && (values.objective !== "score" || values.workers !== undefined)) throw new InvalidOptionError("lns", "goes with --objective score alone (not --workers)");
  if (values.workers !== undefined || values.nats !== undefined || values.certify === true) {
    // Certified on one machine: one worker with a slot per core (the cube-and-conquer proof path).
    if (values.workers === undefined) {
      values.workers = 1;
      if (values.certify === true && values.concurrency === 1) values.concurrency = threads;
    }
    return runCluster(puzzleView(puzzle), values, path);
  }
  if (values.objective === "score") {
    if (values.all) throw new InvalidOptionError("objective", "score does not go with --all");
    const { runScore } = await import("../solve-score-command.js");
    return runScore(puzzle, values, threads);
  }
  if (values.all) return runCount(puzzle, values, threads);
  if (values.limit !== undefined || values.output !== undefined || values["up-to-symmetry"] !== undefined) {
    throw new InvalidOptionError(values.limit !== undefined ? "limit" : values.output !== undefined ? "output" : "up-to-symmetry", "goes with --all");
  }
  const solver = (values.solver as string | undefined) ?? "kissat";
  let portfolio = values["search-ms"] === 0
    ? parsePortfolio("sat")
    : typeof values.portfolio === "string" ? parsePortfolio(values.portfolio) : defaultPortfolio(threads, puzzle);
  if (solver === "none") portfolio = portfolio.filter((m) => m.kind !== "sat");
  if (portfolio.length === 0) throw new InvalidOptionError("solver", "none leaves no search to run (with --search-ms 0 or a SAT-only --portfolio)");
  const stop = onInterrupt();
  const abort = stop.abort;
  // Not with --json: on a terminal the elapsed time, redrawn every second; in a pipe a line every 10 s after the first 10.
  const progress = values.json ? null : new SolveProgress(process.stderr.isTTY === true, Date.now(), `searching (${countOf(threads, "thread")})`, PLAIN_INTERVAL_MS);
  const ticker = progress ? setInterval(() => process.stderr.write(progress.tick(Date.now())), 1000) : undefined;
  try {
    const result = await solveLocal(puzzle, {
      encoding: values.encoding as string,
      encodeOptions: encodeOptionsFrom(values),
      solver: solver as SolverName,
      binary: values["solver-path"] as string | undefined,
      timeLimitSec: values.time as number | undefined,
      seed: values.seed as number | undefined,
      portfolio,
      satDelayMs: values["sat-delay"] as number | undefined,
      limits,
      signal: abort.signal,
      onProgress: progress ? searchProgress(progress, puzzle) : undefined,
    });
    clearInterval(ticker);
    if (progress) process.stderr.write(progress.finish());
    if (stop.interrupted) return EXIT.INTERRUPTED;
    for (const e of result.errors) process.stderr.write(`cubist: warning: ${e}\n`);
    await printResult(puzzle, result, values, { encoding: values.encoding, solver, workers: 0 });
    return result.status === "sat" ? EXIT.OK : result.status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    clearInterval(ticker);
    stop.dispose();
  }
}
