/**
 * A run's shape (coordinator/model/shape.ts) from its spec: the puzzle, square or triangle, or a formula, with its base formula encoded
 * as the spec says. Used when a run is created and when a restarted coordinator rebuilds it from its ledger.
 */

import { scanSymmetry } from "../../core/cubes/scan-split.js";
import { encode, type VariableOrder } from "../../core/encode/index.js";
import { parseAnyPuzzle } from "../../core/formats/index.js";
import type { Puzzle } from "../../core/puzzle.js";
import { isTrianglePuzzle, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { RunMode, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { RunShape } from "./shape.js";
import { isFormulaEncoding, isFormulaPuzzle, parseFormulaPuzzle, type FormulaPuzzle } from "../../core/cnf/run-formula.js";
import { formulaShape } from "./formula-shape.js";
import { squareShape } from "./square-shape.js";
import { triangleShape } from "./triangle-shape.js";

/** The shape of a run of `puzzle` (from buildRunSpec, or `spec.puzzleText` parsed again when omitted). */
export function runShapeOf(spec: RunSpec, puzzle?: Puzzle | TrianglePuzzle | FormulaPuzzle): RunShape {
  const label = `<run ${spec.runId}>`;
  const p = puzzle ?? (isFormulaEncoding(spec.encoding) ? parseFormulaPuzzle(spec.puzzleText, label, spec.encoding) : parseAnyPuzzle(spec.puzzleText, label, "canonical"));
  if (isFormulaPuzzle(p)) return formulaShape(p);
  if (isTrianglePuzzle(p)) return triangleShape(p);
  const symmetry = spec.cubing?.cellOrder === "scan" && scanSymmetry(p, { certify: spec.certify, findOne: findsOne(spec) });
  return squareShape(p, encode(spec.encoding, p, spec.order ? { order: spec.order as VariableOrder } : {}), { symmetry });
}

/** A run that looks for one board: not a count, not a score run. */
export function findsOne(spec: Pick<RunSpec, "mode" | "solver">): boolean {
  return spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS && spec.solver?.objective !== "score";
}
