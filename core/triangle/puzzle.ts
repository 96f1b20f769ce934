/**
 * The triangular board (the Nintai model, seed 001): a triangle of side n cut into n*n unit triangles.
 *
 * Conventions (shared by the format, the search, the encoding and the renderers; the verifier recomputes the
 * geometry on its own):
 * - Row r (0 at the apex, n-1 at the base) holds 2r+1 cells at positions k = 0..2r from the left. Even positions
 *   point up, odd positions point down. Cells are numbered row by row: cell = r*r + k.
 * - Every edge of the board runs in one of three directions: horizontal (H, 0), rising "/" (R, 1) and falling
 *   "\" (F, 2). A cell has exactly one edge of each direction, so a piece lists three labels [H, R, F].
 * - Neighbours: an up cell (r, k) meets (r, k-1) across its R edge, (r, k+1) across its F edge and (r+1, k+1)
 *   across its H edge; a down cell (r, k) meets (r, k-1) across F, (r, k+1) across R and (r-1, k-1) across H.
 *   Joined edges run in the same direction, so a piece fits an up or a down cell alike, labels matched by
 *   direction. Side n has n(n-1)/2 + n(n-1) inner joins (45 for n = 6) and 3n outer edges.
 * - Pieces keep their orientation unless the puzzle allows rotation. A rotation `rot` (0..2) is the number of
 *   clockwise 120-degree turns applied to the piece as listed; a clockwise turn carries H to R, R to F and F to H,
 *   so the placed label in direction d is the listed label (d - rot) mod 3 (the same rule as square pieces).
 * - Outer edges are free, unless the puzzle has a frame label: then every outer edge must show it.
 */

export const H = 0;
export const R = 1;
export const F = 2;
export const DIRECTION_NAMES = ["H", "R", "F"] as const;

/** Labels in direction order: [H, R, F]. */
export type TriangleEdges = readonly [number, number, number];

export interface TrianglePiece {
  /** The id the user knows the piece by (from the input file). */
  readonly id: number;
  readonly edges: TriangleEdges;
}

/** A fixed placement given with the puzzle. */
export interface TriangleHint {
  readonly cell: number;
  /** Index into `puzzle.pieces`. */
  readonly piece: number;
  readonly rot: number;
  /** 1-based line of the hint in its file (0 when it did not come from a file). */
  readonly line?: number;
}

export interface TrianglePuzzle {
  readonly shape: "triangle";
  readonly side: number;
  readonly pieces: readonly TrianglePiece[];
  readonly hints: readonly TriangleHint[];
  /** True when pieces may be turned in 120-degree steps. */
  readonly rotate: boolean;
  /** The label every outer edge must show, or null when outer edges are free. */
  readonly frame: number | null;
  readonly name?: string;
}

/** `cells[cell]` is null where empty. */
export interface TriangleBoard {
  readonly side: number;
  readonly cells: ReadonlyArray<{ readonly piece: number; readonly rot: number } | null>;
}

/** True for a triangle puzzle (square puzzles have rows and cols, no shape). */
export function isTrianglePuzzle(p: object): p is TrianglePuzzle {
  return (p as { shape?: unknown }).shape === "triangle";
}

export const MAX_TRIANGLE_SIDE = 32;
export const MAX_LABEL = 1000;

export function cellCount(side: number): number {
  return side * side;
}

export function cellAt(row: number, pos: number): number {
  return row * row + pos;
}

export function rowOfCell(cell: number): number {
  return Math.floor(Math.sqrt(cell));
}

export function posOfCell(cell: number): number {
  const r = rowOfCell(cell);
  return cell - r * r;
}

export function pointsUp(cell: number): boolean {
  return (posOfCell(cell) & 1) === 0;
}

/** The cell across the edge in direction `dir`, or -1 for an outer edge. */
export function triangleNeighbour(side: number, cell: number, dir: number): number {
  const r = rowOfCell(cell), k = cell - r * r;
  if ((k & 1) === 0) {
    if (dir === H) return r + 1 < side ? cellAt(r + 1, k + 1) : -1;
    if (dir === R) return k > 0 ? cell - 1 : -1;
    return k < 2 * r ? cell + 1 : -1;
  }
  if (dir === H) return cellAt(r - 1, k - 1);
  if (dir === F) return cell - 1;
  return cell + 1;
}

/** The label shown in direction `dir` by a piece with `edges` turned `rot` times clockwise. */
export function placedLabel(edges: TriangleEdges, rot: number, dir: number): number {
  return edges[(dir - rot + 6) % 3];
}

export function rotateTriangleEdges(edges: TriangleEdges, rot: number): TriangleEdges {
  return [placedLabel(edges, rot, 0), placedLabel(edges, rot, 1), placedLabel(edges, rot, 2)];
}

/** The rotations a puzzle allows: [0], or [0, 1, 2]. */
export function allowedRotations(puzzle: Pick<TrianglePuzzle, "rotate">): number[] {
  return puzzle.rotate ? [0, 1, 2] : [0];
}

/** Number of inner joins: n(n-1)/2 horizontal plus n(n-1) within rows. */
export function innerJoinCount(side: number): number {
  return (3 * side * (side - 1)) / 2;
}

/** "(row R, pos K)", 0-based as in the file format. */
export function triangleCellName(cell: number): string {
  return `(row ${rowOfCell(cell)}, pos ${posOfCell(cell)})`;
}

/** The board of a list of placements (cell, piece index, rotation); cells off the board are ignored. */
export function triangleBoardFromPlacements(side: number, placements: ReadonlyArray<{ cell: number; piece: number; rot: number }>): TriangleBoard {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(cellCount(side)).fill(null);
  for (const p of placements) if (p.cell >= 0 && p.cell < cells.length) cells[p.cell] = { piece: p.piece, rot: p.rot };
  return { side, cells };
}

/** The placements of a board's filled cells, in cell order (triangleBoardFromPlacements' inverse). */
export function placementsOfTriangleBoard(board: Pick<TriangleBoard, "cells">): Array<{ cell: number; piece: number; rot: number }> {
  return board.cells.flatMap((c, cell) => (c ? [{ cell, piece: c.piece, rot: c.rot }] : []));
}

export function emptyTriangleBoard(side: number): TriangleBoard {
  return { side, cells: new Array(cellCount(side)).fill(null) };
}
