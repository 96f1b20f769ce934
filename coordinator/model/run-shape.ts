/**
 * A run's shape (coordinator/model/shape.ts) from its spec: the puzzle, square or triangle, with its base formula encoded
 * as the spec says. Used when a run is created and when a restarted coordinator rebuilds it from its ledger.
 */

import { scanSymmetry } from "../../core/cubes/scan-split.js";
import { encode, type VariableOrder } from "../../core/encode/index.js";
import { parseAnyPuzzle } from "../../core/formats/index.js";
import type { Puzzle } from "../../core/puzzle.js";
import { isTrianglePuzzle, type TrianglePuzzle } from "../../core/triangle/puzzle.js";
import { RunMode, type RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { RunShape } from "./shape.js";
import { squareShape } from "./square-shape.js";
import { triangleShape } from "./triangle-shape.js";

/** The shape of a run of `puzzle` (from buildRunSpec, or `spec.puzzleText` parsed again when omitted). */
export function runShapeOf(spec: RunSpec, puzzle?: Puzzle | TrianglePuzzle): RunShape {
  const p = puzzle ?? parseAnyPuzzle(spec.puzzleText, `<run ${spec.runId}>`, "canonical");
  if (isTrianglePuzzle(p)) return triangleShape(p);
  const symmetry = spec.cubing?.cellOrder === "scan" && scanSymmetry(p, { certify: spec.certify, findOne: findsOne(spec) });
  return squareShape(p, encode(spec.encoding, p, spec.order ? { order: spec.order as VariableOrder } : {}), { symmetry });
}

/** A run that looks for one board: not a count, not a score run. */
export function findsOne(spec: Pick<RunSpec, "mode" | "solver">): boolean {
  return spec.mode !== RunMode.RUN_MODE_ALL_SOLUTIONS && spec.solver?.objective !== "score";
}
