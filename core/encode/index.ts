/**
 * Encodings of edge-matching puzzles into CNF, by name. Each takes a Puzzle and EncodeOptions and returns a
 * Formula (clauses, per-section counts, and the VarMap that decodes models and turns placements into
 * literals). Semantics of each encoding: docs/encodings.md.
 */

import { InvalidOptionError } from "../errors.js";
import type { Puzzle } from "../puzzle.js";
import type { Formula } from "./formula.js";
import { encodeHeuleAll, encodeHeuleCompact, encodeHeuleExplicit, encodeHeuleFbcolors } from "./heule.js";
import type { EncodeOptions } from "./options.js";
import { encodeCubistPlacement } from "./placement.js";

export { encodeHeuleAll, encodeHeuleCompact, encodeHeuleExplicit, encodeHeuleFbcolors } from "./heule.js";
export { DEFAULT_ENCODE_OPTIONS, resolveEncodeOptions, variableOrders, identicalModes, amoEncodings } from "./options.js";
export type { AmoEncoding, EncodeOptions, IdenticalPieces, ResolvedEncodeOptions, VariableOrder } from "./options.js";
export { encodeCubistPlacement, resolvePlacementOptions, PLACEMENT_DEFAULTS, type PlacementOptions } from "./placement.js";
export { cellOrder, type CellOrderName } from "./cell-order.js";
export { dimacsChunks, dimacsString, parseDimacs, DimacsSyntaxError, type ParsedDimacs } from "./dimacs.js";
export { ClauseBuffer, type Formula, type VarMap } from "./formula.js";

export { DEFAULT_ENCODING, encodingNames, isEncodingName, type EncodingName } from "./names.js";
import { encodingNames, isEncodingName, type EncodingName } from "./names.js";

const encoders: Record<EncodingName, (puzzle: Puzzle, options?: EncodeOptions) => Formula> = {
  "heule-compact": encodeHeuleCompact,
  "heule-fbcolors": encodeHeuleFbcolors,
  "heule-explicit": encodeHeuleExplicit,
  "heule-all": encodeHeuleAll,
  "cubist-placement": encodeCubistPlacement,
};

/** Encodes `puzzle` with the named encoding; throws InvalidOptionError for an unknown name. */
export function encode(name: string, puzzle: Puzzle, options?: EncodeOptions): Formula {
  if (!isEncodingName(name)) {
    throw new InvalidOptionError("encoding", `unknown encoding '${name}' (known: ${encodingNames.join(", ")})`);
  }
  return encoders[name](puzzle, options);
}
