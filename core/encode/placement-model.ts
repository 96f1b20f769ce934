/**
 * The placement model of the cubist-placement encoding: which (piece, rotation) can stand on which cell.
 *
 * - Units. With `identical: "merged"` pieces that are rotations of one another form one unit (a piece type
 *   with `copies.length` copies, represented by its lowest-index piece); otherwise every piece is its own
 *   unit. `offset[i]` is the rotation t with edges(piece i) = edges(representative) turned by t.
 * - Placements. A placement is (cell, unit, orientation): the unit's representative turned by `rot`
 *   clockwise quarter turns. Only placements that fit the cell exist: in a bounded puzzle a corner or border
 *   piece stands on a cell of its class in the one rotation that puts its grey sides on the rim, a centre
 *   piece stands on centre cells in each of its *distinct* orientations (4, or 2 / 1 for rotationally
 *   symmetric pieces; the smallest rotation stands for each distinct edge quadruple). In an unbounded
 *   puzzle every unit stands on every cell in each distinct orientation.
 * - Diamonds. Only the inner diamonds of the Heule layout (layout.ts) carry colours; the rim of an
 *   unbounded puzzle is free and gets no variables. `side[4 * pl + d]` is the colour placement pl shows on
 *   side d where that side has an inner diamond, -1 on the rim.
 */

import { rotatedEdge, type Edges, type Puzzle } from "../puzzle.js";
import { buildLayout, CENTER, type EncodingLayout } from "./layout.js";
import type { IdenticalPieces } from "./options.js";

/** The placements of one puzzle. Arrays are indexed by placement id unless named otherwise. */
export interface PlacementModel {
  readonly layout: EncodingLayout;
  /** Number of units (piece types when merged, else pieces). */
  readonly units: number;
  /** Pieces of each unit, ascending; the first is the representative. */
  readonly copies: readonly (readonly number[])[];
  /** Unit of each piece. */
  readonly unitOf: Int32Array;
  /** Rotation t of each piece relative to its unit's representative: edges(i) = rotate(edges(rep), t). */
  readonly offset: Int8Array;
  /**
   * Groups of two or more identical pieces that are separate units (ascending piece = unit indices): empty
   * when merged, since identical pieces then share a unit.
   */
  readonly twins: readonly (readonly number[])[];
  /** Number of placements. */
  readonly count: number;
  readonly plCell: Int32Array;
  readonly plUnit: Int32Array;
  /** Rotation of the representative (the smallest of equal orientations). */
  readonly plRot: Int8Array;
  /** Colour on side d at [4 pl + d], -1 where the side has no inner diamond. */
  readonly side: Int32Array;
  /** Placements of cell c are cellStart[c] .. cellStart[c+1]-1, grouped by unit (ascending), then rotation. */
  readonly cellStart: Int32Array;
  /** Inner diamonds (colour-carrying): 0 .. innerDiamonds-1 of the layout. */
  readonly diamonds: number;
}

/** The smallest r with rotate(a, r) = b, or -1. */
export function rotationBetween(a: Edges, b: Edges): number {
  for (let r = 0; r < 4; r++) {
    if (rotatedEdge(a, r, 0) === b[0] && rotatedEdge(a, r, 1) === b[1] && rotatedEdge(a, r, 2) === b[2] && rotatedEdge(a, r, 3) === b[3]) return r;
  }
  return -1;
}

/** The distinct orientations of a piece: r such that no smaller r' shows the same edges. */
export function distinctRotations(edges: Edges): number[] {
  const out: number[] = [];
  for (let r = 0; r < 4; r++) {
    let dup = false;
    for (const s of out) {
      let same = true;
      for (let d = 0; d < 4 && same; d++) same = rotatedEdge(edges, r, d) === rotatedEdge(edges, s, d);
      if (same) dup = true;
    }
    if (!dup) out.push(r);
  }
  return out;
}

interface Units {
  copies: number[][];
  unitOf: Int32Array;
  offset: Int8Array;
  twins: number[][];
}

function groupUnits(puzzle: Puzzle, layout: EncodingLayout, merge: boolean): Units {
  const n = puzzle.pieces.length;
  const unitOf = new Int32Array(n).fill(-1);
  const offset = new Int8Array(n);
  const copies: number[][] = [];
  const byKey = new Map<string, number>();
  const groups = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const e = puzzle.pieces[i].edges;
    // The lexicographically smallest rotation names the equivalence class (within the piece class).
    let key = "";
    for (let r = 0; r < 4; r++) {
      const k = `${layout.pieceClass[i]}:${rotatedEdge(e, r, 0)},${rotatedEdge(e, r, 1)},${rotatedEdge(e, r, 2)},${rotatedEdge(e, r, 3)}`;
      if (key === "" || k < key) key = k;
    }
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
    if (merge) {
      const u = byKey.get(key);
      if (u !== undefined) {
        unitOf[i] = u;
        const t = rotationBetween(puzzle.pieces[copies[u][0]].edges, e);
        if (t < 0) throw new Error("unreachable: equivalent pieces without a rotation between them");
        offset[i] = t;
        copies[u].push(i);
        continue;
      }
      byKey.set(key, copies.length);
    }
    unitOf[i] = copies.length;
    copies.push([i]);
  }
  const twins = merge ? [] : [...groups.values()].filter((g) => g.length > 1);
  return { copies, unitOf, offset, twins };
}

/** Builds the placement model; throws InvalidPuzzleError (from the layout) when the pieces do not fit the board. */
export function buildPlacementModel(puzzle: Puzzle, identical: IdenticalPieces): PlacementModel {
  const layout = buildLayout(puzzle);
  const { cells, cellClass, pieceClass, cellDia, innerDiamonds } = layout;
  const { copies, unitOf, offset, twins } = groupUnits(puzzle, layout, identical === "merged");
  const classUnits: number[][] = [[], [], []];
  copies.forEach((list, u) => classUnits[pieceClass[list[0]]].push(u));
  const orientations = copies.map((list) => distinctRotations(puzzle.pieces[list[0]].edges));

  const plCell: number[] = [], plUnit: number[] = [], plRot: number[] = [], side: number[] = [];
  const cellStart = new Int32Array(cells + 1);
  for (let cell = 0; cell < cells; cell++) {
    cellStart[cell] = plCell.length;
    const klass = cellClass[cell];
    for (const u of classUnits[klass]) {
      const rep = copies[u][0];
      const rots = layout.bounded && klass !== CENTER ? [layout.rimRotation(rep, cell)] : orientations[u];
      for (const r of rots) {
        plCell.push(cell);
        plUnit.push(u);
        plRot.push(r);
        for (let d = 0; d < 4; d++) {
          const k = cellDia[cell * 4 + d];
          side.push(k >= 0 && k < innerDiamonds ? rotatedEdge(puzzle.pieces[rep].edges, r, d) : -1);
        }
      }
    }
  }
  cellStart[cells] = plCell.length;
  return {
    layout,
    units: copies.length,
    copies,
    unitOf,
    offset,
    twins,
    count: plCell.length,
    plCell: Int32Array.from(plCell),
    plUnit: Int32Array.from(plUnit),
    plRot: Int8Array.from(plRot),
    side: Int32Array.from(side),
    cellStart,
    diamonds: innerDiamonds,
  };
}
