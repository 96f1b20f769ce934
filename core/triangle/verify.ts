/**
 * The independent verifier of triangle boards. It shares no geometry with the search or the encoding: it builds
 * every cell's three corners on the triangular lattice, names each edge by its two end points, and derives the
 * edge's direction from them, so a wrong neighbour table elsewhere cannot hide here.
 *
 * A board is a solution when every cell holds a piece, every piece is used once, rotations are 0 unless the
 * puzzle allows rotation (then 0..2), the two sides of every inner edge show the same label, every outer edge
 * shows the frame label when the puzzle has one, and every hinted cell shows the hint's labels (copies of an
 * identical piece are interchangeable, so the labels are what a hint fixes).
 */

import type { TriangleBoard, TrianglePuzzle } from "./puzzle.js";

export interface TriangleViolation {
  readonly kind: "size" | "empty" | "piece" | "duplicate" | "missing" | "rotation" | "mismatch" | "frame" | "hint";
  readonly message: string;
}

export type TriangleVerifyResult = { readonly ok: true } | { readonly ok: false; readonly violations: readonly TriangleViolation[] };

interface Side {
  cell: number;
  dir: number;
  label: number;
}

function name(row: number, pos: number): string {
  return `(row ${row}, pos ${pos})`;
}

/** Lattice vertex (i, j): row i of n+1 vertex rows, j in 0..i. */
function vertexKey(i: number, j: number): number {
  return i * 1024 + j;
}

export function verifyTriangleBoard(puzzle: TrianglePuzzle, board: TriangleBoard): TriangleVerifyResult {
  const v: TriangleViolation[] = [];
  const n = puzzle.side;
  if (board.side !== n || board.cells.length !== n * n) {
    return { ok: false, violations: [{ kind: "size", message: `board has side ${board.side} and ${board.cells.length} cells, the puzzle side ${n}` }] };
  }
  const used = new Array<number>(puzzle.pieces.length).fill(0);
  const labels: Array<[number, number, number] | null> = [];
  let cell = 0;
  const edges = new Map<string, Side[]>();
  for (let r = 0; r < n; r++) {
    for (let k = 0; k <= 2 * r; k++, cell++) {
      const c = board.cells[cell];
      labels.push(null);
      if (c === null) {
        v.push({ kind: "empty", message: `cell ${name(r, k)} is empty` });
        continue;
      }
      if (!Number.isInteger(c.piece) || c.piece < 0 || c.piece >= puzzle.pieces.length) {
        v.push({ kind: "piece", message: `cell ${name(r, k)} holds no piece of the puzzle (index ${c.piece})` });
        continue;
      }
      used[c.piece]++;
      const maxRot = puzzle.rotate ? 2 : 0;
      if (!Number.isInteger(c.rot) || c.rot < 0 || c.rot > maxRot) {
        v.push({ kind: "rotation", message: `cell ${name(r, k)}: rotation ${c.rot} is not allowed (0..${maxRot})` });
        continue;
      }
      const listed = puzzle.pieces[c.piece].edges;
      // Turning clockwise carries H to R, R to F, F to H: placed[d] = listed[(d - rot) mod 3].
      const placed: [number, number, number] = [listed[(3 - c.rot) % 3], listed[(4 - c.rot) % 3], listed[(5 - c.rot) % 3]];
      labels[cell] = placed;
      const t = k >> 1;
      // Corners: up (r,t),(r+1,t),(r+1,t+1); down (r,t),(r,t+1),(r+1,t+1).
      const corners = (k & 1) === 0
        ? [[r, t], [r + 1, t], [r + 1, t + 1]]
        : [[r, t], [r, t + 1], [r + 1, t + 1]];
      for (let a = 0; a < 3; a++) {
        for (let b = a + 1; b < 3; b++) {
          const [p, q] = [corners[a], corners[b]];
          const dir = p[0] === q[0] ? 0 : p[1] === q[1] ? 1 : 2;
          const key = `${Math.min(vertexKey(p[0], p[1]), vertexKey(q[0], q[1]))}-${Math.max(vertexKey(p[0], p[1]), vertexKey(q[0], q[1]))}`;
          const list = edges.get(key) ?? [];
          list.push({ cell, dir, label: placed[dir] });
          edges.set(key, list);
        }
      }
    }
  }
  used.forEach((count, i) => {
    const id = puzzle.pieces[i].id;
    if (count > 1) v.push({ kind: "duplicate", message: `piece ${id} is used ${count} times` });
    else if (count === 0) v.push({ kind: "missing", message: `piece ${id} is not on the board` });
  });
  const cellName = (c: number): string => {
    const r = Math.floor(Math.sqrt(c));
    return name(r, c - r * r);
  };
  const dirName = ["H", "R", "F"];
  for (const sides of edges.values()) {
    if (sides.length === 2) {
      const [a, b] = sides;
      if (a.label !== b.label) {
        v.push({ kind: "mismatch", message: `${cellName(a.cell)} shows ${a.label} and ${cellName(b.cell)} shows ${b.label} on their shared ${dirName[a.dir]} edge` });
      }
    } else if (sides.length === 1 && puzzle.frame !== null && sides[0].label !== puzzle.frame) {
      v.push({ kind: "frame", message: `${cellName(sides[0].cell)} shows ${sides[0].label} on its outer ${dirName[sides[0].dir]} edge, the frame needs ${puzzle.frame}` });
    }
  }
  for (const h of puzzle.hints) {
    const at = labels[h.cell];
    const e = puzzle.pieces[h.piece].edges;
    const want = [e[(3 - h.rot) % 3], e[(4 - h.rot) % 3], e[(5 - h.rot) % 3]];
    if (at && (at[0] !== want[0] || at[1] !== want[1] || at[2] !== want[2])) {
      v.push({ kind: "hint", message: `cell ${cellName(h.cell)} shows ${at.join(" ")}, the hint (piece ${puzzle.pieces[h.piece].id}, rotation ${h.rot}) ${want.join(" ")}` });
    }
  }
  return v.length === 0 ? { ok: true } : { ok: false, violations: v };
}
