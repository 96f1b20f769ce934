/**
 * The board a run's page shows: the verified solution when there is one; while searching, the best board a worker
 * reported, or the "best partial board" = the puzzle's hints plus the placements of the deepest cube being worked on
 * (running first, else the deepest open cube), i.e. the most complete placement that no solver has refuted yet. Both
 * are drawn by the run's shape (`renderSVG`, or `renderTriangleSVG` for a triangle), the same picture as the CLI's `--svg`.
 */

import { bucasLink } from "../../core/render/index.js";
import { boardFromPlacements, type Placement } from "../../core/puzzle.js";
import { isTerminal } from "../../proto/vocabulary.js";
import type { CubeEntry } from "../model/cube-entry.js";
import type { RunView } from "./coordinator-view.js";
import type { RunShape } from "../model/shape.js";

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

function viewerLink(shape: RunShape, cells: readonly Placement[]): string {
  if (shape.kind !== "square" || shape.rows !== 16 || shape.cols !== 16) return "";
  try {
    return bucasLink(shape.puzzle, boardFromPlacements(shape.puzzle, cells));
  } catch {
    return ""; // colours or ids the viewer cannot show
  }
}

/** The deepest cube being worked on (running first, else the deepest open cube), or null. */
export function deepestOpenCube(run: RunView): CubeEntry | null {
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
export function boardView(run: RunView, solution = 0): BoardView {
  const shape = run.shape;
  const cells = shape.cells;
  const sol = run.solutions[solution];
  if (sol) {
    const { maxScore } = shape.score([]);
    return {
      kind: "solution", cubeId: sol.cubeId, placed: cells, cells, score: maxScore, maxScore,
      svg: shape.svg(sol.cells, `${run.spec.name}: solution ${sol.index + 1}`), link: viewerLink(shape, sol.cells),
    };
  }
  const hints = shape.hintPlacements;
  const best = isTerminal(run.state) ? null : deepestOpenCube(run);
  const reported = run.best;
  if (reported && reported.placed >= (best?.placementCount ?? 0) + hints.length) {
    const title = `${run.spec.name}: best board, score ${reported.score} of ${reported.maxScore} (cube ${reported.cubeId})`;
    return { kind: "best", cubeId: reported.cubeId, placed: reported.placed, cells, score: reported.score, maxScore: shape.score([]).maxScore, svg: shape.svg(reported.cells, title), link: viewerLink(shape, reported.cells) };
  }
  const placements = [...hints, ...(best?.placements ?? [])];
  const placed = new Set(placements.map((p) => p.cell)).size;
  return {
    kind: best ? "partial" : "hints",
    cubeId: best?.id ?? "",
    placed,
    cells,
    ...shape.score(placements),
    svg: shape.svg(placements, best ? `${run.spec.name}: cube ${best.id}` : run.spec.name),
    link: viewerLink(shape, placements),
  };
}
