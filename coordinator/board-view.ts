/**
 * The board a run's page shows: the verified solution when there is one; while searching, the best board a worker
 * reported, or the "best partial board" = the puzzle's hints plus the placements of the deepest cube being worked on
 * (running first, else the deepest open cube), i.e. the most complete placement that no solver has refuted yet. Both
 * are drawn with `renderSVG`, the same picture as the CLI's `--svg`.
 */

import { bucasLink, renderSVG } from "../core/render/index.js";
import { boardFromPlacements, type Board, type Placement, type Puzzle } from "../core/puzzle.js";
import { innerEdgeCount, scoreBoard } from "../core/verify.js";
import { hintPlacements } from "../core/cubes/search.js";
import { isTerminal } from "../proto/vocabulary.js";
import type { CubeEntry } from "./cube-table.js";
import type { RunController } from "./run.js";

export interface BoardView {
  /** "best": the run's best board a worker reported (checked and scored); "partial": a cube's own placements. */
  kind: "solution" | "best" | "partial" | "hints";
  /** The cube whose placements are shown (partial), or where the solution was found. */
  cubeId: string;
  /** Cells with a piece. */
  placed: number;
  cells: number;
  /** Matched inner edges of the board shown, out of maxScore. */
  score: number;
  maxScore: number;
  svg: string;
  /** The e2.bucas.name viewer's link for a 16x16 board (empty otherwise). */
  link: string;
}

function viewerLink(puzzle: Puzzle, board: Board): string {
  if (puzzle.rows !== 16 || puzzle.cols !== 16) return "";
  try {
    return bucasLink(puzzle, board);
  } catch {
    return ""; // colours or ids the viewer cannot show
  }
}

/** The deepest cube being worked on (running first, else the deepest open cube), or null. */
export function deepestOpenCube(run: RunController): CubeEntry | null {
  let best: CubeEntry | null = null;
  let bestRunning = false;
  for (const e of run.table.entries()) {
    if (e.state !== "queued" && e.state !== "unknown") continue;
    const running = e.state === "queued" && run.running.has(e.id);
    if (best === null || (running && !bestRunning) || (running === bestRunning && e.placementCount > best.placementCount)) {
      best = e;
      bestRunning = running;
    }
  }
  return best;
}

/** The board to show now: the solution (index `solution`, default the first), else the best partial board. */
export function boardView(run: RunController, solution = 0): BoardView {
  const cells = run.puzzle.rows * run.puzzle.cols;
  const sol = run.solutions[solution];
  if (sol) {
    const board = boardFromPlacements(run.puzzle, sol.cells);
    return {
      kind: "solution", cubeId: sol.cubeId, placed: cells, cells, score: innerEdgeCount(run.puzzle), maxScore: innerEdgeCount(run.puzzle),
      svg: renderSVG(run.puzzle, board, { title: `${run.spec.name}: solution ${sol.index + 1}` }), link: viewerLink(run.puzzle, board),
    };
  }
  const maxScore = innerEdgeCount(run.puzzle);
  const hints: Placement[] = hintPlacements(run.puzzle);
  const best = isTerminal(run.state) ? null : deepestOpenCube(run);
  const reported = run.best;
  if (reported && reported.placed >= (best?.placementCount ?? 0) + hints.length) {
    const board = boardFromPlacements(run.puzzle, reported.cells);
    const title = `${run.spec.name}: best board, score ${reported.score} of ${reported.maxScore} (cube ${reported.cubeId})`;
    return { kind: "best", cubeId: reported.cubeId, placed: reported.placed, cells, score: reported.score, maxScore, svg: renderSVG(run.puzzle, board, { title }), link: viewerLink(run.puzzle, board) };
  }
  const placements = [...hints, ...(best?.placements ?? [])];
  const board = boardFromPlacements(run.puzzle, placements);
  const placed = board.cells.filter((x) => x !== null).length;
  return {
    kind: best ? "partial" : "hints",
    cubeId: best?.id ?? "",
    placed,
    cells,
    score: scoreBoard(run.puzzle, board),
    maxScore,
    svg: renderSVG(run.puzzle, board, { title: best ? `${run.spec.name}: cube ${best.id}` : run.spec.name }),
    link: viewerLink(run.puzzle, board),
  };
}
