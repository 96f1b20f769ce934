/**
 * Runs the public reference backtracker of bench/lib/peers.ts, david3x3x3/eternity2 (eternity2.c, its CPU path; GPL-2,
 * not part of this project), on a Cubist puzzle, side by side with Cubist in the frontier benchmarks.
 *
 * The program reads its puzzles from a C header (`pieces.h`, an array of `{name, width, height, pieces}`), so each
 * puzzle is compiled in: the two sources of a checkout of that repository (`eternity2.c`, `gen.c`) are copied into a
 * temporary build folder beside a generated `pieces.h` with this one puzzle, and built as its Makefile does
 * (`gcc -std=c99 -DUNIX -O3 -m64 ... -lOpenCL`; it links OpenCL even when it does not use it: Debian's
 * `ocl-icd-opencl-dev`). The checkout itself is never written to, and nothing of it enters this repository.
 *
 * The input, as in ../shared/peers.md: the pieces in the puzzle's order (each as `{N, E, S, W}`), except that the
 * first corner piece changes places with piece 0 (the program fixes piece 0 at the top-left on a square board, its
 * symmetry break; on an oblong board it tries it first there), and the board given with its rows along the short
 * side (a row scan runs best so): `width` is the shorter side. It runs as `eternity2 NAME CELLS` (search to depth
 * CELLS), which prints each complete board as `0000000-` and two digits per cell, the 0-based piece in its order,
 * without rotations; the first such line is the time to a board, and the program is killed there. The rotations
 * are recovered from the colours (each cell's turn that matches its north and west neighbours and the rim).
 *
 * The board it printed is checked by core/verify.ts against the puzzle as the program saw it: the same pieces on a
 * `height x width` board (a solution turned a quarter turn is a solution of the turned board, the pieces turning
 * with it).
 */

import { spawn, execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { rotatedEdge, EAST, NORTH, SOUTH, WEST, type Board, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";

/** A reference program built for one puzzle. */
export interface ReferenceBuild {
  readonly binary: string;
  /** The puzzle as the program sees it: pieces in its order, `rows` the longer side. */
  readonly puzzle: Puzzle;
  /** Removes the build folder. */
  readonly remove: () => void;
}

/** What one run of the reference did. */
export interface ReferenceResult {
  readonly status: "sat" | "timeout" | "invalid" | "error";
  /** Spawn to the complete board (or to the kill / exit), seconds. */
  readonly seconds: number;
  /** Why a run is invalid or an error. */
  readonly note?: string;
}

const NAME = "cubist";

/** The pieces in the program's order: the first piece with two grey sides swapped with piece 0. */
function referenceOrder(puzzle: Puzzle): Puzzle {
  const corner = puzzle.pieces.findIndex((p) => p.edges.filter((c) => c === 0).length === 2);
  const pieces = [...puzzle.pieces];
  if (corner > 0) [pieces[0], pieces[corner]] = [pieces[corner], pieces[0]];
  const rows = Math.max(puzzle.rows, puzzle.cols);
  const cols = Math.min(puzzle.rows, puzzle.cols);
  return { rows, cols, pieces, hints: [], name: puzzle.name };
}

/** The program's `pieces.h` for one puzzle: width is the row length (the short side), height the row count. */
function piecesHeader(p: Puzzle): string {
  const lines = p.pieces.map((q) => `      { ${q.edges.join(", ")}, },`);
  return `puzinfo pi[] = {\n  {\n    "${NAME}",\n    ${p.cols},${p.rows},\n    (int[][4]) {\n${lines.join("\n")}\n    },\n  },\n  { 0, 0, 0, 0 },\n};\n`;
}

/** Builds the reference for `puzzle` from the checkout `sourceDir` in a temporary folder. */
export function buildReference(sourceDir: string, puzzle: Puzzle): ReferenceBuild {
  for (const f of ["eternity2.c", "gen.c"]) {
    if (!existsSync(join(sourceDir, f))) throw new Error(`${sourceDir} has no ${f}: give --ref a checkout of david3x3x3/eternity2`);
  }
  const dir = mkdtempSync(join(tmpdir(), "cubist-ref-"));
  const seen = referenceOrder(puzzle);
  copyFileSync(join(sourceDir, "eternity2.c"), join(dir, "eternity2.c"));
  copyFileSync(join(sourceDir, "gen.c"), join(dir, "gen.c"));
  writeFileSync(join(dir, "pieces.h"), piecesHeader(seen));
  const binary = join(dir, "eternity2");
  execFileSync("gcc", ["-std=c99", "-DUNIX", "-DCL_TARGET_OPENCL_VERSION=120", "-O3", "-m64", "-w", "-o", binary,
    join(dir, "eternity2.c"), join(dir, "gen.c"), "-lOpenCL"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  return { binary, puzzle: seen, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The board of a `0000000-PPPP...` line (pieces without rotations), its rotations recovered; undefined for other lines. */
export function parseReferenceLine(line: string, p: Puzzle): Board | undefined {
  const m = /^\d{7}-(\d+)$/.exec(line.trim());
  if (!m || m[1].length !== 2 * p.rows * p.cols) return undefined;
  const order = Array.from({ length: p.rows * p.cols }, (_, i) => Number(m[1].slice(2 * i, 2 * i + 2)));
  const rots = recoverRotations(p, order);
  return { rows: p.rows, cols: p.cols, cells: order.map((piece, i) => ({ piece, rot: rots?.[i] ?? 0 })) };
}

/** A turn for each cell that matches its north and west neighbours and the rim (depth first), or undefined. */
function recoverRotations(p: Puzzle, order: readonly number[]): number[] | undefined {
  const rots: number[] = [];
  const fits = (cell: number, rot: number): boolean => {
    const piece = p.pieces[order[cell]];
    if (!piece) return false;
    const row = Math.floor(cell / p.cols), col = cell % p.cols;
    const side = (c: number, r: number, dir: number): number => rotatedEdge(p.pieces[order[c]].edges, r, dir);
    const north = row === 0 ? 0 : side(cell - p.cols, rots[cell - p.cols], SOUTH);
    const west = col === 0 ? 0 : side(cell - 1, rots[cell - 1], EAST);
    return side(cell, rot, NORTH) === north && side(cell, rot, WEST) === west &&
      (side(cell, rot, EAST) === 0) === (col === p.cols - 1) && (side(cell, rot, SOUTH) === 0) === (row === p.rows - 1);
  };
  const place = (cell: number): boolean => {
    if (cell === order.length) return true;
    for (let rot = 0; rot < 4; rot++) {
      rots[cell] = rot;
      if (fits(cell, rot) && place(cell + 1)) return true;
    }
    return false;
  };
  return place(0) ? rots : undefined;
}

/** Runs a built reference to its first complete board (verified) or `limitSec`. */
export function runReference(build: ReferenceBuild, limitSec: number): Promise<ReferenceResult> {
  const t0 = performance.now();
  const child = spawn(build.binary, [NAME, String(build.puzzle.rows * build.puzzle.cols)], { stdio: ["ignore", "pipe", "ignore"] });
  let buffered = "";
  let result: ReferenceResult | undefined;
  const finish = (r: ReferenceResult): void => {
    result ??= r;
    child.kill("SIGKILL");
  };
  const timer = setTimeout(() => finish({ status: "timeout", seconds: limitSec }), limitSec * 1000);
  child.stdout.on("data", (d: Buffer) => {
    if (result) return;
    buffered += d.toString("utf8");
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const board = parseReferenceLine(line, build.puzzle);
      if (!board) continue;
      const seconds = (performance.now() - t0) / 1000;
      const v = verifySolution(build.puzzle, board);
      finish(v.ok ? { status: "sat", seconds } : { status: "invalid", seconds, note: v.violations.slice(0, 3).map((x) => x.message).join("; ") });
      return;
    }
  });
  return new Promise((resolve) => {
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve(result ?? { status: "error", seconds: (performance.now() - t0) / 1000, note: `exited ${code} without a board` });
    });
  });
}
