/**
 * Counting runs (mode all) in the run model without NATS: counted verdicts in, the ledger out. Each cube's count and
 * boards come from an independent brute-force counter (test/helpers/brute-force.ts), so the summed count is checked
 * against the whole puzzle's. Replaying the ledger rebuilds the count; a verdict for a closed cube (a redelivery after
 * a crash) adds nothing; forged counts are rejected by the coordinator's checks (coordinator/model/count-intake.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type RunRequest } from "../../coordinator/run-spec.js";
import { RunModel } from "../../coordinator/model/run-model.js";
import { checkCount } from "../../coordinator/model/count-intake.js";
import { writeCanonical } from "../../core/formats/index.js";
import { generatePuzzle } from "../../core/generate.js";
import { rotateEdges, type Placement, type Puzzle } from "../../core/puzzle.js";
import { FaultKind, VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { bruteBoardsSquare } from "../helpers/brute-force.js";
import { formatCount } from "../../cli/control-format.js";
import { modelHarness, squarePuzzleOf } from "../helpers/run-model.js";

const GENERATED = generatePuzzle({ rows: 3, cols: 4, borderColors: 2, centerColors: 2, seed: 3 });
const PUZZLE_TEXT = writeCanonical(GENERATED.puzzle);

function harness(req: Partial<RunRequest>) {
  const h = modelHarness({ runId: "r1", puzzleText: PUZZLE_TEXT, mode: "all", targetCubes: 6, ...req });
  return { ...h, puzzle: squarePuzzleOf(h) };
}

/** A brute-force board (colours per cell) as placements: any unused piece showing the colours (copies are one board). */
function placementsOf(puzzle: Puzzle, colours: number[][]): Placement[] {
  const used = new Set<number>();
  return colours.map((shown, cell) => {
    for (let piece = 0; piece < puzzle.pieces.length; piece++) {
      if (used.has(piece)) continue;
      for (let rot = 0; rot < 4; rot++) {
        if (rotateEdges(puzzle.pieces[piece].edges, rot).join() === shown.join()) {
          used.add(piece);
          return { cell, piece, rot };
        }
      }
    }
    throw new Error(`no piece shows ${shown.join()} at cell ${cell}`);
  });
}

/** The brute-force boards inside a cube: their cells show the cube's placements' colours. */
function boardsIn(puzzle: Puzzle, all: number[][][], cube: readonly Placement[]): Placement[][] {
  return all
    .filter((b) => cube.every((p) => b[p.cell].join() === rotateEdges(puzzle.pieces[p.piece].edges, p.rot).join()))
    .map((b) => placementsOf(puzzle, b));
}

function counted(cube: string, boards: Placement[][], cap: number, extra: Partial<Verdict> = {}): Verdict {
  return {
    runId: "r1", cubeId: cube, kind: boards.length > 0 ? VerdictKind.VERDICT_KIND_SAT : VerdictKind.VERDICT_KIND_UNSAT, model: Buffer.alloc(0), numVars: 0,
    stats: undefined, workerId: "w1", host: "h", delivery: 1, reason: "", generation: 0, board: [], taskSeq: 0, best: [], lease: "", proofSha256: "", fault: FaultKind.FAULT_KIND_UNSPECIFIED,
    counted: { solutions: boards.length, boards: boards.slice(0, cap).map((cells) => ({ cells })) },
    ...extra,
  };
}

function open(m: RunModel): string[] {
  return [...m.table.entries()].filter((e) => e.state === "queued" || e.state === "unknown").map((e) => e.id);
}

const ALL = bruteBoardsSquare(GENERATED.puzzle);

test("count model - the cubes' exact counts sum to the brute-force count; replay and a redelivered verdict do not double count", async () => {
  assert.ok(ALL.length >= 4, `the test puzzle has ${ALL.length} solutions`);
  const h = harness({});
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cap = h.model.spec.solver!.countBoards!;
  const ids = open(h.model);
  assert.ok(ids.length >= 2);
  const verdicts = ids.map((id) => counted(id, boardsIn(h.puzzle, ALL, h.model.table.get(id)!.placements), cap));
  const half = Math.ceil(verdicts.length / 2);
  await h.run(h.model.recordVerdicts(verdicts.slice(0, half)));
  const partial = verdicts.slice(0, half).reduce((s, v) => s + v.counted!.solutions, 0);
  assert.equal(h.model.count.counted, partial);
  // A restarted coordinator replays the ledger to the same count, and a verdict delivered again adds nothing.
  const replayed = h.replay();
  assert.equal(replayed.count.counted, partial);
  assert.equal(replayed.coveredWeight, h.model.coveredWeight);
  await h.run(h.model.recordVerdicts(verdicts.slice(0, 1)));
  assert.equal(h.model.count.counted, partial);
  await h.run(h.model.recordVerdicts(verdicts.slice(half)));
  assert.equal(h.model.state, RunState.RUN_STATE_SAT, h.model.message);
  assert.equal(h.model.count.counted, ALL.length);
  assert.ok(h.model.countComplete);
  assert.ok(Math.abs(h.model.coveredWeight - 1) < 1e-9, `covered ${h.model.coveredWeight}`);
  assert.equal(h.model.solutions.list.length, ALL.length);
  const end = h.replay();
  assert.deepEqual([end.state, end.count.counted, end.solutions.list.length, end.countComplete], [RunState.RUN_STATE_SAT, ALL.length, ALL.length, true]);
});

test("count model - a limit ends the run with an incomplete count; forged counts are rejected and the cube sent again", async () => {
  const h = harness({ solutionLimit: 1 });
  await h.run(h.model.start());
  await h.run(h.model.splitInitial());
  const cap = h.model.spec.solver!.countBoards!;
  const ids = open(h.model);
  const withBoards = ids.find((id) => boardsIn(h.puzzle, ALL, h.model.table.get(id)!.placements).length > 0)!;
  const boards = boardsIn(h.puzzle, ALL, h.model.table.get(withBoards)!.placements);
  // More solutions claimed than boards sent (under the cap): rejected, not counted.
  h.effects.length = 0;
  await h.run(h.model.recordVerdicts([counted(withBoards, boards, cap, { counted: { solutions: boards.length + 1, boards: boards.map((cells) => ({ cells })) } })]));
  assert.equal(h.model.count.counted, 0);
  assert.equal(h.model.solutions.rejected, 1);
  assert.ok(h.effects.some((e) => e.type === "publish" && e.tasks[0].task.cubeId === withBoards));
  await h.run(h.model.recordVerdicts([counted(withBoards, boards, cap)]));
  assert.equal(h.model.state, RunState.RUN_STATE_SAT);
  assert.equal(h.model.count.counted, boards.length);
  assert.equal(h.model.countComplete, false);
  assert.match(h.model.message, /limit reached/);
});

test("count intake - boards that are not solutions, outside the cube, repeated, or missing are rejected", () => {
  const h = harness({});
  const { puzzle, shape } = h;
  const boards = ALL.map((b) => placementsOf(puzzle, b));
  const v = (bs: Placement[][], solutions = bs.length): Verdict => counted("0", bs, 100, { counted: { solutions, boards: bs.map((cells) => ({ cells })) } });
  assert.deepEqual(checkCount(shape, [], v(boards), 100, false).kind, "counted");
  assert.equal(checkCount(shape, [], v(boards.slice(0, 2), 5), 2, false).kind, "counted");
  assert.equal(checkCount(shape, [], v(boards.slice(0, 2), 5), 2, true).kind, "too-many");
  const reason = (c: ReturnType<typeof checkCount>): string => (c.kind === "rejected" ? c.reason : `not rejected: ${c.kind}`);
  assert.match(reason(checkCount(shape, [], v(boards.slice(0, 2), 5), 100, false)), /expected 5/);
  assert.match(reason(checkCount(shape, [], v([boards[0], boards[0]]), 100, false)), /repeats/);
  const swapped = boards[0].map((p, i, all) => (i === 0 ? { ...p, piece: all[1].piece, rot: all[1].rot } : i === 1 ? { ...p, piece: all[0].piece, rot: all[0].rot } : p));
  assert.match(reason(checkCount(shape, [], v([swapped]), 100, false)), /board 0/);
  assert.match(reason(checkCount(shape, [], v([boards[0].slice(1)]), 100, false)), /placements on/);
  // A board of another cube: its first cell shows other colours than the cube's placement.
  const other = boards.find((b) => rotateEdges(puzzle.pieces[b[0].piece].edges, b[0].rot).join() !== rotateEdges(puzzle.pieces[boards[0][0].piece].edges, boards[0][0].rot).join());
  if (other) assert.match(reason(checkCount(shape, [boards[0][0]], v([other]), 100, false)), /not in the cube/);
  assert.match(reason(checkCount(shape, [], { ...v(boards), kind: VerdictKind.VERDICT_KIND_UNSAT }, 100, false)), /UNSAT/);
});

test("count views - run show, run watch and solution list say exactly or at least, and nothing for other runs", () => {
  assert.equal(formatCount({ solutionCount: 1820, countComplete: true, state: RunState.RUN_STATE_SAT }), "exactly 1820 solutions");
  assert.equal(formatCount({ solutionCount: 0, countComplete: true, state: RunState.RUN_STATE_UNSAT }), "exactly 0 solutions");
  assert.equal(formatCount({ solutionCount: 1, countComplete: false, state: RunState.RUN_STATE_RUNNING }), "at least 1 solution so far");
  assert.match(formatCount({ solutionCount: 7, countComplete: false, state: RunState.RUN_STATE_SAT }), /^at least 7 solutions \(the count stopped/);
  assert.equal(formatCount({ state: RunState.RUN_STATE_SAT }), "");
});
