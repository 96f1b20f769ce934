/**
 * Cube parts (core/cubes/parts.ts, docs/cubing.md "Cube parts"): the exact arithmetic of parts and their re-splits,
 * and scan runs in parts through the run model (tasks, order, re-splits, weights, replay). The engine side, that a
 * cube's parts add up to the cube, is test/integration/scan-cubes.test.ts.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { MAX_PART_N, partProblem, partsOf, resplitPart } from "../../core/cubes/parts.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import type { Cube } from "../../core/cubes/types.js";
import { InvalidOptionError } from "../../core/errors.js";
import { CUBE_PART_DEPTH } from "../../coordinator/model/run-defaults.js";
import { memberId } from "../../coordinator/model/scan-trees.js";
import { buildRunSpec, type RunRequest } from "../../coordinator/run-spec.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { modelHarness, openCubes, published, squarePuzzleOf, verdict } from "../helpers/run-model.js";

/** The portfolio member of a scan run on a board without eight trees: the mirror of the cubes' scan. */
const MIRROR = memberId({ order: "short", corner: 0, mirror: true });

const UNSAT = readFileSync("test/fixtures/cluster/unsat-5x5.txt", "utf8");

/** The exact weight of a branching list as a fraction [numerator, denominator] of BigInts. */
function exact(branching: readonly number[]): [bigint, bigint] {
  return [1n, branching.reduce((d, b) => d * BigInt(b), 1n)];
}
function sum(fracs: Array<[bigint, bigint]>): [bigint, bigint] {
  let [n, d] = [0n, 1n];
  for (const [a, b] of fracs) [n, d] = [n * b + a * d, d * b];
  return [n, d];
}
const equal = (x: [bigint, bigint], y: [bigint, bigint]): boolean => x[0] * y[1] === y[0] * x[1];

test("cube parts - n parts of a cube weigh exactly the cube; a part's m children weigh exactly the part and deal exactly its subtrees", () => {
  const cube: Cube = { placements: [{ cell: 0, piece: 3, rot: 1 }], branching: [7, 3], weight: 1 / 21 };
  for (const n of [2, 3, 5]) {
    const parts = partsOf(cube, n, 10);
    assert.equal(parts.length, n);
    assert.ok(equal(sum(parts.map((p) => exact(p.branching))), exact(cube.branching)));
    assert.deepEqual(parts.map((p) => p.part!.k), Array.from({ length: n }, (_, k) => k));
    assert.ok(parts.every((p) => p.part!.n === n && p.part!.depth === 10 && p.placements === cube.placements));
    assert.ok(Math.abs(parts.reduce((s, p) => s + p.weight, 0) - cube.weight) < 1e-15);
    for (const part of parts) {
      for (const m of [2, 4, 16]) {
        const kids = resplitPart(part, m);
        assert.equal(kids.length, m);
        assert.ok(equal(sum(kids.map((c) => exact(c.branching))), exact(part.branching)));
        // Every subtree number the part holds (k mod n) is held by exactly one child (k' mod n m), and no other.
        for (let x = 0; x < 4 * n * m; x++) {
          const holders = kids.filter((c) => x % c.part!.n === c.part!.k).length;
          assert.equal(holders, x % n === part.part!.k ? 1 : 0, `n ${n} k ${part.part!.k} m ${m} subtree ${x}`);
        }
        // Twice over: a child of a child is still exact.
        const grand = resplitPart(kids[1], 3);
        for (let x = 0; x < 6 * n * m; x++) {
          assert.equal(grand.filter((c) => x % c.part!.n === c.part!.k).length, x % kids[1].part!.n === kids[1].part!.k ? 1 : 0);
        }
      }
    }
  }
  // Near the engine's bound on n, fewer ways; at it, the part goes on as its one child; never an n a worker refuses.
  const big: Cube = { ...cube, branching: [7, 3, 2], part: { k: 5, n: 2 ** 29, depth: 10 } };
  const capped = resplitPart(big, 16);
  assert.equal(capped.length, 3);
  assert.ok(capped.every((c) => c.part!.n === 3 * 2 ** 29 && partProblem(c.part!) === null));
  assert.ok(equal(sum(capped.map((c) => exact(c.branching))), exact(big.branching)));
  const atBound = resplitPart({ ...big, part: { k: 5, n: MAX_PART_N, depth: 10 } }, 16);
  assert.equal(atBound.length, 1);
  assert.deepEqual(atBound[0].part, { k: 5, n: MAX_PART_N, depth: 10 });
  assert.ok(equal(exact(atBound[0].branching), exact(big.branching)));
  assert.deepEqual(partsOf(cube, 1, 10), [cube]);
  assert.throws(() => partsOf(partsOf(cube, 2, 10)[0], 2, 10), /already a part/);
  assert.throws(() => resplitPart(cube, 2), /not a part/);
  assert.equal(partProblem({ k: 3, n: 4, depth: 0 }), null);
  assert.match(partProblem({ k: 4, n: 4, depth: 0 })!, /part k 4 of 4/);
  assert.equal(partProblem({ k: 0, n: 1, depth: 10 }), null, "part 0 of 1: the whole cube, numbered");
  assert.match(partProblem({ k: 0, n: 0, depth: 0 })!, /part n 0/);
  assert.match(partProblem({ k: 1, n: 1, depth: 0 })!, /part k 1 of 1/);
  assert.match(partProblem({ k: 0, n: 2, depth: -1 })!, /part depth/);
  assert.equal(partProblem({ k: 0, n: 2, depth: 3, from: 7 }), null);
  for (const from of [-1, 0.5, 2 ** 60]) assert.match(partProblem({ k: 0, n: 2, depth: 3, from })!, /part from/);
});

test("cube parts - run specs: scan runs only, not certified or score; solve --workers' slots only where the run splits along the scan", () => {
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubeParts: 3 }).spec.cubing!.parts, 3);
  assert.equal(buildRunSpec({ puzzleText: UNSAT }).spec.cubing!.parts, undefined);
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubePartsIfScan: 2 }).spec.cubing!.parts, 2);
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubePartsIfScan: 2, cubeParts: 1 }).spec.cubing!.parts, undefined);
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubePartsIfScan: 2, solver: "kissat" }).spec.cubing!.parts, undefined, "not scan: whole cubes");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubePartsIfScan: 2, certify: true, cellOrder: "scan" }).spec.cubing!.parts, undefined, "certified: whole cubes");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, cubePartsIfScan: 2, objective: "score", cellOrder: "scan" }).spec.cubing!.parts, undefined, "score: whole cubes");
  for (const req of [{ cubeParts: 2, solver: "kissat" }, { cubeParts: 2, cellOrder: "spiral" }, { cubeParts: 2, certify: true, cellOrder: "scan" }, { cubeParts: 2, objective: "score", cellOrder: "scan" }, { cubeParts: 1000 }]) {
    assert.throws(() => buildRunSpec({ puzzleText: UNSAT, ...req } as RunRequest), (e: unknown) => e instanceof InvalidOptionError && /cube parts/.test((e as Error).message), JSON.stringify(req));
  }
});

test("member share - run specs: scan runs only, by default every tree the same share (recorded in the spec), 0 when asked, at most MAX_MEMBER_SHARE", () => {
  assert.equal(buildRunSpec({ puzzleText: UNSAT }).spec.cubing!.memberShare, 0.5, "two trees: the scan and its mirror");
  assert.equal(buildRunSpec({ puzzleText: readFileSync("test/fixtures/cluster/unsat-7x7-hard.txt", "utf8") }).spec.cubing!.memberShare, 0.875, "eight trees");
  assert.equal(buildRunSpec({ puzzleText: UNSAT, memberShare: 0.3 }).spec.cubing!.memberShare, 0.3);
  assert.equal(buildRunSpec({ puzzleText: UNSAT, memberShare: 0 }).spec.cubing!.memberShare, undefined);
  for (const req of [{ solver: "kissat" }, { cellOrder: "spiral" }, { certify: true }, { objective: "score" }, { mode: "all" }]) {
    assert.equal(buildRunSpec({ puzzleText: UNSAT, ...req } as RunRequest).spec.cubing!.memberShare, undefined, `no members: ${JSON.stringify(req)}`);
  }
  for (const req of [{ memberShare: 0.5, solver: "kissat" }, { memberShare: 0.5, cellOrder: "spiral" }, { memberShare: 0.95 }, { memberShare: -0.1 }]) {
    assert.throws(() => buildRunSpec({ puzzleText: UNSAT, ...req } as RunRequest), (e: unknown) => e instanceof InvalidOptionError && /member share/.test((e as Error).message), JSON.stringify(req));
  }
});


test("cube parts - a scan run in 2 parts: each cube's parts in order, the member second; a part over budget re-splits into parts; UNSAT, weights 1, replayable", async () => {
  const h = modelHarness({ runId: "r1", solver: "none", cellOrder: "scan", puzzleText: UNSAT, targetCubes: 4, cubeParts: 2 }, { batchSize: 5 });
  const puzzle = squarePuzzleOf(h);
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const expected = scanSplit(puzzle, { targetCubes: 4, symmetry: true }); // no hints, one board wanted: the engine's symmetry
  const tasks = published(h.effects);
  assert.equal(tasks.length, 2 * expected.cubes.length + 1);
  assert.equal(tasks[1].task.cubeId, MIRROR, "the member second, as without parts");
  assert.deepEqual(tasks[1].task.part, { k: 0, n: 1, depth: CUBE_PART_DEPTH }, "the member: the whole board, numbered");
  const parts = tasks.filter((t) => t.task.cubeId !== MIRROR);
  assert.deepEqual(parts.map((t) => t.task.cubeId), parts.map((_, i) => String(i)));
  parts.forEach((t, i) => {
    assert.deepEqual(t.task.placements, expected.cubes[Math.floor(i / 2)].placements);
    assert.deepEqual(t.task.part, { k: i % 2, n: 2, depth: CUBE_PART_DEPTH });
  });
  assert.equal(h.model.table.size, parts.length);
  assert.deepEqual(h.model.table.get("3")!.part, { k: 1, n: 2, depth: CUBE_PART_DEPTH });
  // A part over budget: 16 children, parts of it (k + 2 j of 32), to the front queue, the same placements.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([verdict("1", VerdictKind.VERDICT_KIND_UNKNOWN)]));
  assert.equal(h.model.table.get("1")!.state, "resplit");
  const kids = published(h.effects);
  assert.equal(kids.length, 16);
  assert.ok(kids.every((t) => t.front));
  assert.deepEqual(kids.map((t) => t.task.part), Array.from({ length: 16 }, (_, j) => ({ k: 1 + 2 * j, n: 32, depth: CUBE_PART_DEPTH })));
  assert.ok(kids.every((t) => JSON.stringify(t.task.placements) === JSON.stringify(expected.cubes[0].placements)));
  // A requeued part keeps its part.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([{ ...verdict("1.3", VerdictKind.VERDICT_KIND_ERROR), reason: "crashed" }]));
  const again = published(h.effects);
  assert.equal(again.length, 1);
  assert.equal(again[0].task.cubeId, "1.3");
  assert.deepEqual(again[0].task.part, { k: 7, n: 32, depth: CUBE_PART_DEPTH });
  await h.run(h.model.recordVerdicts([verdict(MIRROR, VerdictKind.VERDICT_KIND_UNKNOWN), ...openCubes(h.model).map((id) => verdict(id, VerdictKind.VERDICT_KIND_UNSAT))]));
  assert.equal(h.model.state, RunState.RUN_STATE_UNSAT);
  assert.ok(Math.abs(h.model.table.refutedWeight - 1) < 1e-12);
  const replayed = h.replay();
  assert.equal(replayed.state, RunState.RUN_STATE_UNSAT);
  assert.equal(replayed.table.refutedWeight, h.model.table.refutedWeight);
  assert.deepEqual(replayed.table.get("1.5")!.part, { k: 11, n: 32, depth: CUBE_PART_DEPTH });
  assert.deepEqual(replayed.table.get("6")!.part, { k: 0, n: 2, depth: CUBE_PART_DEPTH });
});
