/**
 * The one gate every SAT answer passes before anyone calls it a solution: decode the model with the
 * encoding's variable map, then check the board with the verifier, which shares no code with the encoders.
 * A model that fails is an encoder (or solver) bug; it is reported with the first violated constraint and is
 * never a solution.
 */

import type { VarMap } from "./encode/formula.js";
import type { Board, Puzzle } from "./puzzle.js";
import { verifySolution, type Violation } from "./verify.js";

export type Acceptance =
  | { ok: true; board: Board }
  | { ok: false; board: Board | null; violations: readonly Violation[]; reason: string };

/** Model as a bitset over variables 1..n (bit v-1 of byte (v-1)>>3), as in the Verdict message. */
export function bitsetValue(bits: Uint8Array): (v: number) => boolean {
  return (v) => {
    const i = v - 1;
    const byte = i >> 3;
    return byte < bits.length && (bits[byte] & (1 << (i & 7))) !== 0;
  };
}

/** Model as a 0/1 array indexed by variable (index 0 unused), as runSolver returns it. */
export function arrayValue(model: Uint8Array): (v: number) => boolean {
  return (v) => model[v] === 1;
}

/** Packs a 0/1 model array (index 0 unused) into a bitset over variables 1..n. */
export function modelToBitset(model: Uint8Array): Uint8Array {
  const n = model.length - 1;
  const bits = new Uint8Array((n + 7) >> 3);
  for (let v = 1; v <= n; v++) if (model[v] === 1) bits[(v - 1) >> 3] |= 1 << ((v - 1) & 7);
  return bits;
}

export function acceptModel(puzzle: Puzzle, varMap: VarMap, value: (v: number) => boolean): Acceptance {
  let board: Board;
  try {
    board = varMap.decode(value);
  } catch (err) {
    return { ok: false, board: null, violations: [], reason: `the model does not decode to a board: ${(err as Error).message}` };
  }
  return acceptBoard(puzzle, board);
}

/** Verifies a board that came from elsewhere (a worker's placement search, a user file). */
export function acceptBoard(puzzle: Puzzle, board: Board): Acceptance {
  const result = verifySolution(puzzle, board);
  if (result.ok) return { ok: true, board };
  return { ok: false, board, violations: result.violations, reason: result.violations[0].message };
}
