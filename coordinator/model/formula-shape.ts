/**
 * The formula shape of a run (coordinator/model/shape.ts; docs/cluster.md "Formula runs"): any DIMACS CNF, or a Sudoku
 * encoded to CNF (core/cnf/run-formula.ts). Split by the lookahead cuber (core/cnf/lookahead.ts): a cube is the
 * decision literals of a leaf, each literal a placement (cell v - 1, piece 1 true / 0 false), every decision a
 * branching of 2, so the weights are exact and the leaves (cubes and the refuted ones) sum to what was split. A
 * stuck cube is re-split by a deeper lookahead below its literals. A model is checked by core/cnf/check-model.ts
 * (a DIMACS formula) or decoded and checked by the Sudoku verifier (a Sudoku), neither shared with Kissat or the
 * cuber. A "board" is the model's true variables as placements.
 */

import { checkModel } from "../../core/cnf/check-model.js";
import { checkCoverage } from "../../core/cnf/coverage.js";
import { splitByLookahead, type CubeSplit } from "../../core/cnf/lookahead.js";
import { literalPlacement, placementLiteral, type FormulaPuzzle } from "../../core/cnf/run-formula.js";
import type { Cube } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import { decodeSudoku } from "../../core/sudoku/encode.js";
import { oneLine } from "../../core/sudoku/format.js";
import { verifySudoku } from "../../core/sudoku/verify.js";
import { escapeXml } from "../../core/render/svg.js";
import type { BoardCheck, FormulaShape, ShapeSplit, ShapeSplitEvent } from "./shape.js";

/** The lookahead depth for `targetCubes` cubes: log2 of it, rounded up (the refuted leaves make fewer). */
export function formulaDepth(targetCubes: number, maxDepth: number): number {
  return maxDepth > 0 ? Math.min(maxDepth, 30) : Math.min(30, Math.max(1, Math.ceil(Math.log2(Math.max(2, targetCubes)))));
}

/** The leaves of `split` below `base` as cubes and the refuted weight (a cuber bug is an error, not a wrong UNSAT). */
function cubesOf(split: CubeSplit, base: Cube): ShapeSplit {
  if (!checkCoverage([...split.cubes, ...split.refuted])) throw new Error("the lookahead's cubes do not cover the space (a cuber bug)");
  const child = (path: readonly number[]): Cube => ({
    placements: [...base.placements, ...path.map(literalPlacement)],
    branching: [...base.branching, ...path.map(() => 2)],
    weight: base.weight / 2 ** path.length,
  });
  const refuted = split.refuted.reduce((w, path) => w + base.weight / 2 ** path.length, 0);
  return { cubes: split.cubes.map(child), solutions: [], refuted: { count: split.refuted.length, weight: refuted } };
}

/** The formula shape of `puzzle`. */
export function formulaShape(puzzle: FormulaPuzzle): FormulaShape {
  const { cnf, sudoku } = puzzle;
  const numVars = cnf.numVars;
  const checked = (model: Uint8Array): BoardCheck => {
    if (sudoku) {
      const grid = decodeSudoku(sudoku, model);
      const v = verifySudoku(sudoku, grid);
      if (!v.ok) return { ok: false, reason: `the grid is not a solution: ${v.violations[0]}` };
    } else {
      const c = checkModel(cnf, model);
      if (!c.ok) return { ok: false, reason: `the model falsifies clause ${c.clause + 1} (${c.literals.slice(0, 8).join(" ")} 0)` };
    }
    const cells: Placement[] = [];
    for (let v = 1; v <= numVars; v++) if (model[v] === 1) cells.push(literalPlacement(v));
    return { ok: true, cells, shown: cells.map((p) => String(p.cell + 1)) };
  };
  return {
    kind: "formula",
    puzzle,
    formula: cnf,
    cells: numVars,
    rows: sudoku ? sudoku.size : 1,
    cols: sudoku ? sudoku.size : numVars,
    pieceIds: [0, 1],
    hintPlacements: [],
    placementLiterals: (p) => [placementLiteral(p)],
    *split(c): Generator<ShapeSplitEvent> {
      const split = cubesOf(splitByLookahead(cnf, { maxDepth: formulaDepth(c.targetCubes, c.maxDepth) }), { placements: [], branching: [], weight: 1 });
      for (const cube of split.cubes) yield { kind: "cube", cube };
      yield { kind: "done", refuted: split.refuted };
    },
    resplit(base, o) {
      const depth = o.targetChildren ? formulaDepth(o.targetChildren, 0) : Math.max(1, o.depth);
      return cubesOf(splitByLookahead(cnf, { maxDepth: depth, under: base.placements.map(placementLiteral) }), base);
    },
    checkBoard(list) {
      const model = new Uint8Array(numVars + 1);
      for (const p of list) {
        if (!Number.isInteger(p.cell) || p.cell < 0 || p.cell >= numVars || p.piece !== 1 || p.rot !== 0) return { ok: false, reason: `placement ${p.cell}:${p.piece}:${p.rot} is not a true variable` };
        model[p.cell + 1] = 1;
      }
      return checked(model);
    },
    checkModel(value) {
      const model = new Uint8Array(numVars + 1);
      for (let v = 1; v <= numVars; v++) model[v] = value(v) ? 1 : 0;
      return checked(model);
    },
    shows: (p) => String(p.cell + 1),
    score: (list) => ({ score: list.length, maxScore: numVars }),
    svg: (list, title) => formulaSVG(puzzle, list, title),
  };
}

/** A Sudoku's grid (a solution's digits, else the givens), or a formula's count of true variables, as SVG. */
function formulaSVG(puzzle: FormulaPuzzle, list: readonly Placement[], title: string): string {
  const lines: string[] = [];
  if (puzzle.sudoku) {
    const model = new Uint8Array(puzzle.cnf.numVars + 1);
    for (const p of list) model[p.cell + 1] = 1;
    const grid = list.length > 0 ? decodeSudoku(puzzle.sudoku, model) : puzzle.sudoku;
    const line = oneLine(grid), n = grid.size;
    for (let r = 0; r < n; r++) lines.push(line.slice(r * n, (r + 1) * n).split("").join(" "));
  } else {
    lines.push(`${list.length} of ${puzzle.cnf.numVars} variables true`);
  }
  const height = 24 * (lines.length + 2);
  const width = Math.max(240, 12 * Math.max(title.length, ...lines.map((l) => l.length)));
  const text = [title, "", ...lines].map((l, i) => `<text x="8" y="${24 * (i + 1)}">${escapeXml(l)}</text>`).join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="16">${text}</svg>`;
}
