/**
 * A run's initial split, for the run model (coordinator/model/run-model.ts): the shape's splitter streams cubes,
 * boards it filled and the weight it refuted; boards are offered as solutions first (a counting run counts them as
 * cubes like any other), then the cubes are published and recorded in batches. A scan run's cubes go out in scan
 * order with the portfolio members second in the queue (coordinator/model/scan-member.ts).
 */

import type { Cube } from "../../core/cubes/types.js";
import type { RunSteps } from "./run-effects.js";
import { scanSymmetry } from "../../core/cubes/scan-split.js";
import { publishCubes } from "./run-cubes.js";
import { checkComplete, type OutcomeRun } from "./run-outcome.js";
import { offerBoard } from "./run-solutions.js";
import { closeAllByMember, publishMember, SCAN_MEMBER_SEC, type MemberRun } from "./scan-member.js";
import { memberId, memberTrees, type ScanTree } from "./scan-trees.js";
import type { SplitBoard } from "./shape.js";

/** What the split reads and records: the run's cubes, solutions, member and outcome. */
export interface SplitRun extends MemberRun, OutcomeRun {}

/**
 * The initial split, streamed: cubes are published and recorded a batch at a time as the splitter gives them, a board
 * it fills is offered as a solution when it comes (a counting run counts it as a cube like any other), and while the
 * splitter grows its tree the split lets the shell's other work run ("breathe"), so a split of a million cubes holds
 * neither the API nor all its cubes at once.
 */
export function* splitRun(run: SplitRun): RunSteps {
  if (run.spec.cubing!.cellOrder === "scan") return yield* splitScan(run);
  const t0 = run.opts.clock();
  let batch: Array<{ id: string; cube: Cube } | null> = [];
  let next = 0;
  let boards = 0;
  let firstCubeAt = 0;
  const add = (cube: Cube): void => {
    if (next === 0) firstCubeAt = run.opts.clock();
    batch.push({ id: String(next++), cube });
  };
  for (const ev of run.shape.split(run.spec.cubing!)) {
    if (ev.kind === "progress") yield { type: "breathe" };
    else if (ev.kind === "cube" || (ev.kind === "solution" && run.counting)) add(ev.kind === "cube" ? ev.cube : ev.solution);
    else if (ev.kind === "solution") {
      boards++;
      if (yield* offerBoard(run, ev.solution.cells, "split", "coordinator")) return;
    } else {
      const splitMs = (firstCubeAt || run.opts.clock()) - t0;
      yield* publishCubes(run, undefined, batch, "initial", true, { count: ev.refuted.count, weight: ev.refuted.weight });
      batch = [];
      const ms = Math.max(1, run.opts.clock() - (firstCubeAt || t0));
      run.log.info("split done", { cubes: next, refuted: ev.refuted.count, solutions: boards, ms: Math.round(splitMs), rssMB: run.opts.memoryMB?.() });
      run.log.info("cubes dispatched", { cubes: next, ms: Math.round(ms), perSecond: Math.round((next / ms) * 1000), rssMB: run.opts.memoryMB?.() });
    }
    if (batch.length >= run.opts.batchSize) {
      yield* publishCubes(run, undefined, batch, "initial", false, { count: 0, weight: 0 });
      batch = [];
    }
  }
  yield* checkComplete(run);
}

/**
 * The initial split of a scan run: the engine's own scan tree cut at the first level with `targetCubes` partial
 * boards, the cubes published in scan order (so one worker replays the whole scan), and the portfolio members (the
 * other trees `cubist solve` searches: coordinator/model/scan-trees.ts) second in the queue (first for a second
 * worker), also with cube parts (core/cubes/parts.ts): where another tree wins, it wins by up to 300x, and behind the
 * first cube's parts it would wait for all of them (Brendan's 9x6 seed 2: 3.3 s on two workers against 1.1 s).
 * Certified and score runs and runs with a SAT solver get no member.
 */
function* splitScan(run: SplitRun): RunSteps {
  const c = run.spec.cubing!;
  const t0 = run.opts.clock();
  const r = { cubes: [] as Cube[], solutions: [] as SplitBoard[], refuted: { count: 0, weight: 0 } };
  for (const ev of run.shape.split(c)) {
    if (ev.kind === "cube") r.cubes.push(ev.cube);
    else if (ev.kind === "solution") r.solutions.push(ev.solution);
    else if (ev.kind === "done") r.refuted = ev.refuted;
  }
  const depth = r.cubes.reduce((d, cube) => Math.max(d, cube.placements.length), 0);
  run.log.info("scan split done", { cubes: r.cubes.length, depth, refuted: r.refuted.count, solutions: r.solutions.length, ms: Math.round(run.opts.clock() - t0) });
  for (const s of r.solutions) {
    if (yield* offerBoard(run, s.cells, "split", "coordinator")) return;
  }
  const ids: Array<{ id: string; cube: Cube } | null> = r.cubes.map((cube, i) => ({ id: String(i), cube }));
  const refuted = { count: r.refuted.count, weight: r.refuted.weight };
  const s = run.spec.solver!;
  const trees = ids.length > 1 ? splitMemberTrees(run) : [];
  if (trees.length === 0) {
    yield* publishCubes(run, undefined, ids, "initial", true, refuted);
  } else {
    yield* publishCubes(run, undefined, ids.slice(0, 1), "initial", false, { count: 0, weight: 0 });
    const budget = s.timeLimitSec > 0 ? Math.min(s.timeLimitSec, SCAN_MEMBER_SEC) : SCAN_MEMBER_SEC;
    for (const tree of trees) yield* publishMember(run, tree, budget, undefined, 0, false);
    yield* publishCubes(run, undefined, ids.slice(1), "initial", true, refuted);
    const early = run.member.takeUnsat();
    if (early && !run.life.ended) yield* closeAllByMember(run, early);
  }
  yield* checkComplete(run);
}

/**
 * The members' trees of a scan run (coordinator/model/scan-trees.ts) not yet in its table (a coordinator that took the
 * run over mid-split splits again): none for certified and score runs and runs with a SAT solver.
 */
function splitMemberTrees(run: SplitRun): ScanTree[] {
  const s = run.spec.solver!;
  if (run.spec.certify || s.solver !== "none" || s.objective === "score" || run.shape.kind !== "square") return [];
  const puzzle = run.shape.puzzle;
  const symmetry = scanSymmetry(puzzle, { certify: false, findOne: true });
  return memberTrees(puzzle, symmetry).filter((t) => !run.cubes.table.member(memberId(t)));
}
