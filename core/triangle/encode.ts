/**
 * The CNF encoding of a triangle puzzle, for Kissat.
 *
 * Variables: one placement variable p(cell, entry) per cell and entry (a piece class in one distinct orientation,
 * classes.ts) that fits the cell (with a frame, the entry shows the frame label on the cell's outer edges).
 * Clauses:
 * - `cells`: every cell holds at least one placement, and at most one (pairwise).
 * - `pieces`: a class stands on at most as many cells as it has copies (pairwise for one copy, else a sequential
 *   counter). With every cell filled and as many pieces as cells, each class is then used exactly.
 * - `match`: across every inner join, a placement needs a placement on the other side that shows its label in
 *   that direction: (not p or OR q), both ways.
 * - `hints`: a unit clause for each hint's placement.
 *
 * Models and boards correspond one to one on the placement variables (one entry per cell is one board), so
 * blocking each model's placement variables enumerates the boards exactly.
 */

import { addPairwiseAmo, addSequentialAtMost } from "../encode/cardinality.js";
import { ClauseBuffer } from "../encode/formula.js";
import { boardFromEntries, buildTriangleClasses, entryOf, type TriangleClasses } from "./classes.js";
import { cellCount, triangleNeighbour, type TriangleBoard, type TrianglePuzzle } from "./puzzle.js";

export interface TriangleFormula {
  readonly numVars: number;
  readonly clauses: ClauseBuffer;
  readonly sections: Readonly<Record<string, number>>;
  /** Placement variables of cell c: cellStart[c] + 1 .. cellStart[c + 1] (variables are numbered from 1). */
  readonly cellStart: Int32Array;
  /** The entry of placement variable v at plEntry[v - 1]. */
  readonly plEntry: Int32Array;
  readonly classes: TriangleClasses;
  /** The board of a model (`value(v)` true when v is true); cells without a true placement stay empty. */
  decode(value: (v: number) => boolean): TriangleBoard;
  /** The clause that excludes the model's board: the negated true placement variables. */
  blockingClause(value: (v: number) => boolean): number[];
  /** The placement variable of `piece` turned by `rot` on `cell` (its entry there), or 0 when it does not fit the cell. */
  placementVar(cell: number, piece: number, rot: number): number;
}

export function encodeTriangle(puzzle: TrianglePuzzle): TriangleFormula {
  const classes = buildTriangleClasses(puzzle);
  const { entryClass, entryLabels } = classes;
  const cells = cellCount(puzzle.side);
  const plEntry: number[] = [];
  const cellStart = new Int32Array(cells + 1);
  for (let cell = 0; cell < cells; cell++) {
    cellStart[cell] = plEntry.length;
    for (let e = 0; e < entryClass.length; e++) {
      let fits = true;
      for (let d = 0; d < 3 && fits; d++) {
        if (triangleNeighbour(puzzle.side, cell, d) < 0 && puzzle.frame !== null) fits = entryLabels[3 * e + d] === puzzle.frame;
      }
      if (fits) plEntry.push(e);
    }
  }
  cellStart[cells] = plEntry.length;
  let numVars = plEntry.length;
  const cb = new ClauseBuffer(1 << 12);
  const sections: Record<string, number> = {};
  const section = (name: string, fn: () => void): void => {
    const before = cb.count;
    fn();
    sections[name] = cb.count - before;
  };
  // A contradiction as two unit clauses on a fresh variable (an empty clause is not valid in every reader).
  const contradiction = (): void => {
    const z = ++numVars;
    cb.add1(z);
    cb.add1(-z);
  };
  const varOf = (cell: number, piece: number, rot: number): number => {
    const e = entryOf(puzzle, classes, piece, rot);
    for (let v = cellStart[cell] + 1; v <= cellStart[cell + 1]; v++) if (plEntry[v - 1] === e) return v;
    return 0;
  };
  const vars = (cell: number): number[] => Array.from({ length: cellStart[cell + 1] - cellStart[cell] }, (_, i) => cellStart[cell] + i + 1);

  section("cells", () => {
    for (let cell = 0; cell < cells; cell++) {
      const list = vars(cell);
      if (list.length > 0) cb.add(list);
      else contradiction();
      addPairwiseAmo(cb, list);
    }
  });
  section("pieces", () => {
    const byClass: number[][] = classes.copies.map(() => []);
    for (let v = 1; v <= plEntry.length; v++) byClass[entryClass[plEntry[v - 1]]].push(v);
    byClass.forEach((list, c) => {
      const m = classes.copies[c].length;
      if (m === 1) addPairwiseAmo(cb, list);
      else addSequentialAtMost(cb, list, m, () => ++numVars);
    });
  });
  section("match", () => {
    for (let a = 0; a < cells; a++) {
      for (let d = 0; d < 3; d++) {
        const b = triangleNeighbour(puzzle.side, a, d);
        if (b < 0) continue;
        for (let v = cellStart[a] + 1; v <= cellStart[a + 1]; v++) {
          const label = entryLabels[3 * plEntry[v - 1] + d];
          const support = [-v];
          for (let w = cellStart[b] + 1; w <= cellStart[b + 1]; w++) if (entryLabels[3 * plEntry[w - 1] + d] === label) support.push(w);
          cb.add(support);
        }
      }
    }
  });
  section("hints", () => {
    for (const h of puzzle.hints) {
      const found = varOf(h.cell, h.piece, h.rot);
      // A hint that does not fit its cell (the frame) was rejected by validation; keep the formula honest anyway.
      if (found === 0) contradiction();
      else cb.add1(found);
    }
  });

  const trueEntries = (value: (v: number) => boolean): Int32Array => {
    const entries = new Int32Array(cells).fill(-1);
    for (let cell = 0; cell < cells; cell++) {
      for (let v = cellStart[cell] + 1; v <= cellStart[cell + 1]; v++) {
        if (value(v)) {
          entries[cell] = plEntry[v - 1];
          break;
        }
      }
    }
    return entries;
  };
  return {
    numVars,
    clauses: cb,
    sections,
    cellStart,
    plEntry: Int32Array.from(plEntry),
    classes,
    decode: (value) => boardFromEntries(puzzle, classes, trueEntries(value)),
    placementVar: varOf,
    blockingClause(value) {
      const out: number[] = [];
      for (let v = 1; v <= plEntry.length; v++) if (value(v)) out.push(-v);
      return out;
    },
  };
}

/** DIMACS text of a formula plus extra clauses. */
export function triangleDimacs(formula: Pick<TriangleFormula, "numVars" | "clauses">, extra: readonly (readonly number[])[] = []): string {
  const lits = formula.clauses;
  const parts: string[] = [`p cnf ${formula.numVars} ${lits.count + extra.length}\n`];
  let line: number[] = [];
  const view = lits.view();
  for (let i = 0; i < view.length; i++) {
    const x = view[i];
    line.push(x);
    if (x === 0) {
      parts.push(line.join(" ") + "\n");
      line = [];
    }
  }
  for (const c of extra) parts.push(c.join(" ") + " 0\n");
  return parts.join("");
}
