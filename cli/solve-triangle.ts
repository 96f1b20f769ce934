/**
 * `cubist solve` on a triangle puzzle (a file whose first data line is `triangle N`; docs/formats.md): the
 * placement search finds a board (or Kissat alone with --search-ms 0), `--all` counts every solution over
 * --threads worker threads. Every board is verified by core/triangle/verify.ts before it is printed or written.
 * With --workers N (or --nats URL) the embedded local cluster solves or counts it (cli/solve-cluster.ts), the
 * coordinator verifying every board with the same verifier (docs/cluster.md "Triangle runs").
 */

import { onInterrupt } from "./interrupt.js";
import { closeSync, openSync, writeSync } from "node:fs";
import type { ParsedValues } from "./args.js";
import { EXIT } from "./exit-codes.js";
import { writeOutput } from "./io.js";
import { countTriangleLocal } from "./count-triangle.js";
import { printCountLine } from "./count-line.js";
import { countBySat, triangleBlockingProblem } from "./count-sat.js";
import { InvalidOptionError } from "../core/errors.js";
import { triangleBoardToJSON } from "../core/triangle/format.js";
import { type TriangleBoard, type TrianglePuzzle } from "../core/triangle/puzzle.js";
import { runCluster } from "./solve-cluster.js";
import { puzzleView } from "./puzzle-view.js";
import { renderTriangleSVG, renderTriangleText } from "../core/triangle/render.js";
import type { SolverName } from "../host/solver/index.js";

/** Options of `solve` that square boards only have. */
const SQUARE_ONLY = ["hints", "portfolio", "sat-delay", "certify", "certificate"] as const;

export async function solveTriangle(puzzle: TrianglePuzzle, values: ParsedValues, threads: number): Promise<number> {
  if (values.objective === "score") throw new InvalidOptionError("--objective", "score is for square boards");
  for (const name of SQUARE_ONLY) {
    if (values[name] !== undefined && values[name] !== false) throw new InvalidOptionError(`--${name}`, "is for square boards");
  }
  for (const name of ["limit", "output", "up-to-symmetry"]) {
    if (!values.all && values[name] !== undefined) throw new InvalidOptionError(`--${name}`, "goes with --all");
  }
  if (values.workers !== undefined || values.nats !== undefined) return solveOnCluster(puzzle, values);
  return values.all ? countAll(puzzle, values, threads) : solveOne(puzzle, values);
}

/** `solve TRIANGLE --workers N [--all]`: the embedded local cluster, printing what `solve` prints on one machine. */
async function solveOnCluster(puzzle: TrianglePuzzle, values: ParsedValues): Promise<number> {
  if (values.all) {
    if (values["up-to-symmetry"] === true) throw new InvalidOptionError("up-to-symmetry", "folds boards on one machine only (not with --workers)");
    // -o needs every board: the run records them all, each verified by the coordinator.
    if (values.output !== undefined) values["every-board"] = true;
  }
  values.workers ??= 1;
  return runCluster(puzzleView(puzzle), values, puzzle.name ?? "<triangle>");
}

async function solveOne(puzzle: TrianglePuzzle, values: ParsedValues): Promise<number> {
  const stop = onInterrupt();
  const started = performance.now();
  try {
    let board: TriangleBoard | null = null;
    let complete: boolean;
    let reason: string | undefined;
    let engine: string;
    if (values["search-ms"] === 0) {
      engine = (values.solver as string | undefined) ?? "kissat";
      if (engine === "none") throw new InvalidOptionError("--solver", "none leaves no search to run with --search-ms 0");
      const r = await countBySat(triangleBlockingProblem(puzzle), {
        solver: engine as SolverName, binary: values["solver-path"] as string | undefined, limit: 1, signal: stop.signal,
        timeLimitSec: values.time as number | undefined,
        onBoard: (b) => (board = b),
      });
      complete = r.complete || r.count === 1;
      reason = r.count === 1 ? undefined : r.reason;
    } else {
      engine = "search";
      const r = await countTriangleLocal(puzzle, { threads: 1, limit: 1, timeLimitSec: values.time as number | undefined, signal: stop.signal, onBoard: (b) => (board = b) });
      complete = r.complete || r.count === 1;
      reason = r.reason;
    }
    if (stop.interrupted) return EXIT.INTERRUPTED;
    const status = board ? "sat" : complete ? "unsat" : "unknown";
    const wallMs = performance.now() - started;
    if (values.json) {
      process.stdout.write(JSON.stringify({
        status, shape: "triangle", side: puzzle.side, board: board ? triangleBoardToJSON(board, puzzle) : null,
        ...(status === "unknown" ? { reason } : {}), puzzle: puzzle.name ?? null, stats: { wallMs: Math.round(wallMs), engine },
      }) + "\n");
    } else if (board) {
      process.stdout.write(`solution (verified) for ${puzzle.name ?? "puzzle"} in ${(wallMs / 1000).toFixed(2)} s (${engine === "search" ? "placement search" : engine}):\n`);
      process.stdout.write(renderTriangleText(puzzle, board) + "\n");
    } else if (status === "unsat") {
      process.stdout.write(`unsat: ${puzzle.name ?? "the puzzle"} has no solution (proved in ${(wallMs / 1000).toFixed(2)} s)\n`);
    } else {
      process.stdout.write(`unknown: no answer (${reason}) after ${(wallMs / 1000).toFixed(2)} s\n`);
    }
    if (board && typeof values.svg === "string") await writeOutput(values.svg, renderTriangleSVG(puzzle, board));
    return status === "sat" ? EXIT.OK : status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    stop.dispose();
  }
}

async function countAll(puzzle: TrianglePuzzle, values: ParsedValues, threads: number): Promise<number> {
  const stop = onInterrupt();
  const file = values.output as string | undefined;
  // Written synchronously as the boards arrive: nothing queues in memory however many there are.
  const fd = file === undefined ? null : file === "-" ? 1 : openSync(file, "w");
  try {
    const result = await countTriangleLocal(puzzle, {
      threads,
      limit: values.limit as number | undefined,
      timeLimitSec: values.time as number | undefined,
      signal: stop.signal,
      upToSymmetry: values["up-to-symmetry"] === true,
      onBoard: fd === null ? undefined : (b) => writeSync(fd, JSON.stringify({ board: triangleBoardToJSON(b, puzzle) }) + "\n"),
    });
    if (stop.interrupted) return EXIT.INTERRUPTED;
    const status = result.count > 0 ? "sat" : result.complete ? "unsat" : "unknown";
    if (values.json) {
      process.stdout.write(JSON.stringify({
        status, count: result.count, complete: result.complete, ...(result.reason ? { reason: result.reason } : {}),
        upToSymmetry: values["up-to-symmetry"] === true, shape: "triangle", side: puzzle.side, puzzle: puzzle.name ?? null,
        stats: { wallMs: Math.round(result.wallMs), placements: result.placements, threads },
      }) + "\n");
    } else {
      printCountLine({ name: puzzle.name, count: result.count, complete: result.complete, reason: result.reason, seconds: result.wallMs / 1000, output: file });
    }
    return status === "sat" ? EXIT.OK : status === "unsat" ? EXIT.UNSAT : EXIT.UNKNOWN;
  } finally {
    if (fd !== null && fd !== 1) closeSync(fd);
    stop.dispose();
  }
}
