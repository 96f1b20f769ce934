/**
 * Piece classes of a triangle puzzle, shared by the placement search and the CNF encoding.
 *
 * A solution is a board: the labels each cell shows. Copies of identical pieces (identical up to the allowed
 * rotations) are interchangeable, so they form one class with a multiplicity; a class stands on a cell in each of
 * its *distinct* orientations (an entry), so a symmetric piece's equal rotations are one board. Distinct entries
 * show distinct label triples, hence a sequence of entries, one per cell, is exactly one board.
 */

import { allowedRotations, placedLabel, type TriangleBoard, type TrianglePuzzle } from "./puzzle.js";

export interface TriangleClasses {
  /** Pieces of each class, ascending; the first is the representative. */
  readonly copies: readonly (readonly number[])[];
  readonly classOf: Int32Array;
  /** offset[i]: the rotation t with edges(i) = edges(representative) turned by t. */
  readonly offset: Int8Array;
  /** Entries: a class in one distinct orientation (the representative turned by entryRot). */
  readonly entryClass: Int32Array;
  readonly entryRot: Int8Array;
  /** Labels of entry e at [3 e + d]. */
  readonly entryLabels: Int32Array;
  /** Entries of class c: classEntries[c]. */
  readonly classEntries: readonly (readonly number[])[];
}

export function buildTriangleClasses(puzzle: TrianglePuzzle): TriangleClasses {
  const rots = allowedRotations(puzzle);
  const n = puzzle.pieces.length;
  const classOf = new Int32Array(n);
  const offset = new Int8Array(n);
  const copies: number[][] = [];
  const byKey = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const e = puzzle.pieces[i].edges;
    let found = -1, t = 0;
    for (const r of rots) {
      const c = byKey.get(`${placedLabel(e, r, 0)},${placedLabel(e, r, 1)},${placedLabel(e, r, 2)}`);
      if (c !== undefined) {
        found = c;
        // edges(i) turned by r = representative, so edges(i) = representative turned by -r.
        t = (3 - r) % 3;
        break;
      }
    }
    if (found >= 0) {
      classOf[i] = found;
      offset[i] = t;
      copies[found].push(i);
      continue;
    }
    classOf[i] = copies.length;
    byKey.set(`${e[0]},${e[1]},${e[2]}`, copies.length);
    copies.push([i]);
  }
  const entryClass: number[] = [], entryRot: number[] = [], entryLabels: number[] = [];
  const classEntries: number[][] = [];
  copies.forEach((list, c) => {
    const e = puzzle.pieces[list[0]].edges;
    const seen = new Set<string>();
    classEntries.push([]);
    for (const r of rots) {
      const key = `${placedLabel(e, r, 0)},${placedLabel(e, r, 1)},${placedLabel(e, r, 2)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      classEntries[c].push(entryClass.length);
      entryClass.push(c);
      entryRot.push(r);
      for (let d = 0; d < 3; d++) entryLabels.push(placedLabel(e, r, d));
    }
  });
  return {
    copies, classOf, offset,
    entryClass: Int32Array.from(entryClass),
    entryRot: Int8Array.from(entryRot),
    entryLabels: Int32Array.from(entryLabels),
    classEntries,
  };
}

/** The entry that shows what `piece` turned by `rot` shows. */
export function entryOf(puzzle: TrianglePuzzle, classes: TriangleClasses, piece: number, rot: number): number {
  const edges = puzzle.pieces[piece].edges;
  const { entryLabels } = classes;
  for (const e of classes.classEntries[classes.classOf[piece]]) {
    let same = true;
    for (let d = 0; d < 3 && same; d++) same = entryLabels[3 * e + d] === placedLabel(edges, rot, d);
    if (same) return e;
  }
  throw new Error(`unreachable: no entry for piece ${piece} rotation ${rot}`);
}

/**
 * The board of one entry per cell (-1 where empty): each class hands out its copies, first each hint's own piece
 * to its hint cell, then the other copies in increasing index to its other cells in increasing cell order.
 */
export function boardFromEntries(puzzle: TrianglePuzzle, classes: TriangleClasses, entries: ArrayLike<number>): TriangleBoard {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(entries.length).fill(null);
  const used = new Uint8Array(puzzle.pieces.length);
  const give = (cell: number, piece: number): void => {
    used[piece] = 1;
    const e = entries[cell];
    cells[cell] = { piece, rot: (classes.entryRot[e] - classes.offset[piece] + 3) % 3 };
  };
  for (const h of puzzle.hints) {
    const e = entries[h.cell];
    if (e >= 0 && classes.entryClass[e] === classes.classOf[h.piece] && !used[h.piece]) give(h.cell, h.piece);
  }
  const next = new Int32Array(classes.copies.length);
  for (let cell = 0; cell < entries.length; cell++) {
    const e = entries[cell];
    if (e < 0 || cells[cell] !== null) continue;
    const c = classes.entryClass[e];
    const list = classes.copies[c];
    while (next[c] < list.length && used[list[next[c]]]) next[c]++;
    give(cell, next[c] < list.length ? list[next[c]] : list[0]);
  }
  return { side: Math.round(Math.sqrt(entries.length)), cells };
}
