/**
 * Puzzle generation with a planted solution, and shuffling of existing puzzles.
 *
 * Generation follows Heule's em-N-B-C generator: a board is filled with random colours on every inner
 * edge. Bounded boards have a grey (0) rim; an inner edge between two rim cells that runs along the rim
 * gets a frame colour 1..B, every other inner edge a centre colour B+1..B+C. Unbounded boards have no
 * grey: every side, including the outer ones, gets a colour 1..C. The pieces are then listed in a random
 * order, each turned by a random rotation, so the file does not give the solution away; the planted
 * solution is returned in terms of the listed pieces (ids 1..n in listed order).
 *
 * Shuffling lists the pieces of a puzzle in a random order, each turned randomly, and renumbers the ids
 * 1..n in the new order (the name gets `-shuffled-s<seed>`). Hints are carried over so they mean the same
 * placement. The returned map turns a solution of the shuffled puzzle back into one of the original.
 */

import { InvalidOptionError } from "./errors.js";
import { rotateEdges, type Board, type Edges, type Hint, type Piece, type Puzzle } from "./puzzle.js";
import { createRandom, seedToUint32, type Seed } from "./random.js";
import { MAX_COLOUR, MAX_SIDE, validatePuzzle } from "./validate.js";

/** Options of `generatePuzzle`. */
export interface GenerateOptions {
  readonly rows: number;
  readonly cols: number;
  /** Number of frame colours B (bounded only; colours 1..B). */
  readonly borderColors?: number;
  /** Number of centre colours C (colours B+1..B+C; 1..C when unbounded). */
  readonly centerColors: number;
  readonly seed: Seed;
  /** No grey rim: every side random from the C centre colours. @default false */
  readonly unbounded?: boolean;
}

/** A generated puzzle and its planted solution (in the listed orientation of its pieces). */
export interface GeneratedPuzzle {
  readonly puzzle: Puzzle;
  readonly solution: Board;
}

function checkCount(option: string, n: unknown, min: number, max: number): void {
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidOptionError(option, `must be an integer in ${min}..${max}, got ${String(n)}`);
  }
}

/** Generates a random puzzle with a planted solution; deterministic per options (seed included). */
export function generatePuzzle(options: GenerateOptions): GeneratedPuzzle {
  const { rows, cols, centerColors, unbounded = false } = options;
  const borderColors = unbounded ? 0 : options.borderColors ?? 0;
  checkCount("rows", rows, 2, MAX_SIDE);
  checkCount("cols", cols, 2, MAX_SIDE);
  checkCount("centerColors", centerColors, 1, MAX_COLOUR);
  if (!unbounded) checkCount("borderColors", borderColors, 1, MAX_COLOUR - centerColors);
  const seed = seedToUint32(options.seed);
  const rng = createRandom(seed);
  const cells = rows * cols;

  // placed[cell] = [N, E, S, W] as on the board.
  const placed: number[][] = Array.from({ length: cells }, () => [0, 0, 0, 0]);
  const centre = (): number => borderColors + 1 + rng.nextInt(centerColors);
  const frame = (): number => 1 + rng.nextInt(borderColors);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const cell = r * cols + c;
      if (c + 1 < cols) {
        // Horizontal neighbours share a rim line when both are in the top or bottom row.
        const alongRim = !unbounded && (r === 0 || r === rows - 1);
        const colour = alongRim ? frame() : centre();
        placed[cell][1] = colour;
        placed[cell + 1][3] = colour;
      }
      if (r + 1 < rows) {
        const alongRim = !unbounded && (c === 0 || c === cols - 1);
        const colour = alongRim ? frame() : centre();
        placed[cell][2] = colour;
        placed[cell + cols][0] = colour;
      }
      if (unbounded) {
        if (r === 0) placed[cell][0] = centre();
        if (c === cols - 1) placed[cell][1] = centre();
        if (r === rows - 1) placed[cell][2] = centre();
        if (c === 0) placed[cell][3] = centre();
      }
    }
  }

  // List the pieces in a random order, each stored turned back by its (random) solution rotation.
  const order = rng.shuffle(Array.from({ length: cells }, (_, i) => i)); // order[index] = cell
  const pieces: Piece[] = [];
  const solutionCells: Array<{ piece: number; rot: number } | null> = new Array(cells).fill(null);
  order.forEach((cell, index) => {
    const rot = rng.nextInt(4);
    const edges = rotateEdges(placed[cell] as unknown as Edges, (4 - rot) & 3);
    pieces.push({ id: index + 1, edges });
    solutionCells[cell] = { piece: index, rot };
  });

  const name = unbounded
    ? `gen-${rows}x${cols}-unbounded-c${centerColors}-s${seed}`
    : `gen-${rows}x${cols}-b${borderColors}-c${centerColors}-s${seed}`;
  const puzzle: Puzzle = { rows, cols, pieces, hints: [], name };
  validatePuzzle(puzzle, name);
  return { puzzle, solution: { rows, cols, cells: solutionCells } };
}

/**
 * How a shuffled puzzle relates to its original: `entries[j]` says that shuffled piece j is original
 * piece `piece` turned by `rot` clockwise quarter turns (shuffled edges = original edges rotated by rot).
 */
export interface ShuffleMap {
  readonly entries: ReadonlyArray<{ readonly piece: number; readonly rot: number }>;
}

/** A shuffled puzzle and the map back to the original. */
export interface ShuffledPuzzle {
  readonly puzzle: Puzzle;
  readonly map: ShuffleMap;
}

/**
 * Lists the pieces in a random order, each turned by a random rotation, with ids renumbered 1..n in the
 * new order. Hints are carried over (piece index and rotation adjusted: same cell, same placed edges).
 */
export function shufflePuzzle(puzzle: Puzzle, seed: Seed): ShuffledPuzzle {
  const rng = createRandom(seed);
  const n = puzzle.pieces.length;
  const name = `${puzzle.name ?? "puzzle"}-shuffled-s${rng.seed}`;
  const order = rng.shuffle(Array.from({ length: n }, (_, i) => i)); // order[j] = original index
  const entries = order.map((piece) => ({ piece, rot: rng.nextInt(4) }));
  const newIndex = new Array<number>(n);
  entries.forEach((e, j) => { newIndex[e.piece] = j; });
  const pieces: Piece[] = entries.map((e, j) => ({ id: j + 1, edges: rotateEdges(puzzle.pieces[e.piece].edges, e.rot) }));
  // Original piece i at rot r shows the same edges as shuffled piece j at rot r - t.
  const hints: Hint[] = puzzle.hints.map((h) => {
    const j = newIndex[h.piece];
    return { row: h.row, col: h.col, piece: j, rot: (h.rot - entries[j].rot + 4) & 3 };
  });
  const shuffled: Puzzle = {
    rows: puzzle.rows,
    cols: puzzle.cols,
    pieces,
    hints,
    name,
  };
  return { puzzle: shuffled, map: { entries } };
}

/** Maps a board of the shuffled puzzle back to the original puzzle's pieces and rotations. */
export function unshuffleBoard(board: Board, map: ShuffleMap): Board {
  return {
    rows: board.rows,
    cols: board.cols,
    cells: board.cells.map((c) => {
      if (c === null) return null;
      const e = map.entries[c.piece];
      return { piece: e.piece, rot: (c.rot + e.rot) & 3 };
    }),
  };
}

/** Maps a board of the original puzzle to the shuffled puzzle (inverse of `unshuffleBoard`). */
export function shuffleBoard(board: Board, map: ShuffleMap): Board {
  const newIndex = new Array<number>(map.entries.length);
  map.entries.forEach((e, j) => { newIndex[e.piece] = j; });
  return {
    rows: board.rows,
    cols: board.cols,
    cells: board.cells.map((c) => {
      if (c === null) return null;
      const j = newIndex[c.piece];
      return { piece: j, rot: (c.rot - map.entries[j].rot + 4) & 3 };
    }),
  };
}
