/**
 * A run's shape (coordinator/model/shape.ts) from its spec: the puzzle, square or triangle, or a formula, with its base formula encoded
 * as the spec says (none for a run that needs none: `needsFormula`). Used when a run is created and when a restarted
 * coordinator rebuilds it from its ledger.
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
import { isScoreRun } from "./score-slots.js";

/** The shape of a run of `puzzle` (from buildRunSpec, or `spec.puzzleText` parsed again when omitted). */
export function runShapeOf(spec: RunSpec, puzzle?: Puzzle | TrianglePuzzle | FormulaPuzzle): RunShape {
  const label = `<run ${spec.runId}>`;
  const p = puzzle ?? (isFormulaEncoding(spec.encoding) ? parseFormulaPuzzle(spec.puzzleText, label, spec.encoding) : parseAnyPuzzle(spec.puzzleText, label, "canonical"));
  if (isFormulaPuzzle(p)) return formulaShape(p);
  if (isTrianglePuzzle(p)) return triangleShape(p);
  const symmetry = spec.cubing?.cellOrder === "scan" && scanSymmetry(p, { certify: spec.certify, findOne: findsOne(spec) });
  const formula = needsFormula(spec) ? encode(spec.encoding, p, spec.order ? { order: spec.order as VariableOrder } : {}) : null;
  return squareShape(p, formula, { symmetry });
}

/**
 * Whether a run has a base formula: encoded, checked against the size limit and uploaded when it is created, and
 * encoded again when a coordinator rebuilds it. Every run but a score run (square boards only): its slots run the
 * placement engine's score search alone (worker/score-search.ts), with no SAT solver, prover or proof checker to
 * read a formula, and its slots fix no placements to turn into literals.
 */
export function needsFormula(spec: Pick<RunSpec, "solver">): boolean {
  return !isScoreRun(spec);
}

/** A run that looks for one board: not a count, not a score run. */
export function findsOne(spec: Pick<RunSpec, "mode" | "solver">): boolean {
  return spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS && spec.solver?.objective !== "score";
}
