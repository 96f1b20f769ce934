/**
 * The triangle shape of a run (coordinator/model/shape.ts; the Nintai model, docs/formats.md "Triangle format"): split by
 * core/triangle/cubes.ts along the placement search's own order (cell order "base-up"), encoded by
 * core/triangle/encode.ts (a placement variable per cell and entry: a cube's placement is one unit literal), and
 * every board checked by core/triangle/verify.ts, which shares no geometry with the splitter, the search or the
 * encoding.
 */

import { resplitTriangleCube, streamTriangleCubes, type TriangleSplitResult } from "../../core/triangle/cubes.js";
import { encodeTriangle } from "../../core/triangle/encode.js";
import {
  cellCount, innerJoinCount, placedLabel, placementsOfTriangleBoard, triangleBoardFromPlacements, triangleNeighbour, type TriangleBoard, type TrianglePuzzle,
} from "../../core/triangle/puzzle.js";
import { renderTriangleSVG } from "../../core/triangle/render.js";
import { verifyTriangleBoard } from "../../core/triangle/verify.js";
import type { Placement } from "../../core/puzzle.js";
import { wholeBoardProblem, type BoardCheck, type ShapeSplit, type ShapeSplitEvent, type TriangleShape } from "./shape.js";

function withCells(r: TriangleSplitResult): ShapeSplit {
  return { cubes: r.cubes, solutions: r.solutions.map((s) => ({ ...s, cells: placementsOfTriangleBoard(s.board) })), refuted: r.refuted };
}

/** The triangle shape of `puzzle`, its base formula encoded here. */
export function triangleShape(puzzle: TrianglePuzzle): TriangleShape {
  const formula = encodeTriangle(puzzle);
  const cells = cellCount(puzzle.side);
  const shows = (p: Placement): string => [0, 1, 2].map((d) => placedLabel(puzzle.pieces[p.piece].edges, p.rot, d)).join(".");
  const accepted = (board: TriangleBoard): BoardCheck => {
    const v = verifyTriangleBoard(puzzle, board);
    if (!v.ok) return { ok: false, reason: v.violations[0].message };
    const list = placementsOfTriangleBoard(board);
    return { ok: true, cells: list, shown: list.map(shows) };
  };
  return {
    kind: "triangle",
    puzzle,
    formula,
    cells,
    rows: puzzle.side,
    cols: 2 * puzzle.side - 1,
    pieceIds: puzzle.pieces.map((p) => p.id),
    hintPlacements: puzzle.hints.map((h) => ({ cell: h.cell, piece: h.piece, rot: h.rot })),
    placementLiterals(p) {
      const v = formula.placementVar(p.cell, p.piece, p.rot);
      // The coordinator's own cubes only: the splitter places what fits the cell.
      if (v === 0) throw new Error(`unreachable: placement ${p.cell}:${p.piece}:${p.rot} has no variable`);
      return [v];
    },
    *split(c): Generator<ShapeSplitEvent> {
      for (const ev of streamTriangleCubes(puzzle, { targetCubes: c.targetCubes, maxDepth: c.maxDepth > 0 ? c.maxDepth : undefined })) {
        if (ev.kind === "cube") yield ev;
        else if (ev.kind === "solution") yield { kind: "solution", solution: { ...ev.solution, cells: placementsOfTriangleBoard(ev.solution.board) } };
        else yield { kind: "done", refuted: ev.refuted };
      }
    },
    resplit: (base, o) => withCells(resplitTriangleCube(puzzle, base, { depth: o.targetChildren ? undefined : o.depth, targetChildren: o.targetChildren })),
    checkBoard(list) {
      const problem = wholeBoardProblem(list, cells, puzzle.pieces.length, 2);
      if (problem !== null) return { ok: false, reason: problem };
      return accepted(triangleBoardFromPlacements(puzzle.side, list));
    },
    checkModel: (value) => accepted(formula.decode(value)),
    shows,
    score(list) {
      // Inner joins whose two cells are placed and show the same label.
      const at = triangleBoardFromPlacements(puzzle.side, list).cells;
      let score = 0;
      for (let a = 0; a < cells; a++) {
        for (let d = 0; d < 3; d++) {
          const b = triangleNeighbour(puzzle.side, a, d);
          const x = at[a], y = b > a ? at[b] : null;
          if (x && y && placedLabel(puzzle.pieces[x.piece].edges, x.rot, d) === placedLabel(puzzle.pieces[y.piece].edges, y.rot, d)) score++;
        }
      }
      return { score, maxScore: innerJoinCount(puzzle.side) };
    },
    svg: (list, title) => renderTriangleSVG({ ...puzzle, name: title }, triangleBoardFromPlacements(puzzle.side, list)),
  };
}
