/**
 * Triangle puzzles through the built CLI, as a user runs them: `puzzle gen --shape triangle`, `solve` (the
 * placement search, and Kissat alone), `solve --all` over worker threads, `verify`, `render --svg`, `encode`, and
 * bad files. Counts are checked against the in-process search and every written board against the verifier.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCubist, withTempDir } from "../helpers/processes.js";
import { parseTriangle, readTriangleBoardJSON, writeTriangle } from "../../core/triangle/format.js";
import { countTriangle } from "../../core/triangle/search.js";
import { verifyTriangleBoard } from "../../core/triangle/verify.js";
import { parseDimacs } from "../../core/encode/index.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import type { Board, Puzzle } from "../../core/puzzle.js";
import { squareFolder, triangleFolder } from "../../core/symmetry.js";
import { generateTriangle } from "../../core/triangle/generate.js";
import { bruteBoardsSquare } from "../helpers/brute-force.js";

test("solve triangle --all - the count equals the search's on one and two threads; -o writes every board verified, once", withTempDir("tri", async (dir) => {
  const file = join(dir, "t.txt"), out = join(dir, "boards.ndjson");
  const gen = await runCubist(["puzzle", "gen", "--shape", "triangle", "--side", "5", "--labels", "3", "--frame", "0", "--seed", "4", "-o", file]);
  assert.equal(gen.code, 0, gen.stderr);
  const puzzle = parseTriangle(readFileSync(file, "utf8"), file);
  const want = countTriangle(puzzle).count;
  assert.ok(want >= 2, `${want} solutions`);
  for (const threads of ["1", "2"]) {
    const r = await runCubist(["solve", file, "--all", "--json", "--threads", threads]);
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(r.stdout) as { status: string; count: number; complete: boolean; shape: string };
    assert.deepEqual([got.status, got.count, got.complete, got.shape], ["sat", want, true, "triangle"], `${threads} threads`);
  }
  const r = await runCubist(["solve", file, "--all", "-o", out, "--threads", "2"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`exactly ${want} solution`));
  const lines = readFileSync(out, "utf8").trim().split("\n");
  assert.equal(lines.length, want);
  assert.equal(new Set(lines).size, want);
  for (const line of lines) assert.deepEqual(verifyTriangleBoard(puzzle, readTriangleBoardJSON(line, puzzle)), { ok: true });
  const limited = await runCubist(["solve", file, "--all", "--limit", "1", "--json"]);
  assert.equal(limited.code, 0, limited.stderr);
  const l = JSON.parse(limited.stdout) as { count: number; complete: boolean; reason: string };
  assert.deepEqual([l.count, l.complete, l.reason], [1, false, "limit"]);
}));

test("solve triangle - the search and Kissat alone each print a board that verifies; verify, render --svg and encode take it", withTempDir("tri", async (dir) => {
  const file = join(dir, "t.txt"), sol = join(dir, "planted.json"), svg = join(dir, "b.svg"), cnf = join(dir, "t.cnf");
  const gen = await runCubist(["puzzle", "gen", "--shape", "triangle", "--side", "4", "--labels", "3", "--rotate", "--seed", "2", "-o", file, "--solution", sol]);
  assert.equal(gen.code, 0, gen.stderr);
  const puzzle = parseTriangle(readFileSync(file, "utf8"), file);
  assert.ok(puzzle.rotate);
  for (const extra of [[], ["--search-ms", "0"]]) {
    const r = await runCubist(["solve", file, "--json", ...extra]);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { status: string; board: unknown };
    assert.equal(out.status, "sat");
    assert.deepEqual(verifyTriangleBoard(puzzle, readTriangleBoardJSON(out.board, puzzle)), { ok: true }, extra.join(" "));
  }
  const v = await runCubist(["verify", file, sol]);
  assert.equal(v.code, 0, v.stdout);
  assert.match(v.stdout, /^ok: .* \(18 joins matched\)/);
  const rendered = await runCubist(["render", file, sol, "--svg", svg]);
  assert.equal(rendered.code, 0, rendered.stderr);
  const picture = readFileSync(svg, "utf8");
  assert.match(picture, /^<svg /);
  assert.equal(picture.match(/<polygon /g)?.length, 16);
  const enc = await runCubist(["encode", file, "-o", cnf]);
  assert.equal(enc.code, 0, enc.stderr);
  const dimacs = parseDimacs(readFileSync(cnf, "utf8"));
  assert.ok(dimacs.numVars > 0 && dimacs.clauses.length > 0);
  // A wrong board is refused with the reason.
  const board = JSON.parse(readFileSync(sol, "utf8")) as { board: Array<Array<[number, number]>> };
  [board.board[1][0], board.board[1][2]] = [board.board[1][2], board.board[1][0]];
  writeFileSync(sol, JSON.stringify(board));
  const bad = await runCubist(["verify", file, sol]);
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /not a solution/);
}));

test("solve triangle - a bad file names file:line; square-only options are refused, also on the cluster; an unsolvable frame is unsat (exit 20)", withTempDir("tri", async (dir) => {
  const bad = join(dir, "bad.txt");
  writeFileSync(bad, "# a triangle\ntriangle 2\n1 1 2 3\n2 1 2\n3 1 2 3\n4 1 2 3\n");
  const r = await runCubist(["solve", bad]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bad\.txt:4: expected a piece `ID H R F` \(4 fields\), got 3 fields/);
  const ok = join(dir, "ok.txt");
  writeFileSync(ok, "triangle 2\n1 1 2 3\n2 1 2 3\n3 1 2 3\n4 1 2 3\n");
  const w = await runCubist(["solve", ok, "--portfolio", "short"]);
  assert.equal(w.code, 1);
  assert.match(w.stderr, /--portfolio: is for square boards/);
  const c = await runCubist(["solve", ok, "--workers", "1", "--cell-order", "spiral"]);
  assert.equal(c.code, 1);
  assert.match(c.stderr, /cell order: a triangle splits along its search's order, base-up; "spiral" is for square boards/);
  const folded = await runCubist(["solve", ok, "--workers", "1", "--all", "--up-to-symmetry"]);
  assert.deepEqual([folded.code, /up-to-symmetry: folds boards on one machine only/.test(folded.stderr)], [1, true], folded.stderr);
  // Frame 9 appears on no piece: no board.
  writeFileSync(ok, "triangle 2\nframe 9\n1 1 2 3\n2 1 2 3\n3 1 2 3\n4 1 2 3\n");
  const u = await runCubist(["solve", ok, "--all", "--json"]);
  assert.equal(u.code, 20, u.stderr);
  assert.deepEqual(JSON.parse(u.stdout).count, 0);
  const k = await runCubist(["solve", ok, "--search-ms", "0", "--json"]);
  assert.equal(k.code, 20, k.stderr);
}));

test("solve --all --up-to-symmetry - squares (the engine) and triangles count one board per orbit, as the folder does over the brute-force boards", withTempDir("tri", async (dir) => {
  const { puzzle: square } = generatePuzzle({ rows: 2, cols: 2, centerColors: 2, unbounded: true, seed: 4 });
  const { puzzle: triangle } = generateTriangle({ side: 2, labels: 2, seed: 6, rotate: true });
  const sq = join(dir, "sq.txt"), tri = join(dir, "tri.txt"), out = join(dir, "boards.ndjson");
  writeFileSync(sq, writeCanonical(square));
  writeFileSync(tri, writeTriangle(triangle));
  const fold = squareFolder(square);
  const wantSquare = bruteBoardsSquare(square).filter((shown) => fold(boardOf(square, shown))).length;
  const foldTri = triangleFolder(triangle);
  let wantTri = 0;
  countTriangle(triangle, { onBoard: (b) => void (foldTri(b) && wantTri++) });
  for (const [file, want, plain] of [[sq, wantSquare, bruteBoardsSquare(square).length], [tri, wantTri, countTriangle(triangle).count]] as const) {
    assert.ok(want < plain, `${file}: folding merges boards (${want} of ${plain})`);
    const r = await runCubist(["solve", file, "--all", "--up-to-symmetry", "--json", "--threads", "2", "-o", out]);
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(r.stdout) as { count: number; complete: boolean; upToSymmetry: boolean };
    assert.deepEqual([got.count, got.complete, got.upToSymmetry], [want, true, true], file);
    assert.equal(readFileSync(out, "utf8").trim().split("\n").length, want);
  }
}));

/** A board of `puzzle` that shows the colours `shown` (any copy of an identical piece will do). */
function boardOf(puzzle: Puzzle, shown: number[][]): Board {
  const used = new Set<number>();
  return {
    rows: puzzle.rows,
    cols: puzzle.cols,
    cells: shown.map((s) => {
      for (let i = 0; i < puzzle.pieces.length; i++) {
        for (let rot = 0; rot < 4 && !used.has(i); rot++) {
          if (s.every((x, d) => puzzle.pieces[i].edges[(d - rot + 4) % 4] === x)) {
            used.add(i);
            return { piece: i, rot };
          }
        }
      }
      throw new Error("no piece shows these colours");
    }),
  };
}
