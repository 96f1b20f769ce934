/**
 * The official Eternity II as the benchmarks search it: the 256 pieces of test/fixtures/eternity2/e2_pieces.txt with
 * the five clue pieces of e2_hints.txt fixed at their official cells (docs/cluster.md "Score runs": the clue rule).
 */

import { readFileSync } from "node:fs";
import { parseE2Hints, readCanonical, withHints } from "../../core/formats/index.js";
import type { Puzzle } from "../../core/puzzle.js";

const FIX = new URL("../../test/fixtures/eternity2/", import.meta.url);

export function officialE2(): Puzzle {
  const bare = readCanonical(readFileSync(new URL("e2_pieces.txt", FIX), "utf8"), "e2_pieces.txt");
  return withHints(bare, parseE2Hints(readFileSync(new URL("e2_hints.txt", FIX), "utf8"), "e2_hints.txt", bare), "e2_hints.txt");
}
