/**
 * A run's puzzle as the coordinator handles it, whatever the board's shape: square (rows x cols, the C engine,
 * `cubist-placement` and the other square encodings; coordinator/model/square-shape.ts) or triangle (the Nintai model of
 * core/triangle; coordinator/model/triangle-shape.ts). The run model encodes, splits, re-splits, verifies boards and checks
 * counts through this interface only (a formula run's too: any CNF or a Sudoku, coordinator/model/formula-shape.ts), so runs share the ledger, leases, re-splits, counting and
 * everything the API and dashboard show. Pure: no I/O.
 *
 * A board travels as placements, one per cell (`Placement`: cell, piece index, rotation), in the shape's own cell
 * numbering (square: row * cols + col; triangle: row * row + pos) and rotations (square 0..3, triangle 0..2).
 */

import type { Cube, PartProgress } from "../../core/cubes/types.js";
import type { Formula } from "../../core/encode/formula.js";
import type { Placement, Puzzle } from "../../core/puzzle.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";
import type { FormulaPuzzle } from "../../core/cnf/run-formula.js";
import type { CubingSpec } from "../../proto/gen/cubist/v1/run.js";

/** A board the splitter filled: a cube whose placements complete the board, and the whole board's placements. */
export interface SplitBoard extends Cube {
  cells: Placement[];
}

export type ShapeSplitEvent =
  /** The splitter is still at work: the split lets other work run (a breathe effect). */
  | { kind: "progress" }
  | { kind: "cube"; cube: Cube }
  | { kind: "solution"; solution: SplitBoard }
  | { kind: "done"; refuted: { count: number; weight: number } };

export interface ShapeSplit {
  cubes: Cube[];
  solutions: SplitBoard[];
  refuted: { count: number; weight: number };
}

/**
 * A whole board checked by the verifier: its placements in cell order and what each cell shows (its colours or
 * labels as one string: two boards are one solution when these are equal), or why it is not a solution.
 */
export type BoardCheck = { ok: true; cells: Placement[]; shown: string[] } | { ok: false; reason: string };

interface ShapeCommon {
  /** The run's base formula (DIMACS for the SAT solvers, uploaded once); null for a run without one (run-shape.ts needsFormula). */
  readonly formula: Pick<Formula, "numVars" | "clauses"> | null;
  /** Cells of the board. */
  readonly cells: number;
  /** As RunInfo and Solution carry them: rows x cols; a triangle of side n has n rows, the widest of 2n - 1 cells. */
  readonly rows: number;
  readonly cols: number;
  /** The user's piece id of each piece index. */
  readonly pieceIds: readonly number[];
  /** The puzzle's hints as placements. */
  readonly hintPlacements: readonly Placement[];
  /** The unit literals that fix a placement in the base formula (throws without one: nothing of such a run asks). */
  placementLiterals(p: Placement): number[];
  /** The initial split (cubing.cell_order picks the cells), streamed. */
  split(cubing: CubingSpec): Iterable<ShapeSplitEvent>;
  /**
   * A cube's children, `depth` steps below it or until `targetChildren` are open (cell order as the run's).
   * `progress`: how far the cube's own search got (scan cubes): its parts then start there (docs/cubing.md "Resuming").
   */
  resplit(base: Cube, options: { depth: number; targetChildren?: number; cellOrder: string; progress?: PartProgress }): ShapeSplit;
  /** A whole board, from a worker or the splitter, checked by the shape's independent verifier. */
  checkBoard(cells: readonly Placement[]): BoardCheck;
  /** The board a SAT model decodes to, checked. */
  checkModel(value: (v: number) => boolean): BoardCheck;
  /** What a placement's cell shows, in the form of BoardCheck's `shown`. */
  shows(p: Placement): string;
  /** Matched inner edges of a board, complete or partial, and the most there are (the dashboard's board). */
  score(cells: readonly Placement[]): { score: number; maxScore: number };
  /** The board, complete or partial, as an SVG picture. */
  svg(cells: readonly Placement[], title: string): string;
}

export interface SquareShape extends ShapeCommon {
  readonly kind: "square";
  readonly puzzle: Puzzle;
}

export interface TriangleShape extends ShapeCommon {
  readonly kind: "triangle";
  readonly puzzle: TrianglePuzzle;
}

/** A formula run's (coordinator/model/formula-shape.ts): cells are variables, a placement a literal. */
export interface FormulaShape extends ShapeCommon {
  readonly kind: "formula";
  readonly puzzle: FormulaPuzzle;
}

export type RunShape = SquareShape | TriangleShape | FormulaShape;

/** Why `list` is not one placement on every cell with pieces and rotations in range (0..maxRot), or null. */
export function wholeBoardProblem(list: readonly Placement[], cells: number, pieces: number, maxRot: number): string | null {
  if (list.length !== cells) return `a board with ${list.length} placements on ${cells} cells`;
  const seen = new Uint8Array(cells);
  for (const p of list) {
    if (!Number.isInteger(p.cell) || p.cell < 0 || p.cell >= cells || seen[p.cell]) return `cell ${p.cell} out of range or placed twice`;
    if (!Number.isInteger(p.piece) || p.piece < 0 || p.piece >= pieces || !Number.isInteger(p.rot) || p.rot < 0 || p.rot > maxRot) {
      return `placement ${p.cell}:${p.piece}:${p.rot} out of range`;
    }
    seen[p.cell] = 1;
  }
  return null;
}
