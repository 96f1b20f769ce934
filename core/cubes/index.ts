/**
 * Cube splitting and placement search (pure: no I/O, no clocks).
 *
 * - `splitCubes` / `streamCubes`: split a puzzle (or a base cube) into cubes with exact weights;
 * - `resplitCube`: the children of one cube;
 * - `searchPlacements`: a complete backtracker to solve, refute or count below fixed placements;
 * - `weightOf`, `exactWeight`, `sumWeights`: cube weights as doubles and exact BigInt fractions.
 * See docs/cubing.md.
 */

export { resplitCube, splitCubes, streamCubes } from "./split.js";
export { hintPlacements, searchPlacements } from "./search.js";
export { addRational, equalRational, exactWeight, sumWeights, weightOf, type Rational } from "./weight.js";
export { staticCellOrder } from "./order.js";
export {
  cellOrders,
  type CellOrder, type Cube, type Expansion, type PruningLevel, type Refuted, type ResplitOptions, type SearchOptions,
  type SearchResult, type SplitEvent, type SplitOptions, type SplitResult, type SplitSolution, type SplitStats,
} from "./types.js";
