/**
 * Board size inference for formats without a size header (Heule's, headerless canonical files):
 * a bounded puzzle has 4 corner pieces, 2(r-2)+2(c-2) border pieces and r*c pieces in all; the
 * solution with rows <= cols is chosen. An unbounded puzzle (no grey) must have a square number of pieces.
 */

import { InvalidPuzzleError } from "../errors.js";
import { countPieceKinds, type Piece } from "../puzzle.js";

/**
 * Infers rows x cols (rows <= cols) from piece kinds: 4 corners, 2(r-2)+2(c-2) border pieces, r*c pieces.
 * A puzzle without grey must have a square number of pieces.
 */
export function inferBoardSize(pieces: readonly Piece[], file: string): { rows: number; cols: number } {
  const n = pieces.length;
  const bounded = pieces.some((p) => p.edges.includes(0));
  if (!bounded) {
    const side = Math.round(Math.sqrt(n));
    if (side >= 2 && side * side === n) return { rows: side, cols: side };
    throw new InvalidPuzzleError(
      file, 0, `cannot infer the board size: ${n} pieces without grey is not a square number (use the canonical format)`,
    );
  }
  const { corners, borders } = countPieceKinds(pieces);
  if (corners !== 4) {
    throw new InvalidPuzzleError(
      file, 0, `found ${corners} corner pieces (2 grey sides), a bounded board needs exactly 4`,
    );
  }
  // r + c = borders/2 + 4 and r * c = n.
  if (borders % 2 === 0) {
    const sum = borders / 2 + 4;
    for (let rows = 2; rows * 2 <= sum; rows++) {
      const cols = sum - rows;
      if (rows * cols === n) return { rows, cols };
    }
  }
  throw new InvalidPuzzleError(
    file, 0, `no rectangular board fits ${n} pieces with 4 corner and ${borders} border pieces`,
  );
}
