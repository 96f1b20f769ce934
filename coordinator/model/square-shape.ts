/**
 * The square shape of a run (coordinator/model/shape.ts): rows x cols boards, split by core/cubes (or along the engine's
 * scan, cell order "scan"), encoded by the run's encoding, every board checked by core/verify.ts.
 */

import { acceptBoard } from "../../core/accept.js";
import { partsOf, resplitPart } from "../../core/cubes/parts.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { hintPlacements } from "../../core/cubes/search.js";
import { resplitCube, streamCubes } from "../../core/cubes/split.js";
import type { CellOrder, SplitResult } from "../../core/cubes/types.js";
import type { Formula } from "../../core/encode/formula.js";
import { boardFromPlacements, placementsOfBoard, rotateEdges, type Board, type Puzzle } from "../../core/puzzle.js";
import { renderSVG } from "../../core/render/index.js";
import { innerEdgeCount, scoreBoard } from "../../core/verify.js";
import { CUBE_PART_DEPTH } from "./run-defaults.js";
import { wholeBoardProblem, type BoardCheck, type ShapeSplit, type ShapeSplitEvent, type SquareShape } from "./shape.js";

function accepted(puzzle: Puzzle, board: Board): BoardCheck {
  const a = acceptBoard(puzzle, board);
  if (!a.ok) return { ok: false, reason: a.reason };
  return { ok: true, cells: placementsOfBoard(a.board), shown: a.board.cells.map((c) => rotateEdges(puzzle.pieces[c!.piece].edges, c!.rot).join(".")) };
}

function withCells(r: SplitResult): ShapeSplit {
  return { cubes: r.cubes, solutions: r.solutions.map((s) => ({ ...s, cells: placementsOfBoard(s.board) })), refuted: r.refuted };
}

/**
 * The square shape of `puzzle`, with its base formula already encoded, or none (a score run: run-shape.ts
 * needsFormula), where nothing asks for literals or decodes a model. `symmetry`: scan cubes follow the engine's
 * `--symmetry` scan (core/cubes/scan-split.ts scanSymmetry says when a run may).
 */
export function squareShape(puzzle: Puzzle, formula: Formula | null, options: { symmetry?: boolean } = {}): SquareShape {
  const symmetry = options.symmetry ?? false;
  const cells = puzzle.rows * puzzle.cols;
  return {
    kind: "square",
    puzzle,
    formula,
    cells,
    rows: puzzle.rows,
    cols: puzzle.cols,
    pieceIds: puzzle.pieces.map((p) => p.id),
    hintPlacements: hintPlacements(puzzle),
    placementLiterals(p) {
      if (!formula) throw new Error("a run without a base formula has no literals");
      return formula.varMap.placementLiterals(p);
    },
    *split(c): Generator<ShapeSplitEvent> {
      const maxDepth = c.maxDepth > 0 ? c.maxDepth : undefined;
      if (c.cellOrder === "scan") {
        // The engine's scan: cubes in scan order (docs/cubing.md "Scan cubes"), each as c.parts parts side by side
        // ("Cube parts").
        const r = withCells(scanSplit(puzzle, { targetCubes: c.targetCubes, maxDepth, symmetry }));
        for (const solution of r.solutions) yield { kind: "solution", solution };
        for (const cube of r.cubes) for (const part of partsOf(cube, c.parts ?? 0, CUBE_PART_DEPTH)) yield { kind: "cube", cube: part };
        yield { kind: "done", refuted: r.refuted };
        return;
      }
      for (const ev of streamCubes(puzzle, { targetCubes: c.targetCubes, maxDepth, cellOrder: c.cellOrder as CellOrder, pruning: "full" })) {
        if (ev.kind === "cube") yield ev;
        else if (ev.kind === "progress") yield { kind: "progress" };
        else if (ev.kind === "solution") yield { kind: "solution", solution: { ...ev.solution, cells: placementsOfBoard(ev.solution.board) } };
        else yield { kind: "done", refuted: { count: ev.refuted.count, weight: ev.refuted.weight } };
      }
    },
    resplit(base, o) {
      // A part splits into parts of itself (exact); scan cubes split along the scan; the others by the run's cell order.
      // Where the search stopped by its budget said how far it got, the children are parts that start there: a part's
      // own, or a whole cube's at the depth its search numbered (docs/cubing.md "Resuming").
      const ways = o.targetChildren ?? 2 ** o.depth;
      if (base.part) return { cubes: resplitPart(base, ways, o.progress), solutions: [], refuted: { count: 0, weight: 0 } };
      if (o.cellOrder === "scan" && o.progress && o.progress.next > 0) {
        return { cubes: partsOf(base, Math.max(2, ways), o.progress.depth, o.progress.next), solutions: [], refuted: { count: 0, weight: 0 } };
      }
      return withCells(o.cellOrder === "scan"
        ? scanSplit(puzzle, { base, targetCubes: o.targetChildren ?? Infinity, maxDepth: o.targetChildren ? undefined : o.depth, symmetry })
        : resplitCube(puzzle, base, { depth: o.depth, targetChildren: o.targetChildren, cellOrder: o.cellOrder as CellOrder }));
    },
    checkBoard(list) {
      const problem = wholeBoardProblem(list, cells, puzzle.pieces.length, 3);
      if (problem !== null) return { ok: false, reason: problem };
      return accepted(puzzle, boardFromPlacements(puzzle, list));
    },
    checkModel(value) {
      if (!formula) return { ok: false, reason: "a run without a base formula takes boards, not models" };
      let board: Board;
      try {
        board = formula.varMap.decode(value);
      } catch (err) {
        return { ok: false, reason: `the model does not decode to a board: ${(err as Error).message}` };
      }
      return accepted(puzzle, board);
    },
    shows: (p) => rotateEdges(puzzle.pieces[p.piece].edges, p.rot).join("."),
    score(list) {
      return { score: scoreBoard(puzzle, boardFromPlacements(puzzle, list)), maxScore: innerEdgeCount(puzzle) };
    },
    svg: (list, title) => renderSVG(puzzle, boardFromPlacements(puzzle, list), { title }),
  };
}
