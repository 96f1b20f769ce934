/**
 * The engine's pinned corner piece (`--corner K`, docs/engine.md "Symmetry") and the scans taking turns (`--alternate N
 * --scans LIST`): with `--symmetry`, K picks which corner piece without a twin starts the scan, another tree; a list
 * of scans (corner pieces, m for the mirror) runs them in turns on one core. The oracle is the TypeScript placement
 * search (core/cubes/search.ts): every run answers as it does, every board printed goes through the verifier
 * (core/verify.ts), the pinned piece stands where the symmetry break puts it, and k scans in turns make at most about
 * k times the placements of the best of them.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { generatePuzzle } from "../../core/generate.js";
import { type Puzzle } from "../../core/puzzle.js";
import { engineProblem, locateEngine } from "../../worker/engine/index.js";
import { engine, assertSolution, fixture, uniqueCorners } from "../helpers/engine-oracle.js";

const CHECK_EVERY = 65_536; // engine/search.h SEARCH_CHECK_EVERY: a turn ends at the first check point past N

/** The oracle's answer (sat or unsat), or null when it gives up. */
function oracle(p: Puzzle): "sat" | "unsat" | null {
  const r = searchPlacements(p, { findAll: false, nodeLimit: 2_000_000 });
  return r.kind === "unknown" ? null : r.kind;
}

/** Generated square boards (planted, solvable) of 3x3 to 5x5 with four corner pieces, no two alike. */
function squares(n: number): Puzzle[] {
  const out: Puzzle[] = [];
  for (let i = 0; out.length < n && i < 10 * n; i++) {
    const side = 3 + (i % 3);
    const g = generatePuzzle({ rows: side, cols: side, borderColors: 2 + (i % 2), centerColors: 2 + (i % 3), seed: 900 + i });
    if (uniqueCorners(g.puzzle).length === 4) out.push(g.puzzle);
  }
  return out;
}

test("engine corner - each of the four corner pieces pinned at the row scan's first cell, every board verified", { timeout: 60_000 }, async () => {
  const boards = squares(12);
  assert.ok(boards.length >= 8, `only ${boards.length} boards with four distinct corner pieces`);
  for (const p of boards) {
    const corners = uniqueCorners(p);
    for (let k = 0; k < 4; k++) {
      const what = `${p.name} --corner ${k}`;
      const o = await engine(p, [], { order: "row", symmetry: true, corner: k });
      assert.equal(o.kind, "sat", what);
      if (o.kind !== "sat") continue;
      assertSolution(p, o.board, [], what);
      // on a square the pinned piece takes the scan's first corner, the top-left
      assert.equal(o.board.find((x) => x.cell === 0)!.piece, corners[k], what);
    }
  }
});

test("engine corner - the scans in turns answer as the oracle does, with turns of one check interval (many hand-overs)", { timeout: 120_000 }, async () => {
  const cases = [...squares(6), fixture("cluster/unsat-5x5.txt"), fixture("cluster/unsat-6x6.txt"), fixture("brendan/pieces_06x06.txt")];
  const lists = [["0", "0m", "2", "2m"], ["0", "0m", "1", "1m", "2", "2m", "3", "3m"], ["3m"], ["1", "2m", "3"]];
  for (const [i, p] of cases.entries()) {
    const want = oracle(p);
    assert.ok(want !== null, `${p.name}: the oracle gave up`);
    const scans = lists[i % lists.length];
    const what = `${p.name} --scans ${scans.join(",")}`;
    const o = await engine(p, [], { order: i % 2 ? "short" : "long", alternate: 1, scans, symmetry: true });
    assert.equal(o.kind, want, what);
    if (o.kind === "sat") assertSolution(p, o.board, [], what);
    else assert.equal(o.stats.end, "exhausted", what);
  }
});

test("engine corner - k scans in turns make at most about k times the placements of the best of them (Brendan 6x6, UNSAT 6x6)", { timeout: 120_000 }, async () => {
  const scans = ["0", "0m", "1", "1m", "2", "2m", "3", "3m"];
  for (const p of [fixture("brendan/pieces_06x06.txt"), fixture("cluster/unsat-6x6.txt")]) {
    const alone = await Promise.all(scans.map((s) => engine(p, [], { order: "short", symmetry: true, corner: Number(s[0]), mirror: s.endsWith("m") })));
    const best = Math.min(...alone.map((o) => o.stats.nodes));
    const turn = 100_000;
    const o = await engine(p, [], { order: "short", alternate: turn, scans, symmetry: true });
    const what = `${p.name}: ${o.stats.nodes} placements, the scans alone ${alone.map((a) => a.stats.nodes).join(" ")}`;
    assert.equal(o.kind, alone[0].kind, what);
    assert.ok(o.stats.nodes >= best, what);
    assert.ok(o.stats.nodes <= scans.length * (best + turn + CHECK_EVERY), what);
    // one scan in the list is that scan alone
    const one = await engine(p, [], { order: "short", alternate: turn, scans: ["2m"], symmetry: true });
    assert.equal(one.stats.nodes, alone[5].stats.nodes, `${p.name} --scans 2m`);
    // without --symmetry no piece is pinned: the four corners are one tree, run once
    const plain = await engine(p, [], { order: "short", mirror: true });
    const same = await engine(p, [], { order: "short", alternate: turn, scans: ["0m", "1m", "2m", "3m"] });
    assert.equal(same.stats.nodes, plain.stats.nodes, `${p.name} --scans 0m,1m,2m,3m without --symmetry`);
  }
});

test("engine corner - bad --corner and --scans are usage errors", () => {
  const text = engineProblem(fixture("cluster/unsat-5x5.txt"), [])!;
  for (const args of [["--corner", "4"], ["--alternate", "1000", "--scans", "0,4"], ["--alternate", "1000", "--scans", "0,0m,1,1m,2,2m,3,3m,0"], ["--alternate", "1000", "--scans", "0x"], ["--scans", "0,0m"]]) {
    const r = spawnSync(locateEngine(), ["--symmetry", ...args], { input: text, encoding: "utf8" });
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
  }
});
