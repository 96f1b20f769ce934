/**
 * A formula as a cluster run's input (docs/cluster.md "Formula runs"): a DIMACS CNF as it is, or a Sudoku encoded by
 * core/sudoku/encode.ts. The run's encoding names which ("dimacs", "sudoku", "sudoku-redundant") and its puzzle text
 * holds the DIMACS or the Sudoku grid, so that a coordinator and a worker rebuild the same formula from the run's
 * record. A cube of such a run is a list of literals; on the wire (CubeTask placements, verdict boards) a literal
 * travels as a placement: cell v - 1, piece 1 for v true and 0 for v false, rotation 0 (literalPlacement).
 */

import type { Placement } from "../puzzle.js";
import { encodeSudoku } from "../sudoku/encode.js";
import { parseSudoku, writeSudoku } from "../sudoku/format.js";
import type { Sudoku } from "../sudoku/sudoku.js";
import type { Cnf } from "./cnf.js";
import { readDimacs } from "./read-dimacs.js";

/** The encodings of formula runs. */
export const FORMULA_ENCODINGS = ["dimacs", "sudoku", "sudoku-redundant"] as const;
export type FormulaEncoding = (typeof FORMULA_ENCODINGS)[number];

export function isFormulaEncoding(encoding: string): encoding is FormulaEncoding {
  return (FORMULA_ENCODINGS as readonly string[]).includes(encoding);
}

/** A run's formula, with the Sudoku it encodes when it is one. */
export interface FormulaPuzzle {
  readonly shape: "formula";
  readonly encoding: FormulaEncoding;
  readonly cnf: Cnf;
  readonly sudoku?: Sudoku;
  readonly name?: string;
}

export function isFormulaPuzzle(p: object): p is FormulaPuzzle {
  return (p as { shape?: unknown }).shape === "formula";
}

/** The run's formula from its puzzle text and encoding; errors name `file` and the line. */
export function parseFormulaPuzzle(text: string, file: string, encoding: FormulaEncoding): FormulaPuzzle {
  if (encoding === "dimacs") return { shape: "formula", encoding, cnf: readDimacs(Buffer.from(text, "utf8"), file) };
  const sudoku = parseSudoku(text, file);
  return { shape: "formula", encoding, sudoku, cnf: encodeSudoku(sudoku, { redundant: encoding === "sudoku-redundant" }), name: sudoku.name };
}

/** The puzzle text a run keeps: the DIMACS as given, a Sudoku as its canonical grid. */
export function formulaRunText(p: FormulaPuzzle, text: string): string {
  return p.sudoku ? writeSudoku(p.sudoku) : text;
}

/** A literal as a placement (see the module note). */
export function literalPlacement(lit: number): Placement {
  return { cell: Math.abs(lit) - 1, piece: lit > 0 ? 1 : 0, rot: 0 };
}

/** The literal of a placement made by literalPlacement. */
export function placementLiteral(p: Placement): number {
  return p.piece === 1 ? p.cell + 1 : -(p.cell + 1);
}
