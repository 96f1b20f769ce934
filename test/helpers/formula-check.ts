/**
 * Checks of an encoding against boards, for tests of core/encode on tiny puzzles: a small DPLL, a board's full
 * assignment by propagation, the clause a board falsifies, and every fitting board of a puzzle.
 */
import { rotateEdges, type Board, type Puzzle } from "../../core/puzzle.js";
import type { Formula } from "../../core/encode/index.js";

export function clausesOf(f: Formula): number[][] {
  const out: number[][] = [];
  f.clauses.forEach((c) => out.push(Array.from(c)));
  return out;
}

/** Unit propagation to a fixpoint on value (1 / -1 / 0 unset); false on a falsified clause. */
function propagate(clauses: readonly number[][], value: Int8Array): boolean {
  for (let changed = true; changed;) {
    changed = false;
    for (const c of clauses) {
      let free = 0, last = 0, sat = false;
      for (const l of c) {
        const v = value[Math.abs(l)];
        if (v === 0) { free++; last = l; } else if (v === Math.sign(l)) { sat = true; break; }
      }
      if (sat) continue;
      if (free === 0) return false;
      if (free === 1) { value[Math.abs(last)] = Math.sign(last); changed = true; }
    }
  }
  return true;
}

/**
 * A small DPLL for tiny formulas: unit propagation to a fixpoint, then branching (true first). Returns a
 * model (value[v] = 1 / -1) or null.
 */
export function dpll(numVars: number, clauses: readonly number[][], units: readonly number[] = []): Int8Array | null {
  const value = new Int8Array(numVars + 1);
  for (const u of units) {
    if (value[Math.abs(u)] === -Math.sign(u)) return null;
    value[Math.abs(u)] = Math.sign(u);
  }
  const search = (val: Int8Array): Int8Array | null => {
    if (!propagate(clauses, val)) return null;
    let v = 1;
    while (v <= numVars && val[v] !== 0) v++;
    if (v > numVars) return val;
    for (const s of [1, -1]) {
      const next = val.slice();
      next[v] = s;
      const r = search(next);
      if (r) return r;
    }
    return null;
  };
  return search(value);
}

/**
 * The full assignment of a board: its placement literals true, then unit propagation (which sets the
 * auxiliary counter variables that are forced), everything else false. Undefined when propagation fails.
 */
export function completeAssignment(f: Formula, board: Board): Int8Array | undefined {
  const units = board.cells.flatMap((c, cell) => f.varMap.placementLiterals({ cell, piece: c!.piece, rot: c!.rot }));
  const clauses = clausesOf(f);
  const value = new Int8Array(f.numVars + 1);
  for (const u of units) value[u] = 1;
  // Everything that is not a placement literal and not auxiliary is false; auxiliaries follow by propagation.
  const aux = new Set<number>();
  for (let v = 1; v <= f.numVars; v++) if (f.varMap.describe(v).startsWith("aux")) aux.add(v);
  for (let v = 1; v <= f.numVars; v++) if (value[v] === 0 && !aux.has(v)) value[v] = -1;
  if (!propagate(clauses, value)) return undefined;
  for (let v = 1; v <= f.numVars; v++) if (value[v] === 0) value[v] = -1;
  return value;
}

export function falsified(f: Formula, value: Int8Array): string | undefined {
  let bad: string | undefined;
  f.clauses.forEach((lits) => {
    if (bad !== undefined) return;
    for (const l of lits) if (value[Math.abs(l)] === Math.sign(l)) return;
    bad = Array.from(lits, (l) => (l < 0 ? "¬" : "") + f.varMap.describe(Math.abs(l))).join(" ∨ ");
  });
  return bad;
}

/** The edges a board shows, cell by cell: equal for two boards that differ only by identical-piece swaps. */
export function shown(puzzle: Puzzle, board: Board): string {
  return board.cells.map((c) => (c ? rotateEdges(puzzle.pieces[c.piece].edges, c.rot).join(",") : "-")).join("|");
}

/** Every board that puts each piece once, in a rotation that fits its cell (placementLiterals accepts it). */
export function* fittingBoards(puzzle: Puzzle, f: Formula): Generator<Board> {
  const n = puzzle.pieces.length;
  const cells: Array<{ piece: number; rot: number } | null> = new Array(n).fill(null);
  const used = new Uint8Array(n);
  function* fill(cell: number): Generator<Board> {
    if (cell === n) {
      yield { rows: puzzle.rows, cols: puzzle.cols, cells: cells.slice() };
      return;
    }
    for (let piece = 0; piece < n; piece++) {
      if (used[piece]) continue;
      for (let rot = 0; rot < 4; rot++) {
        try {
          f.varMap.placementLiterals({ cell, piece, rot });
        } catch {
          continue;
        }
        used[piece] = 1;
        cells[cell] = { piece, rot };
        yield* fill(cell + 1);
        used[piece] = 0;
      }
    }
    cells[cell] = null;
  }
  yield* fill(0);
}
