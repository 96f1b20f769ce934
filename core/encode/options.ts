/**
 * Options of the encodings. None of them changes which boards are solutions; they change the variable
 * numbering (which CDCL solvers tend to follow, seed 000) and add redundant clauses.
 */

import { InvalidOptionError } from "../errors.js";

/**
 * Variable numbering orders. `paper` is Heule's numbering (x variables piece by piece, each over the
 * cells of its class in the paper's order, then the diamond colours in Figure 2 order). The others
 * number cell by cell in the named order of cells: a cell's x variables (its class's pieces, ascending),
 * then the colours of each of its diamonds (N, E, S, W) not numbered yet. See core/encode/cell-order.ts.
 */
export const variableOrders = ["paper", "row-major", "spiral", "column-major", "diagonal"] as const;
export type VariableOrder = (typeof variableOrders)[number];

/** How cubist-placement treats identical (rotation-equivalent) pieces. See docs/encodings.md. */
export const identicalModes = ["copies", "ordered", "merged"] as const;
export type IdenticalPieces = (typeof identicalModes)[number];

/** At-most-one encodings for "a piece stands on at most one cell" in cubist-placement. */
export const amoEncodings = ["pairwise", "sequential"] as const;
export type AmoEncoding = (typeof amoEncodings)[number];

/** Options of every `encodeX(puzzle, options)`. */
export interface EncodeOptions {
  /** Variable numbering. @default "paper" */
  readonly order?: VariableOrder;
  /**
   * Add the redundant forbidden corner-pair clauses (seed 000): for two diamonds that meet at a corner
   * of a cell, each ordered colour pair that no piece able to sit there shows at that corner is blocked
   * by a binary clause. Counted in section `cornerPairs`. @default false
   */
  readonly cornerPairs?: boolean;
  /**
   * cubist-placement only (the Heule encodings ignore it): identical pieces are `copies` (each its own
   * variables, no symmetry breaking), `ordered` (copies, plus clauses that make the copies occupy cells in
   * increasing cell order) or `merged` (one piece type with one set of variables and an at-most-m counter
   * for its m copies). @default "merged"
   */
  readonly identical?: IdenticalPieces;
  /**
   * cubist-placement only: how "a piece stands on at most one cell" is written: Sinz's sequential counter
   * (which merged units of m > 1 copies always use, as at-most-m) or pairwise. @default "sequential"
   */
  readonly pieceAmo?: AmoEncoding;
  /** cubist-placement only: add the support clauses y(k, c) -> OR of the placements showing c at k. @default true */
  readonly support?: boolean;
  /** cubist-placement only: mirror the numbering of the main variables (v -> V + 1 - v). @default false */
  readonly reverseOrder?: boolean;
}

/** The options with every default filled in. */
export type ResolvedEncodeOptions = Required<Pick<EncodeOptions, "order" | "cornerPairs">>;

export const DEFAULT_ENCODE_OPTIONS: ResolvedEncodeOptions = Object.freeze({ order: "paper", cornerPairs: false });

/** Fills in defaults and checks values; throws InvalidOptionError naming the option. */
export function resolveEncodeOptions(options: EncodeOptions = {}): ResolvedEncodeOptions {
  const order = options.order ?? DEFAULT_ENCODE_OPTIONS.order;
  if (!(variableOrders as readonly string[]).includes(order)) {
    throw new InvalidOptionError("order", `unknown variable order '${String(order)}' (known: ${variableOrders.join(", ")})`);
  }
  const cornerPairs = options.cornerPairs ?? DEFAULT_ENCODE_OPTIONS.cornerPairs;
  if (typeof cornerPairs !== "boolean") {
    throw new InvalidOptionError("cornerPairs", `must be true or false, got ${String(cornerPairs)}`);
  }
  return Object.freeze({ order, cornerPairs });
}
