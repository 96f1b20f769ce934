/**
 * The scan member, a part of the run model (coordinator/model/run-model.ts): a scan run's portfolio member (cell order
 * "scan", docs/cubing.md "Scan cubes"), a whole-board engine scan in the `long` order beside the `short` cubes, with
 * a first budget of its own. `cubist solve` runs the same two scans side by side; the member finds the boards where
 * the long scan is far ahead. Stopped by its budget it goes on later from where it stopped (its whole board numbered
 * as part 0 of 1, docs/cubing.md "Resuming"), each time with twice the budget (up to SCAN_MEMBER_MAX_SEC: a resume
 * repeats the subtree it stopped in, so a budget must grow past the largest), while its worker time stays within the
 * run's `--member-share` of the whole (0.5: the two scans get the run's time as `cubist solve` gives them its two
 * cores; 0, the default: the member runs its first budget only).
 *
 * Each attempt sent and each stop is in the ledger ("member" entries, MemberState): a coordinator that replays it takes
 * the verdict of the attempt in flight, or sends the next one at once. The worker time weighed against the cubes' is
 * live only (since this coordinator took the run), and so is an exhausted board reported before the split's last cube
 * was recorded (the split closes the cubes recorded later: coordinator/model/split-run.ts).
 */

import { progressProblem } from "../../core/cubes/parts.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, MemberState } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import { isOpen } from "./cube-entry.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import { CUBE_PART_DEPTH, MAX_MEMBER_SHARE, SCAN_MEMBER_ID } from "./run-defaults.js";
import { answerOfVerdict, closedOf } from "./run-answers.js";
import { close, flushClosed, type CubesRun } from "./run-cubes.js";
import { acceptSolution, rejectAnswer } from "./run-solutions.js";

export const SCAN_MEMBER_ORDER = "long";
export const SCAN_MEMBER_SEC = 10;
export const SCAN_MEMBER_MAX_SEC = 86_400;

/**
 * The share of the workers' time the member may take by going on: the run's `--member-share` (CubingSpec.member_share),
 * 0 by default, by measurement: at 0.5 it made `--workers 2` 1.5x slower on bench/puzzles/unsat-8x8-b4.txt (47.8 s
 * against 31.9 s) and `--workers 1` 1.2x, w1 / w2 1.97x -> 1.58x (BENCHMARKS.md, 2026-11-26).
 */
function memberShare(spec: { cubing?: { memberShare?: number } }): number {
  const f = spec.cubing?.memberShare ?? 0;
  return Number.isFinite(f) && f > 0 ? Math.min(f, MAX_MEMBER_SHARE) : 0;
}

/** The worker time a verdict reports (ms; 0 when absent or not a positive number): the member's share weighs these. */
export function workerMs(v: Verdict): number {
  const ms = v.stats?.wallMs ?? 0;
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

export class ScanMember {
  private last: MemberState | null = null;
  private earlyUnsat: Verdict | null = null;
  private memberMs = 0;
  private cubeMs = 0;

  /** The member's last attempt as recorded (sent, or stopped to go on later); null before one. */
  get state(): MemberState | null {
    return this.last;
  }

  apply(b: Extract<LedgerBody, { $case: "member" }>): void {
    this.last = b.value;
  }

  /** Worker time (ms) a cube's verdict reported (live only). */
  addCubeTime(ms: number): void {
    this.cubeMs += ms;
  }

  /** Worker time (ms) the member's verdict reported (live only). */
  addMemberTime(ms: number): void {
    this.memberMs += ms;
  }

  /** Whether the member's worker time is within `share` of the whole, so that it may go on. */
  withinShare(share: number): boolean {
    return this.memberMs <= (share / (1 - share)) * this.cubeMs;
  }

  /** Holds the member's UNSAT that came back before the split's last cube was recorded (live only). */
  holdUnsat(v: Verdict): void {
    this.earlyUnsat = v;
  }

  /** The UNSAT held back, if any, which the split then carries out (and no longer holds). */
  takeUnsat(): Verdict | null {
    const v = this.earlyUnsat;
    this.earlyUnsat = null;
    return v;
  }
}

/** What the member's decisions read: the run's cubes, solutions and life, and the member. */
export interface MemberRun extends CubesRun {
  readonly member: ScanMember;
}

/**
 * The member's task: the whole board in the long order, numbered as part 0 of 1, from `from` on, with its own
 * budget; recorded once published (a crash between the two leaves the last stop to be sent again on replay).
 */
export function* publishMember(run: MemberRun, budgetSec: number, from: number, attempts: number, front: boolean): RunSteps {
  const part: CubePart = { k: 0, n: 1, depth: CUBE_PART_DEPTH, ...(from > 0 ? { from } : {}) };
  // Each attempt its own attempt number, so its own message id: JetStream drops a message whose id it has seen
  // within its duplicate window (2 minutes), and the member would never go on.
  const task = run.recorder.task({ id: SCAN_MEMBER_ID, placements: [], part }, attempts, { order: SCAN_MEMBER_ORDER, timeLimitSec: budgetSec });
  yield* run.recorder.publishAndRecord({ type: "publish", tasks: [task], seqs: [], ...(front ? { front: true } : {}) },
    () => ({ $case: "member", value: { from: { next: from, depth: CUBE_PART_DEPTH }, budgetSec, attempts, lease: task.task.lease, searchNodes: 0 } }));
}

/**
 * A stopped member (its last recorded state has no lease: no attempt in flight) goes on, to the front queue, once
 * the cubes have had their share of the run's worker time.
 */
export function* continueMember(run: MemberRun): RunSteps {
  const s = run.member.state;
  if (!s?.from || s.lease !== "" || run.life.ended || run.life.state !== RunState.RUN_STATE_RUNNING) return;
  if (!run.member.withinShare(memberShare(run.spec))) return;
  yield* publishMember(run, s.budgetSec, s.from.next, s.attempts + 1, true);
  run.log.info("portfolio member goes on", { from: s.from.next, budgetSec: s.budgetSec, attempt: s.attempts + 1 });
}

/**
 * The portfolio member's answer: its board ends the run (once verified); its exhausted space (the whole board,
 * nothing fixed but the hints) refutes every open cube, each with its own weight, so the weights still sum to 1.
 * Stopped by its budget with a report of how far it got, it goes on later from there (continueMember).
 */
export function* recordMember(run: MemberRun, v: Verdict): RunSteps {
  if (!run.cubes.takeMember(v.cubeId)) return;
  run.member.addMemberTime(workerMs(v));
  if (v.kind === VerdictKind.VERDICT_KIND_SAT) {
    const accepted = v.board.length > 0 ? answerOfVerdict(run.shape, run.spec, v, run.log) : null;
    yield* memberEnded(run, v);
    if (accepted?.ok) {
      yield* acceptSolution(run, accepted.cells, v.cubeId, v.workerId);
      return;
    }
    run.log.error("the portfolio member's board was rejected by the verifier: not a solution", { worker: v.workerId, violation: accepted && !accepted.ok ? accepted.reason : "no board" });
    yield* rejectAnswer(run);
    return;
  }
  if (v.kind !== VerdictKind.VERDICT_KIND_UNSAT) {
    const progress = v.kind === VerdictKind.VERDICT_KIND_UNKNOWN && memberShare(run.spec) > 0 ? memberProgress(run, v) : undefined;
    if (!progress) {
      run.log.info("portfolio member gave up", { verdict: verdictLabel(v.kind), reason: v.reason, nodes: v.stats?.searchNodes ?? 0 });
      yield* memberEnded(run, v);
      return;
    }
    yield* memberBack(run, v, progress, Math.min(SCAN_MEMBER_MAX_SEC, 2 * (run.member.state?.budgetSec ?? SCAN_MEMBER_SEC)));
    yield* continueMember(run);
    return;
  }
  // Its tasks are published before the split's cubes are all recorded: the cubes recorded later must close too.
  if (!run.cubes.table.initialSplitDone) {
    run.member.holdUnsat(v);
    return;
  }
  yield* closeAllByMember(run, v);
}

/** The member ends without exhausting the board (gave up, or a board): its state has no start, its placements count. */
function* memberEnded(run: MemberRun, v: Verdict): RunSteps {
  yield* memberBack(run, v, undefined, run.member.state?.budgetSec ?? SCAN_MEMBER_SEC);
}

/**
 * An attempt came back: nothing in flight (no lease), its placements recorded, and where the next attempt would start
 * with what budget (no start: it does not go on).
 */
function* memberBack(run: MemberRun, v: Verdict, from: PartProgress | undefined, budgetSec: number): RunSteps {
  const searchNodes = v.stats?.searchNodes ?? 0;
  yield* run.recorder.record({ $case: "member", value: { from, budgetSec, attempts: run.member.state?.attempts ?? 0, lease: "", searchNodes } });
}

/** How far the member got, if its report fits its task (whole board numbered at CUBE_PART_DEPTH, not behind its start). */
function memberProgress(run: MemberRun, v: Verdict): PartProgress | undefined {
  const p = v.partNext;
  const from = run.member.state?.from?.next ?? 0;
  if (!p || progressProblem(p) !== null || p.depth !== CUBE_PART_DEPTH || p.next < from) return undefined;
  return { next: p.next, depth: p.depth };
}

/** The member exhausted the whole board: every open cube is refuted with its own weight, and the workers stop. */
export function* closeAllByMember(run: MemberRun, v: Verdict): RunSteps {
  const closed: CubeClosed[] = [];
  const reason = `refuted by ${v.cubeId}: the whole board's ${SCAN_MEMBER_ORDER} scan exhausted`;
  for (const e of [...run.cubes.table.entries()]) {
    // The member's own statistics go with the first cube it closes, so the run's placements include them.
    const own = closed.length === 0;
    if (isOpen(e)) close(run, { ...closedOf(v, VerdictKind.VERDICT_KIND_UNSAT, reason), id: e.id, ...(own ? {} : { wallMs: 0, searchNodes: 0, conflicts: 0 }), estNodes: 0, estNodesStderr: 0 }, closed);
  }
  run.log.info("portfolio member exhausted the board", { cubes: closed.length, nodes: v.stats?.searchNodes ?? 0 });
  yield* flushClosed(run, closed);
  yield { type: "cancel", cube: "", reason: "refuted" };
}
