/**
 * Boards of a run as files to download from the dashboard: the best board so far and each verified solution, as JSON
 * (the shape `cubist solve --json` prints, which `cubist render` and `cubist verify` read: board[row][col] = [id, rot]
 * or null for an empty cell; a triangle's board[row][pos]) or as the SVG picture the run page shows. Pure: the HTTP
 * route (serve/http-routes.ts) sends what these return.
 */

import { boardToJSON } from "../../core/formats/index.js";
import { boardFromPlacements, type Placement } from "../../core/puzzle.js";
import { triangleBoardToJSON } from "../../core/triangle/format.js";
import { triangleBoardFromPlacements } from "../../core/triangle/puzzle.js";
import type { RunShape } from "../model/shape.js";
import { placementLiteral, type FormulaPuzzle } from "../../core/cnf/run-formula.js";
import { decodeSudoku } from "../../core/sudoku/encode.js";
import { HttpError } from "./api-errors.js";
import type { RunView } from "./coordinator-view.js";

/** A file to send: its body, content type and the name offered to save it under. */
export interface Download {
  readonly body: string;
  readonly contentType: string;
  readonly fileName: string;
}

/** A board as `cubist solve --json` writes it, with the size fields of the run's shape. */
function boardJSON(shape: RunShape, cells: readonly Placement[]): Record<string, unknown> {
  if (shape.kind === "triangle") {
    return { shape: "triangle", side: shape.puzzle.side, board: triangleBoardToJSON(triangleBoardFromPlacements(shape.puzzle.side, cells), shape.puzzle) };
  }
  if (shape.kind === "formula") return formulaBoardJSON(shape.puzzle, cells);
  return { rows: shape.rows, cols: shape.cols, board: boardToJSON(boardFromPlacements(shape.puzzle, cells), shape.puzzle) };
}

/** A formula run's model: a Sudoku's grid (rows of digits), else the model's literals (v or -v for each variable). */
function formulaBoardJSON(p: FormulaPuzzle, cells: readonly Placement[]): Record<string, unknown> {
  const model = new Uint8Array(p.cnf.numVars + 1);
  for (const c of cells) model[placementLiteral(c)] = 1;
  if (p.sudoku) {
    const grid = decodeSudoku(p.sudoku, model);
    return { shape: "sudoku", size: grid.size, grid: Array.from({ length: grid.size }, (_, r) => grid.cells.slice(r * grid.size, (r + 1) * grid.size)) };
  }
  return { shape: "cnf", vars: p.cnf.numVars, model: Array.from({ length: p.cnf.numVars }, (_, i) => (model[i + 1] === 1 ? i + 1 : -(i + 1))) };
}

function download(run: RunView, what: string, format: string, json: () => Record<string, unknown>, svg: () => string): Download {
  const fileName = `${run.id}-${what}.${format}`;
  if (format === "json") return { body: `${JSON.stringify(json())}\n`, contentType: "application/json; charset=utf-8", fileName };
  return { body: svg(), contentType: "image/svg+xml; charset=utf-8", fileName };
}

/** `best.json` / `best.svg`: the run's best board; 404 before a worker reported one. */
export function bestDownload(run: RunView, format: "json" | "svg"): Download {
  const best = run.best;
  if (!best) throw new HttpError(404, `run ${run.id} has no best board yet`);
  return download(run, "best", format,
    () => ({
      run: run.id, ...boardJSON(run.shape, best.cells), score: best.score, maxScore: best.maxScore, placed: best.placed, puzzle: run.spec.name,
      cube: best.cubeId, worker: best.workerId, foundUnixMs: best.foundUnixMs,
    }),
    () => run.shape.svg(best.cells, `${run.spec.name}: best board, score ${best.score} of ${best.maxScore}`));
}

/** `N.json` / `N.svg`: the run's solution N (from 0); 404 when there is no such solution. */
export function solutionDownload(run: RunView, file: string): Download {
  const m = /^(\d{1,9})\.(json|svg)$/.exec(file);
  if (!m) throw new HttpError(404, `"${file.slice(0, 40)}" is not a solution file (N.json or N.svg)`);
  const index = Number(m[1]);
  const sol = run.solutions[index];
  if (!sol) throw new HttpError(404, `run ${run.id} has ${run.solutions.length} solution(s); no index ${index}`);
  return download(run, `solution-${index}`, m[2],
    () => ({ status: "sat", run: run.id, index, ...boardJSON(run.shape, sol.cells), puzzle: run.spec.name, cube: sol.cubeId, worker: sol.workerId, foundUnixMs: sol.foundUnixMs }),
    () => run.shape.svg(sol.cells, `${run.spec.name}: solution ${index + 1}`));
}
