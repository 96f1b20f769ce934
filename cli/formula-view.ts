/**
 * A formula run's solutions as the CLI prints them (PuzzleView, cli/puzzle-view.ts): a model arrives as its true
 * variables (placements, core/cnf/run-formula.ts). A DIMACS run's model is printed as `v` lines and as JSON
 * `{"shape":"cnf","vars","model":[literals]}`, checked here against every clause; a Sudoku run's as its grid
 * (`{"shape":"sudoku","size","grid"}`), checked by the Sudoku verifier. Both checks are this side's own, apart from
 * the coordinator's.
 */

import { modelLines, checkModel } from "../core/cnf/check-model.js";
import { isFormulaEncoding, parseFormulaPuzzle, type FormulaPuzzle } from "../core/cnf/run-formula.js";
import { EncoderBugError } from "../core/errors.js";
import { parseAnyPuzzle } from "../core/formats/index.js";
import type { Placement } from "../core/puzzle.js";
import { decodeSudoku } from "../core/sudoku/encode.js";
import { oneLine, writeSudoku } from "../core/sudoku/format.js";
import { renderSudoku } from "../core/sudoku/render.js";
import { verifySudoku } from "../core/sudoku/verify.js";
import { writeOutput } from "./io.js";
import { puzzleView, type PuzzleView } from "./puzzle-view.js";

const stdout = (s: string): void => void process.stdout.write(s);

/** The view of a run's puzzle text under its encoding: a formula's, or a puzzle's. */
export function runPuzzleView(text: string, encoding: string, label: string): PuzzleView {
  return isFormulaEncoding(encoding) ? formulaView(parseFormulaPuzzle(text, label, encoding), text) : puzzleView(parseAnyPuzzle(text, label, "canonical"));
}

function modelOf(p: FormulaPuzzle, cells: readonly Placement[]): Uint8Array {
  const model = new Uint8Array(p.cnf.numVars + 1);
  for (const c of cells) {
    if (c.piece !== 1 || c.cell < 0 || c.cell >= p.cnf.numVars) throw new EncoderBugError(`placement ${c.cell}:${c.piece}:${c.rot} is not a true variable of the formula`);
    model[c.cell + 1] = 1;
  }
  return model;
}

export function formulaView(p: FormulaPuzzle, text: string): PuzzleView {
  const sudoku = p.sudoku;
  if (sudoku) {
    const grid = (cells: readonly Placement[]) => decodeSudoku(sudoku, modelOf(p, cells));
    return {
      shape: "formula", name: p.name, text: writeSudoku(sudoku), size: { shape: "sudoku", size: sudoku.size }, sizeText: `Sudoku ${sudoku.size}x${sudoku.size}`,
      cells: p.cnf.numVars,
      boardJSON: (cells) => {
        const g = grid(cells);
        return Array.from({ length: g.size }, (_, r) => g.cells.slice(r * g.size, (r + 1) * g.size));
      },
      async show(cells, values, out = stdout) {
        out(renderSudoku(grid(cells), { givens: sudoku, color: values.color === true }));
        if (typeof values.svg === "string") await writeOutput(values.svg, `${oneLine(grid(cells))}\n`);
      },
      verify(cells, what) {
        const v = verifySudoku(sudoku, grid(cells));
        if (!v.ok) throw new EncoderBugError(`${what}: ${v.violations[0]}`);
      },
    };
  }
  const n = p.cnf.numVars;
  return {
    shape: "formula", name: p.name, text, size: { shape: "cnf", vars: n }, sizeText: `CNF ${n} variables`,
    cells: n,
    boardJSON: (cells) => {
      const model = modelOf(p, cells);
      return Array.from({ length: n }, (_, i) => (model[i + 1] === 1 ? i + 1 : -(i + 1)));
    },
    async show(cells, _values, out = stdout) {
      out(`s SATISFIABLE\n${modelLines(n, modelOf(p, cells)).join("\n")}\n`);
    },
    verify(cells, what) {
      const c = checkModel(p.cnf, modelOf(p, cells));
      if (!c.ok) throw new EncoderBugError(`${what}: the model falsifies clause ${c.clause + 1}`);
    },
  };
}
