/**
 * Scan cubes (core/cubes/scan-split.ts) against the real engine, and scan runs on the embedded cluster.
 *
 * The engine is the oracle for the split: the cubes of a scan, each searched by the engine with its placements
 * fixed, must add up to the engine's whole-board scan exactly (placements and solutions, counting to the end), and
 * taken in order they must meet the whole scan's first board after the same number of placements. Then `cubist
 * solve --workers N --cell-order scan` (a private nats-server, the coordinator, real worker processes, the real
 * engine) answers tiny boards: UNSAT with the weights summing to 1, SAT with a verified board.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { partsOf, resplitPart } from "../../core/cubes/parts.js";
import { scanSplit } from "../../core/cubes/scan-split.js";
import { CUBE_PART_DEPTH } from "../../coordinator/model/run-defaults.js";
import { parsePuzzle, readBoardJSON } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { boardFromPlacements, placementsOfBoard, type Puzzle } from "../../core/puzzle.js";
import { verifySolution } from "../../core/verify.js";
import { engineProblem, runEngine, type EngineOptions } from "../../worker/engine/index.js";
import { newMarker, waitNoMarked } from "../helpers/leftovers.js";
import { spawnCubist } from "../helpers/processes.js";

const fixture = (rel: string): Puzzle => parsePuzzle(readFileSync(new URL(`../fixtures/${rel}`, import.meta.url), "utf8"), rel);
const shape = (p: Puzzle) => ({ rows: p.rows, cols: p.cols, pieces: p.pieces.length });

async function engine(p: Puzzle, fixed: Parameters<typeof engineProblem>[1], o: EngineOptions) {
  const problem = engineProblem(p, fixed);
  assert.ok(problem !== null);
  return runEngine(problem, shape(p), { order: "short", ...o });
}

const BOARDS: Array<[string, () => Puzzle]> = [
  ["brendan 5x5", () => fixture("brendan/pieces_05x05.txt")],
  ["unsat 5x5", () => fixture("cluster/unsat-5x5.txt")],
  ["unsat 6x6", () => fixture("cluster/unsat-6x6.txt")],
  ["generated 4x6 (many solutions)", () => generatePuzzle({ rows: 4, cols: 6, borderColors: 2, centerColors: 3, seed: 3 }).puzzle],
];

test("scan cubes - the engine on each cube adds up to its whole scan: placements and solutions, counted to the end", async () => {
  for (const [name, make] of BOARDS) {
    const p = make();
    const whole = await engine(p, [], { count: true });
    for (const target of [1, 8, 40]) {
      const split = scanSplit(p, { targetCubes: target });
      let nodes = split.stats.nodes, solutions = split.solutions.length;
      for (const cube of split.cubes) {
        const r = await engine(p, cube.placements, { count: true });
        nodes += r.stats.nodes;
        solutions += r.stats.solutions;
      }
      assert.equal(nodes, whole.stats.nodes, `${name}, ${split.cubes.length} cubes: placements`);
      assert.equal(solutions, whole.stats.solutions, `${name}, ${split.cubes.length} cubes: solutions`);
    }
  }
});

test("cube parts - the engine on a cube's parts, and on a part's re-split, adds up to the cube: placements beyond the shared levels, and solutions", async () => {
  for (const [name, make] of BOARDS) {
    const p = make();
    const split = scanSplit(p, { targetCubes: 8 });
    for (const cube of split.cubes.slice(0, 3)) {
      const whole = await engine(p, cube.placements, { count: true });
      for (const depth of [2, CUBE_PART_DEPTH]) {
        let solutions = 0;
        const parts = partsOf(cube, 3, depth);
        const runs = [];
        for (const part of parts) runs.push(await engine(p, cube.placements, { count: true, part: part.part }));
        for (const r of runs) solutions += r.stats.solutions;
        assert.equal(solutions, whole.stats.solutions, `${name}, depth ${depth}: solutions`);
        // Each part repeats the levels above the part depth; below it the parts share the cube's placements out.
        assert.ok(runs.reduce((s, r) => s + r.stats.nodes, 0) >= whole.stats.nodes, `${name}, depth ${depth}: placements`);
        // A part re-split 4 ways counts what the part counts.
        const kids = resplitPart(parts[1], 4);
        let kidSolutions = 0;
        for (const kid of kids) kidSolutions += (await engine(p, cube.placements, { count: true, part: kid.part })).stats.solutions;
        assert.equal(kidSolutions, runs[1].stats.solutions, `${name}, depth ${depth}: a part's children`);
      }
    }
  }
});

test("resuming - a cube or a part stopped by a node limit says how far it got; its parts from there find every board it has, with fewer placements", async () => {
  const key = (b: readonly { cell: number; piece: number; rot: number }[]) => b.map((x) => `${x.cell}:${x.piece}:${x.rot}`).join(" ");
  async function boards(p: Puzzle, fixed: Parameters<typeof engineProblem>[1], o: EngineOptions) {
    const found = new Set<string>();
    const r = await engine(p, fixed, { ...o, count: true, printAll: true, onBoard: (b) => found.add(key(b)) });
    return { r, found };
  }
  let resumed = 0;
  for (const [name, make] of BOARDS) {
    const p = make();
    const split = scanSplit(p, { targetCubes: 8 });
    for (const cube of split.cubes.slice(0, 3)) {
      const whole = await boards(p, cube.placements, {});
      for (const [label, part] of [["whole cube", { k: 0, n: 1, depth: 3 }], ["part 1 of 2", { k: 1, n: 2, depth: 3 }]] as const) {
        const all = part.n === 1 ? whole : await boards(p, cube.placements, { part });
        if (all.r.stats.nodes < 40) continue;
        const stopped = await boards(p, cube.placements, { part, nodeLimit: Math.floor(all.r.stats.nodes / 3) });
        assert.equal(stopped.r.stats.end, "node-limit", `${name} ${label}`);
        const progress = stopped.r.stats.partNext;
        assert.ok(progress && progress.depth === 3, `${name} ${label}: the stop says how far it got`);
        resumed++;
        // The parts that replace it start there (a whole cube: its own parts; a part: parts of itself).
        const kids = part.n === 1 ? partsOf(cube, 3, progress.depth, progress.next) : resplitPart({ ...cube, part }, 3, progress);
        const found = new Set(stopped.found);
        let nodes = 0;
        for (const kid of kids) {
          const r = await boards(p, cube.placements, { part: kid.part });
          assert.equal(r.r.stats.end, "exhausted");
          for (const b of r.found) {
            assert.ok(all.found.has(b), `${name} ${label}: a resumed part's board is one of the part's`);
            found.add(b);
          }
          nodes += r.r.stats.nodes;
        }
        assert.deepEqual([...found].sort(), [...all.found].sort(), `${name} ${label}: every board`);
        // The subtrees it exhausted are not searched again: beyond the levels each part walks above the depth,
        // the parts make at most the placements the search had left.
        assert.ok(nodes < all.r.stats.nodes - stopped.r.stats.nodes + kids.length * 2000, `${name} ${label}: ${nodes} placements resumed`);
      }
    }
  }
  assert.ok(resumed >= 6, `${resumed} searches resumed`);
});

test("cube parts - with --symmetry: on an unsatisfiable board every part of every cube is exhausted; on a satisfiable one some part finds a board that verifies", async () => {
  const unsat = fixture("cluster/unsat-6x6.txt");
  for (const cube of scanSplit(unsat, { targetCubes: 8, symmetry: true }).cubes) {
    for (const part of partsOf(cube, 2, CUBE_PART_DEPTH)) {
      const r = await engine(unsat, cube.placements, { symmetry: true, part: part.part });
      assert.equal(r.kind, "unsat");
    }
  }
  const sat = fixture("brendan/pieces_05x05.txt");
  let boards = 0;
  for (const cube of scanSplit(sat, { targetCubes: 8, symmetry: true }).cubes) {
    for (const part of partsOf(cube, 2, CUBE_PART_DEPTH)) {
      const r = await engine(sat, cube.placements, { symmetry: true, part: part.part });
      if (r.kind !== "sat") continue;
      boards++;
      assert.deepEqual(verifySolution(sat, boardFromPlacements(sat, r.board)), { ok: true });
    }
  }
  assert.ok(boards >= 1);
});

test("scan cubes - taken in order, the cubes meet the whole scan's first board after the same placements (up to the split's own levels)", async () => {
  for (const [name, make] of BOARDS) {
    const p = make();
    const whole = await engine(p, [], {});
    const split = scanSplit(p, { targetCubes: 30 });
    let nodes = 0;
    let board: unknown = split.solutions[0]?.board ?? null;
    for (const cube of split.cubes) {
      if (board) break;
      const r = await engine(p, cube.placements, {});
      nodes += r.stats.nodes;
      if (r.kind === "sat") board = r.board;
    }
    if (whole.kind === "sat") {
      assert.deepEqual(board, whole.board, `${name}: the same first board`);
    } else {
      assert.equal(whole.kind, "unsat");
      assert.equal(board, null, `${name}: no board`);
    }
    // The cubes' placements plus the split's own levels (the split walks them whole, the scan only up to its board).
    assert.ok(nodes <= whole.stats.nodes && whole.stats.nodes - nodes <= split.stats.nodes, `${name}: ${nodes} + split ${split.stats.nodes} vs ${whole.stats.nodes}`);
  }
});

// With the board's symmetry broken (the engine's --symmetry, scanSplit's `symmetry`): a quarter of a square board's
// tree, half of an oblong one's. Counting refuses symmetry, so the unsat boards are exhausted and the sat ones
// followed to their first board. A corner piece with an identical copy is passed over for the next one without.
const SYM_BOARDS: Array<[string, () => Puzzle]> = [
  ...BOARDS,
  ["brendan 6x6", () => fixture("brendan/pieces_06x06.txt")],
  ["generated 5x4", () => generatePuzzle({ rows: 5, cols: 4, borderColors: 2, centerColors: 4, seed: 11 }).puzzle],
  ["generated 4x6 unsat", () => mirrorLast(generatePuzzle({ rows: 4, cols: 6, borderColors: 2, centerColors: 5, seed: 5 }).puzzle)],
  ["generated 5x3 (mirrored, still sat)", () => mirrorLast(generatePuzzle({ rows: 5, cols: 3, borderColors: 2, centerColors: 4, seed: 2 }).puzzle)],
  ["generated 5x5 s1 unsat", () => mirrorLast(generatePuzzle({ rows: 5, cols: 5, borderColors: 2, centerColors: 5, seed: 1 }).puzzle)],
  ["generated 5x5 s8 unsat", () => mirrorLast(generatePuzzle({ rows: 5, cols: 5, borderColors: 2, centerColors: 5, seed: 8 }).puzzle)],
];

/** The last piece mirrored (N E S W -> N W S E): usually unsat. */
function mirrorLast(p: Puzzle): Puzzle {
  const pieces = p.pieces.map((x, i) => (i === p.pieces.length - 1 ? { ...x, edges: [x.edges[0], x.edges[3], x.edges[2], x.edges[1]] as typeof x.edges } : x));
  return { ...p, name: `${p.name}-mirrored`, pieces };
}

test("scan cubes with symmetry - unsat: the cubes exhaust exactly the whole --symmetry scan; sat: in order they meet its first board", async () => {
  let unsat = 0, sat = 0, smaller = 0;
  for (const [name, make] of SYM_BOARDS) {
    const p = make();
    const whole = await engine(p, [], { symmetry: true });
    const plain = await engine(p, [], {});
    assert.equal(whole.kind, plain.kind, `${name}: the same verdict with and without symmetry`);
    for (const target of [1, 8, 40]) {
      const split = scanSplit(p, { targetCubes: target, symmetry: true });
      const weight = split.cubes.reduce((w, c) => w + c.weight, 0) + split.refuted.weight + split.solutions.reduce((w, c) => w + c.weight, 0);
      assert.ok(Math.abs(weight - 1) < 1e-9, `${name}: weights ${weight}`);
      let nodes = split.stats.nodes;
      // A board the split filled itself comes first in scan order (the split walks the scan's levels).
      let board: unknown = split.solutions[0] ? placementsOfBoard(split.solutions[0].board) : null;
      for (const cube of split.cubes) {
        if (board) break;
        const r = await engine(p, cube.placements, { symmetry: true });
        nodes += r.stats.nodes;
        if (r.kind === "sat") board = r.board;
        else assert.equal(r.kind, "unsat", `${name}: cube searched to the end`);
      }
      if (whole.kind === "unsat") {
        assert.equal(board, null, `${name}: no board`);
        assert.equal(nodes, whole.stats.nodes, `${name}, ${split.cubes.length} cubes: placements`);
        assert.ok(whole.stats.nodes <= plain.stats.nodes, `${name}: symmetry searches no more (${whole.stats.nodes} vs ${plain.stats.nodes})`);
        if (target === 1 && whole.stats.nodes * 1.5 < plain.stats.nodes) smaller++;
      } else {
        assert.equal(whole.kind, "sat");
        assert.deepEqual(board, whole.board, `${name}: the same first board`);
      }
    }
    if (whole.kind === "unsat") unsat++; else sat++;
  }
  assert.ok(unsat >= 3 && sat >= 3, `${unsat} unsat and ${sat} sat boards`);
  assert.ok(smaller >= 3, `only ${smaller} unsat boards searched at most 2/3 of their plain scan with symmetry`);
});

async function solve(args: string[]) {
  const marker = newMarker();
  const p = spawnCubist(["solve", ...args], { env: marker.env });
  const { code } = await p.exited;
  assert.deepEqual(await waitNoMarked(marker.value), []);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

test("scan cubes - solve --workers 2 on an unsatisfiable board: UNSAT, every cube refuted, weights sum to 1", async () => {
  const r = await solve(["test/fixtures/cluster/unsat-6x6.txt", "--workers", "2", "--json", "--cell-order", "scan", "--cubes", "40", "--solver", "none"]);
  assert.equal(r.code, 20, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unsat");
  assert.ok(Math.abs(out.stats.progress - 1) < 1e-9, `progress ${out.stats.progress}`);
  assert.equal(out.stats.cubes.failed, 0);
  assert.equal(out.stats.cubes.queued + out.stats.cubes.unknown, 0);
  assert.ok(out.stats.cubes.unsat >= 40);
  assert.ok(out.stats.placements > 0, "the engine's placements reach the run");
});

test("scan cubes - solve --workers 1 (the defaults pick scan cubes on a near-unique board) finds a verified board", async () => {
  const file = "test/fixtures/brendan/pieces_06x06.txt";
  const r = await solve([file, "--workers", "1", "--json", "--cubes", "20"]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "sat");
  const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
  assert.deepEqual(verifySolution(puzzle, readBoardJSON(out.board, puzzle)), { ok: true });
});

test("scan cubes - with --member-share the whole-board members go on exactly where their budgets stopped them, each attempt delivered, and an exhausted board ends the run UNSAT at weight 1", async () => {
  // 0.01 s budgets: the members (this board's seven other trees, each a few M placements: 0.05 s on a fast machine,
  // 0.4 s on a loaded one) are stopped and sent on several times within JetStream's 2-minute duplicate window, so each
  // attempt must carry its own message id to be delivered at all. (0.05 s budgets let a fast machine finish in one.)
  const r = await solve(["test/fixtures/cluster/unsat-7x7-hard.txt", "--workers", "2", "--json", "--cell-order", "scan", "--solver", "none", "--cube-time", "0.01", "--member-share", "0.5", "--verbose"]);
  assert.equal(r.code, 20, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, "unsat");
  assert.ok(Math.abs(out.stats.progress - 1) < 1e-9, `progress ${out.stats.progress}`);
  assert.equal(out.stats.cubes.failed, 0);
  const goesOn = r.stderr.split("\n").filter((l) => /portfolio member goes on/.test(l));
  const memberLines = r.stderr.split("\n").filter((l) => /portfolio member/.test(l));
  assert.ok(goesOn.length >= 1, memberLines.join("\n"));
  // A later attempt came back with the whole rest of its tree exhausted (with one message id for all attempts,
  // JetStream dropped every attempt after the first, and the cubes ended the run instead).
  const exhausted = memberLines.filter((l) => /portfolio member exhausted the board/.test(l));
  assert.equal(exhausted.length, 1, memberLines.join("\n"));
  // A later attempt was delivered and ran: the winner went on before it exhausted its tree, or (on a fast machine
  // the winner's tree may fit its first budget) some member went on a second time, after its second attempt came back.
  const winner = /member=(\S+)/.exec(exhausted[0])![1];
  const later = goesOn.some((l) => l.includes(`member=${winner} `)) || goesOn.some((l) => Number(/attempt=(\d+)/.exec(l)?.[1]) >= 3);
  assert.ok(later, `a later attempt came back (${winner} exhausted its tree):\n${memberLines.join("\n")}`);
  // Each member's attempts are sent once each, in order, and never start before the one before (an attempt that
  // ran out of budget inside the subtree it resumed in may start where the one before did).
  for (const id of new Set(goesOn.map((l) => /member=(\S+)/.exec(l)![1]))) {
    const mine = goesOn.filter((l) => l.includes(`member=${id} `));
    const attempts = mine.map((l) => Number(/attempt=(\d+)/.exec(l)![1]));
    const froms = mine.map((l) => Number(/from=(\d+)/.exec(l)![1]));
    assert.ok(attempts.every((a, i) => i === 0 || a > attempts[i - 1]!), `${id}: attempts ${attempts.join(",")}`);
    assert.ok(froms.every((f, i) => f > 0 && (i === 0 || f >= froms[i - 1]!)), `${id}: ${froms.join(",")}`);
  }
  // Each goes on exactly where it stopped (the engine's resume path), with the budget it started with.
  assert.ok(goesOn.every((l) => / exactly=yes /.test(l) && / budgetSec=0\.01 /.test(l)), goesOn.join("\n"));
});
