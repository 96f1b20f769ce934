/**
 * The engine's most-constrained-first order (`--order mcf`, engine/mcf.c), beyond the tables of engine-oracle.test.ts that
 * run it with every other order (counts against the oracle, cubes, many colours, printed boards, symmetry): the
 * parts of a partition still cover the space exactly, restarts keep proofs and answers, and the deepest partial
 * board (`--best`), whose cells are no prefix of a static scan here, still matches on every edge. The oracle is the
 * TypeScript search (core/cubes/search.ts); every board goes through the verifier or core/score.ts.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { searchPlacements } from "../../core/cubes/search.js";
import { generatePuzzle } from "../../core/generate.js";
import { boardFromPlacements, type Edges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { acceptScored } from "../../core/score.js";
import { verifySolution } from "../../core/verify.js";
import { engineProblem, locateEngine, runEngine, type EngineOptions, type EngineOutcome } from "../../worker/engine/index.js";

const shape = (p: Puzzle): { rows: number; cols: number; pieces: number } => ({ rows: p.rows, cols: p.cols, pieces: p.pieces.length });

function engine(p: Puzzle, fixed: readonly Placement[], options: EngineOptions): Promise<EngineOutcome> {
  return runEngine(engineProblem(p, fixed)!, shape(p), { order: "mcf", ...options });
}

function oracleCount(p: Puzzle, fixed: readonly Placement[] = []): number {
  const r = searchPlacements(p, { fixed, findAll: true });
  assert.notEqual(r.kind, "unknown", `${p.name}: the oracle gave up`);
  if (r.kind !== "sat") return 0;
  assert.ok(r.complete, `${p.name}: the oracle's count is not complete`);
  return r.solutions;
}

/** A generated board whose one inner piece gets a colour nobody else has: no solution. */
function broken(rows: number, cols: number, seed: number): Puzzle {
  const { puzzle } = generatePuzzle({ rows, cols, borderColors: 3, centerColors: 4, seed });
  const pieces = puzzle.pieces.map((x) => ({ ...x }));
  const inner = pieces.findIndex((x) => x.edges.every((c) => c !== 0));
  const e = [...pieces[inner].edges] as [number, number, number, number];
  e[0] = 99;
  pieces[inner] = { ...pieces[inner], edges: e as Edges };
  return { ...puzzle, name: `${puzzle.name}-broken`, pieces };
}

test("engine mcf - the parts' counts sum to the oracle's count for 2, 3 and 5 parts, at the chosen and at given depths", { timeout: 120_000 }, async () => {
  const cases = [
    { p: generatePuzzle({ rows: 3, cols: 3, centerColors: 2, seed: 1, unbounded: true }).puzzle, fixed: [] as Placement[] },
    { p: generatePuzzle({ rows: 4, cols: 4, borderColors: 2, centerColors: 2, seed: 3 }).puzzle, fixed: [] as Placement[] },
  ];
  const wide = generatePuzzle({ rows: 3, cols: 5, borderColors: 2, centerColors: 1, seed: 5 });
  cases.push({ p: wide.puzzle, fixed: [{ cell: 7, ...wide.solution.cells[7]! }] });
  for (const { p, fixed } of cases) {
    const total = oracleCount(p, fixed);
    assert.ok(total > 1, `${p.name}: several solutions`);
    for (const n of [2, 3, 5]) {
      for (const depth of [undefined, 0, 2]) {
        const parts = await Promise.all(Array.from({ length: n }, (_, k) => engine(p, fixed, { count: true, part: { k, n, depth } })));
        const counts = parts.map((o) => o.stats.solutions);
        assert.ok(parts.every((o) => o.stats.end === "exhausted"));
        assert.equal(counts.reduce((a, b) => a + b, 0), total, `${p.name} n ${n} depth ${depth ?? "auto"}: ${counts.join(" + ")}`);
      }
    }
  }
});

test("engine mcf - with small restart budgets an unsat board is still proved unsat and a sat one gives a verified board", { timeout: 120_000 }, async () => {
  for (const seed of [1, 2, 3]) {
    const unsat = broken(4, 5, seed);
    assert.equal(oracleCount(unsat), 0);
    const u = await engine(unsat, [], { restartBase: 20, seed });
    assert.equal(u.kind, "unsat", unsat.name);
    assert.equal(u.stats.end, "exhausted");

    const g = generatePuzzle({ rows: 5, cols: 5, borderColors: 2, centerColors: 3, seed });
    const s = await engine(g.puzzle, [], { restartBase: 50, seed, symmetry: true });
    assert.equal(s.kind, "sat", g.puzzle.name);
    if (s.kind === "sat") {
      const v = verifySolution(g.puzzle, boardFromPlacements(g.puzzle, s.board));
      assert.ok(v.ok, `${g.puzzle.name}: ${JSON.stringify(v)}`);
    }
  }
});

test("engine mcf - --best reports the deepest partial board along the dynamic path, every edge matched", async () => {
  const puzzle = broken(5, 5, 5);
  const outcome = await engine(puzzle, [], { best: true });
  assert.equal(outcome.kind, "unsat");
  assert.ok(outcome.best, "the end of the search reports the best board");
  const a = acceptScored(puzzle, outcome.best!.board);
  assert.ok(a.ok, a.ok ? "" : a.reason);
  assert.equal(a.scored.mismatches.length, 0);
  assert.equal(a.scored.placed, outcome.stats.depth);
  assert.ok(a.scored.placed > 1 && a.scored.placed < 25);
});

test("engine mcf - not with score mode (a usage error, exit 2)", () => {
  const p = generatePuzzle({ rows: 3, cols: 3, borderColors: 2, centerColors: 2, seed: 1 }).puzzle;
  const r = spawnSync(locateEngine(), ["--score", "--order", "mcf"], { input: engineProblem(p, [])!, encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /not with .*--order mcf/);
});
