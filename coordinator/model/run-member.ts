/**
 * A scan run's portfolio member (docs/cubing.md "Scan cubes"): its tasks, its verdicts and its going on, over the
 * shared steps of RunCore; coordinator/model/run-model.ts publishes it with the split and hands it its verdicts.
 */

import { progressProblem } from "../../core/cubes/parts.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import type { RunSteps } from "./run-effects.js";
import { CUBE_PART_DEPTH, MAX_MEMBER_SHARE, SCAN_MEMBER_ID } from "./run-defaults.js";
import { taskMessage } from "./task-message.js";
import { answerOfVerdict, closedOf } from "./run-answers.js";
import { isOpen } from "./run-ledger-state.js";
import { RunCore } from "./run-core.js";

/**
 * Scan runs (cell order "scan", docs/cubing.md "Scan cubes"): the portfolio member, a whole-board engine scan in
 * the `long` order beside the `short` cubes, and its first budget. `cubist solve` runs the same two scans side by
 * side; the member finds the boards where the long scan is far ahead. Stopped by its budget it goes on later from
 * where it stopped (its whole board numbered as part 0 of 1, docs/cubing.md "Resuming"), each time with twice the
 * budget (up to SCAN_MEMBER_MAX_SEC: a resume repeats the subtree it stopped in, so a budget must grow past the
 * largest), while its worker time stays within the run's `--member-share` of the whole (0.5: the two scans get the
 * run's time as `cubist solve` gives them its two cores; 0, the default: the member runs its first budget only).
 * Each attempt sent and each stop is in the ledger (MemberState): a coordinator that replays it takes the verdict of
 * the attempt in flight, or sends the next one at once.
 */
export { SCAN_MEMBER_ID };
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

/** The member's part of a run's decisions; RunModel extends it. */
export abstract class RunMemberCore extends RunCore {
  /** The portfolio member's UNSAT when it came back before the split's last cube was recorded (splitScan closes them). */
  protected memberUnsat: Verdict | null = null;
  /** Worker time (ms) the member's and the cubes' verdicts reported, since this coordinator took the run. */
  private memberMs = 0;
  protected cubeMs = 0;

  /**
   * The member's task: the whole board in the long order, numbered as part 0 of 1, from `from` on, with its own
   * budget; recorded once published (a crash between the two leaves the last stop to be sent again on replay).
   */
  protected *publishMember(budgetSec: number, from: number, attempts: number, front: boolean): RunSteps {
    const part: CubePart = { k: 0, n: 1, depth: CUBE_PART_DEPTH, ...(from > 0 ? { from } : {}) };
    // Each attempt its own attempt number, so its own message id: JetStream drops a message whose id it has seen
    // within its duplicate window (2 minutes), and the member would never go on.
    const task = taskMessage(this.spec, this.shape, { id: SCAN_MEMBER_ID, placements: [], part }, attempts, this.opts.clock(), this.opts.lease(),
      { order: SCAN_MEMBER_ORDER, timeLimitSec: budgetSec });
    yield* this.publishAndRecord({ type: "publish", tasks: [task], seqs: [], ...(front ? { front: true } : {}) },
      () => ({ $case: "member", value: { from: { next: from, depth: CUBE_PART_DEPTH }, budgetSec, attempts, lease: task.task.lease, searchNodes: 0 } }));
  }

  /**
   * A stopped member (its last recorded state has no lease: no attempt in flight) goes on, to the front queue, once
   * the cubes have had their share of the run's worker time.
   */
  protected *continueMember(): RunSteps {
    const s = this.memberState;
    if (!s?.from || s.lease !== "" || this.ended || this.state !== RunState.RUN_STATE_RUNNING) return;
    const share = memberShare(this.spec);
    if (this.memberMs > (share / (1 - share)) * this.cubeMs) return;
    yield* this.publishMember(s.budgetSec, s.from.next, s.attempts + 1, true);
    this.log.info("portfolio member goes on", { from: s.from.next, budgetSec: s.budgetSec, attempt: s.attempts + 1 });
  }

  /**
   * The portfolio member's answer: its board ends the run (once verified); its exhausted space (the whole board,
   * nothing fixed but the hints) refutes every open cube, each with its own weight, so the weights still sum to 1.
   * Stopped by its budget with a report of how far it got, it goes on later from there (continueMember).
   */
  protected *recordMember(v: Verdict): RunSteps {
    const m = this.table.member(v.cubeId)!;
    if (!m.open) return;
    m.open = false;
    this.memberMs += workerMs(v);
    if (v.kind === VerdictKind.VERDICT_KIND_SAT) {
      const accepted = v.board.length > 0 ? answerOfVerdict(this.shape, this.spec, v, this.log) : null;
      yield* this.memberEnded(v);
      if (accepted?.ok) {
        yield* this.acceptSolution(accepted.cells, v.cubeId, v.workerId);
        return;
      }
      this.log.error("the portfolio member's board was rejected by the verifier: not a solution", { worker: v.workerId, violation: accepted && !accepted.ok ? accepted.reason : "no board" });
      yield* this.applyAndRecord({ $case: "rejectedModel", value: 1 });
      return;
    }
    if (v.kind !== VerdictKind.VERDICT_KIND_UNSAT) {
      const progress = v.kind === VerdictKind.VERDICT_KIND_UNKNOWN && memberShare(this.spec) > 0 ? this.memberProgress(v) : undefined;
      if (!progress) {
        this.log.info("portfolio member gave up", { verdict: verdictLabel(v.kind), reason: v.reason, nodes: v.stats?.searchNodes ?? 0 });
        yield* this.memberEnded(v);
        return;
      }
      yield* this.memberBack(v, progress, Math.min(SCAN_MEMBER_MAX_SEC, 2 * (this.memberState?.budgetSec ?? SCAN_MEMBER_SEC)));
      yield* this.continueMember();
      return;
    }
    // Its tasks are published before the split's cubes are all recorded: the cubes recorded later must close too.
    if (!this.table.initialSplitDone) {
      this.memberUnsat = v;
      return;
    }
    yield* this.closeAllByMember(v);
  }

  /** The member ends without exhausting the board (gave up, or a board): its state has no start, its placements count. */
  private *memberEnded(v: Verdict): RunSteps {
    yield* this.memberBack(v, undefined, this.memberState?.budgetSec ?? SCAN_MEMBER_SEC);
  }

  /**
   * An attempt came back: nothing in flight (no lease), its placements recorded (closedOf's reading of them), and
   * where the next attempt would start with what budget (no start: it does not go on).
   */
  private *memberBack(v: Verdict, from: PartProgress | undefined, budgetSec: number): RunSteps {
    const searchNodes = v.stats?.searchNodes ?? 0;
    yield* this.record({ $case: "member", value: { from, budgetSec, attempts: this.memberState?.attempts ?? 0, lease: "", searchNodes } });
  }

  /** How far the member got, if its report fits its task (whole board numbered at CUBE_PART_DEPTH, not behind its start). */
  private memberProgress(v: Verdict): PartProgress | undefined {
    const p = v.partNext;
    const from = this.memberState?.from?.next ?? 0;
    if (!p || progressProblem(p) !== null || p.depth !== CUBE_PART_DEPTH || p.next < from) return undefined;
    return { next: p.next, depth: p.depth };
  }

  /** The member exhausted the whole board: every open cube is refuted with its own weight, and the workers stop. */
  protected *closeAllByMember(v: Verdict): RunSteps {
    const closed: CubeClosed[] = [];
    const reason = `refuted by ${v.cubeId}: the whole board's ${SCAN_MEMBER_ORDER} scan exhausted`;
    for (const e of [...this.table.entries()]) {
      // The member's own statistics go with the first cube it closes, so the run's placements include them.
      const own = closed.length === 0;
      if (isOpen(e)) this.close({ ...closedOf(v, VerdictKind.VERDICT_KIND_UNSAT, reason), id: e.id, ...(own ? {} : { wallMs: 0, searchNodes: 0, conflicts: 0 }), estNodes: 0, estNodesStderr: 0 }, closed);
    }
    this.log.info("portfolio member exhausted the board", { cubes: closed.length, nodes: v.stats?.searchNodes ?? 0 });
    yield* this.flushClosed(closed);
    yield { type: "cancel", cube: "", reason: "refuted" };
  }
}
