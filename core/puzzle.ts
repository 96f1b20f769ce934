/**
 * The puzzle model: a rectangular edge-matching puzzle.
 *
 * Conventions used everywhere in Cubist:
 * - A piece lists its colours clockwise from the top: N, E, S, W. Colour 0 is the grey rim colour.
 * - A rotation `rot` (0..3) is the number of clockwise quarter turns applied to the piece as listed.
 *   After one turn the placed (N, E, S, W) is the listed (W, N, E, S): placed[d] = listed[(d - rot) mod 4].
 * - Cells are numbered row-major from the top-left: cell = row * cols + col, row 0 at the top.
 * - Pieces are addressed internally by their index in `puzzle.pieces` (0-based); `piece.id` is the
 *   user-facing id from the input file (1-based line order where the format has none).
 * - A puzzle is bounded when it has grey (the rim must be all grey and only the rim), unbounded when no
 *   piece has grey (any piece anywhere, any rotation).
 */

export const NORTH = 0;
export const EAST = 1;
export const SOUTH = 2;
export const WEST = 3;
export type Direction = 0 | 1 | 2 | 3;

/** Colour index; 0 is the grey rim colour of bounded puzzles. */
export type Colour = number;

/** Four colours, clockwise from the top: [N, E, S, W]. */
export type Edges = readonly [Colour, Colour, Colour, Colour];

export interface Piece {
  /** The id the user knows the piece by (from the input file). */
  readonly id: number;
  /** Colours as listed in the input, clockwise from the top. */
  readonly edges: Edges;
}

/** A fixed placement given with the puzzle (a clue, a hint). */
export interface Hint {
  readonly row: number;
  readonly col: number;
  /** Index into `puzzle.pieces`. */
  readonly piece: number;
  /** Clockwise quarter turns applied to the listed piece. */
  readonly rot: number;
}

export interface Puzzle {
  readonly rows: number;
  readonly cols: number;
  readonly pieces: readonly Piece[];
  readonly hints: readonly Hint[];
  /** Optional human name (file name, generator parameters). */
  readonly name?: string;
}

/** One piece on one cell with one rotation. */
export interface Placement {
  readonly cell: number;
  /** Index into `puzzle.pieces`. */
  readonly piece: number;
  readonly rot: number;
}

/** A (possibly partial) assignment of pieces to cells; `cells[cell]` is null where empty. */
export interface Board {
  readonly rows: number;
  readonly cols: number;
  readonly cells: ReadonlyArray<{ readonly piece: number; readonly rot: number } | null>;
}

/** Colour on side `dir` of `piece` after `rot` clockwise quarter turns. */
export function rotatedEdge(edges: Edges, rot: number, dir: number): Colour {
  return edges[(dir - rot + 8) & 3];
}

/** All four placed colours of a piece after `rot` clockwise quarter turns. */
export function rotateEdges(edges: Edges, rot: number): Edges {
  return [
    rotatedEdge(edges, rot, 0),
    rotatedEdge(edges, rot, 1),
    rotatedEdge(edges, rot, 2),
    rotatedEdge(edges, rot, 3),
  ];
}

export function cellOf(puzzle: { cols: number }, row: number, col: number): number {
  return row * puzzle.cols + col;
}

export function rowOf(puzzle: { cols: number }, cell: number): number {
  return Math.floor(cell / puzzle.cols);
}

export function colOf(puzzle: { cols: number }, cell: number): number {
  return cell % puzzle.cols;
}

/** True when some piece has a grey (0) side: the rim must be grey. */
export function isBounded(puzzle: Pick<Puzzle, "pieces">): boolean {
  return puzzle.pieces.some((p) => p.edges.includes(0));
}

export type CellKind = "corner" | "border" | "center";
export type PieceKind = "corner" | "border" | "center";

/**
 * Kind of a cell for a bounded puzzle. Boards with a single row or column have no proper
 * corner/border distinction; Cubist requires rows, cols >= 2 (checked by validation).
 */
export function cellKind(puzzle: { rows: number; cols: number }, cell: number): CellKind {
  const r = Math.floor(cell / puzzle.cols);
  const c = cell % puzzle.cols;
  const top = r === 0, bottom = r === puzzle.rows - 1, left = c === 0, right = c === puzzle.cols - 1;
  const rim = (top ? 1 : 0) + (bottom ? 1 : 0) + (left ? 1 : 0) + (right ? 1 : 0);
  if (rim >= 2) return "corner";
  if (rim === 1) return "border";
  return "center";
}

/** Number of grey sides: 2 corner, 1 border, 0 center. */
export function pieceKind(piece: Piece): PieceKind {
  let grey = 0;
  for (const c of piece.edges) if (c === 0) grey++;
  return grey >= 2 ? "corner" : grey === 1 ? "border" : "center";
}

/** How many corner (two grey sides) and border (one grey side) pieces a piece list holds. */
export function countPieceKinds(pieces: readonly Piece[]): { corners: number; borders: number } {
  let corners = 0, borders = 0;
  for (const p of pieces) {
    const kind = pieceKind(p);
    if (kind === "corner") corners++;
    else if (kind === "border") borders++;
  }
  return { corners, borders };
}

/** The sides of a cell that lie on the rim (must be grey in a bounded puzzle). */
export function rimSides(puzzle: { rows: number; cols: number }, cell: number): boolean[] {
  const r = Math.floor(cell / puzzle.cols);
  const c = cell % puzzle.cols;
  return [r === 0, c === puzzle.cols - 1, r === puzzle.rows - 1, c === 0];
}

/**
 * Neighbour of `cell` across side `dir`, or -1 at the rim.
 */
export function neighbour(puzzle: { rows: number; cols: number }, cell: number, dir: number): number {
  const r = Math.floor(cell / puzzle.cols);
  const c = cell % puzzle.cols;
  switch (dir) {
    case NORTH: return r > 0 ? cell - puzzle.cols : -1;
    case EAST: return c < puzzle.cols - 1 ? cell + 1 : -1;
    case SOUTH: return r < puzzle.rows - 1 ? cell + puzzle.cols : -1;
    default: return c > 0 ? cell - 1 : -1;
  }
}

/** Largest colour index used by any piece. */
export function maxColour(puzzle: Pick<Puzzle, "pieces">): number {
  let m = 0;
  for (const p of puzzle.pieces) for (const c of p.edges) if (c > m) m = c;
  return m;
}

/** Two pieces are equivalent when one is a rotation of the other. */
export function equivalentPieces(a: Edges, b: Edges): boolean {
  for (let r = 0; r < 4; r++) {
    if (a[0] === b[r & 3] && a[1] === b[(r + 1) & 3] && a[2] === b[(r + 2) & 3] && a[3] === b[(r + 3) & 3]) {
      return true;
    }
  }
  return false;
}

/** The board from a list of placements (later placements win). */
export function boardFromPlacements(puzzle: { rows: number; cols: number }, placements: readonly Placement[]): Board {
  const cells: Array<{ piece: number; rot: number } | null> = new Array(puzzle.rows * puzzle.cols).fill(null);
  for (const p of placements) cells[p.cell] = { piece: p.piece, rot: p.rot };
  return { rows: puzzle.rows, cols: puzzle.cols, cells };
}

/** The placements of a board's filled cells, in cell order (boardFromPlacements' inverse). */
export function placementsOfBoard(board: Board): Placement[] {
  return board.cells.flatMap((c, cell) => (c ? [{ cell, piece: c.piece, rot: c.rot }] : []));
}
