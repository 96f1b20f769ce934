/**
 * Random triangle puzzles with a planted solution: every inner join gets a label 1..K, every outer edge the frame
 * label when there is one, else a label 1..K too; the pieces are listed in random order (turned randomly when the
 * puzzle allows rotation), ids 1..n*n in listed order. Deterministic per options, seed included. Also the shuffle of
 * a given triangle puzzle.
 */

import { InvalidOptionError } from "../errors.js";
import { createRandom, seedToUint32, type Seed } from "../random.js";
import {
  cellCount, MAX_LABEL, MAX_TRIANGLE_SIDE, placedLabel, rotateTriangleEdges, triangleNeighbour,
  type TriangleBoard, type TriangleEdges, type TrianglePiece, type TrianglePuzzle,
} from "./puzzle.js";

export interface TriangleGenerateOptions {
  side: number;
  /** Labels 1..labels on the joins (and on the outer edges without a frame). */
  labels: number;
  seed: Seed;
  /** Pieces may be turned (they are listed turned randomly). @default false */
  rotate?: boolean;
  /** Every outer edge shows this label. @default null (outer edges free, random labels) */
  frame?: number | null;
}

export interface GeneratedTriangle {
  puzzle: TrianglePuzzle;
  /** The planted solution, in terms of the listed pieces. */
  solution: TriangleBoard;
}

function checkInt(option: string, n: unknown, min: number, max: number): void {
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new InvalidOptionError(option, `must be an integer in ${min}..${max}, got ${String(n)}`);
  }
}

export function generateTriangle(options: TriangleGenerateOptions): GeneratedTriangle {
  const { side, labels } = options;
  const rotate = options.rotate === true;
  const frame = options.frame ?? null;
  checkInt("side", side, 1, MAX_TRIANGLE_SIDE);
  checkInt("labels", labels, 1, MAX_LABEL);
  if (frame !== null) checkInt("frame", frame, 0, MAX_LABEL);
  const seed = seedToUint32(options.seed);
  const rng = createRandom(seed);
  const cells = cellCount(side);
  const placed: number[][] = Array.from({ length: cells }, () => [-1, -1, -1]);
  for (let cell = 0; cell < cells; cell++) {
    for (let d = 0; d < 3; d++) {
      if (placed[cell][d] >= 0) continue;
      const nb = triangleNeighbour(side, cell, d);
      const label = nb < 0 && frame !== null ? frame : 1 + rng.nextInt(labels);
      placed[cell][d] = label;
      if (nb >= 0) placed[nb][d] = label;
    }
  }
  const order = rng.shuffle(Array.from({ length: cells }, (_, i) => i));
  const pieces: TrianglePiece[] = [];
  const solution: Array<{ piece: number; rot: number } | null> = new Array(cells).fill(null);
  order.forEach((cell, index) => {
    const rot = rotate ? rng.nextInt(3) : 0;
    // Listed so that turning it by rot shows the planted labels: listed[j] = placed[(j + rot) mod 3].
    const p = placed[cell];
    const edges: TriangleEdges = [p[rot % 3], p[(1 + rot) % 3], p[(2 + rot) % 3]];
    if (placedLabel(edges, rot, 0) !== p[0]) throw new Error("unreachable: the listed piece does not turn back");
    pieces.push({ id: index + 1, edges });
    solution[cell] = { piece: index, rot };
  });
  const name = `tri-${side}-l${labels}${frame !== null ? `-f${frame}` : ""}${rotate ? "-rot" : ""}-s${seed}`;
  return {
    puzzle: { shape: "triangle", side, pieces, hints: [], rotate, frame, name },
    solution: { side, cells: solution },
  };
}

/**
 * Lists a triangle puzzle's pieces in a random order, ids renumbered 1..n in the new order, each turned at random
 * when the puzzle allows rotation (`puzzle shuffle`, as for square puzzles). Hints are carried over: same cell, the
 * same labels shown (shuffled piece j = original piece turned t times, so a hint's rotation r becomes r - t).
 */
export function shuffleTriangle(puzzle: TrianglePuzzle, seed: Seed): TrianglePuzzle {
  const rng = createRandom(seed);
  const n = puzzle.pieces.length;
  const order = rng.shuffle(Array.from({ length: n }, (_, i) => i)); // order[j] = original index
  const turns = order.map(() => (puzzle.rotate ? rng.nextInt(3) : 0));
  const newIndex = new Array<number>(n);
  order.forEach((piece, j) => { newIndex[piece] = j; });
  const pieces: TrianglePiece[] = order.map((piece, j) => ({ id: j + 1, edges: rotateTriangleEdges(puzzle.pieces[piece].edges, turns[j]) }));
  const hints = puzzle.hints.map((h) => {
    const j = newIndex[h.piece];
    return { cell: h.cell, piece: j, rot: (h.rot - turns[j] + 3) % 3 };
  });
  return { ...puzzle, pieces, hints, name: `${puzzle.name ?? "puzzle"}-shuffled-s${rng.seed}` };
}
