/**
 * The scan members, a part of the run model (coordinator/model/run-model.ts): a scan run's portfolio members (cell
 * order "scan", docs/cubing.md "Scan cubes"), whole-board engine scans of the trees `cubist solve` searches beside
 * the one the cubes split (coordinator/model/scan-trees.ts: the mirror, or on a square board with eight trees the
 * other seven), each with a first budget of its own. Stopped by its budget a member goes on later exactly where it
 * stopped (its whole board numbered as part 0 of 1 with the engine's resume path, docs/cubing.md "Resuming") with
 * the same budget (without a path, from an older worker, with twice the budget up to SCAN_MEMBER_MAX_SEC: such a
 * resume repeats the subtree it stopped in, so a budget must grow past the largest: nextBudgetSec), while
 * the members' worker time stays within the run's `--member-share` of the whole (by default the share that gives
 * every tree the same time, as `cubist solve` gives them its cores: run-spec.ts; 0: the first budget only).
 *
 * Each attempt sent and each stop is in the ledger ("member" entries, MemberState with the member's id): a
 * coordinator that replays it takes the verdict of an attempt in flight, or sends a stopped member on at once. The
 * worker time weighed against the cubes' is live only (since this coordinator took the run), and so is an exhausted
 * board reported before the split's last cube was recorded (the split closes the cubes recorded later:
 * coordinator/model/split-run.ts).
 */

import { progressProblem } from "../../core/cubes/parts.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed, MemberState } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import { isOpen } from "./cube-entry.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import { CUBE_PART_DEPTH, MAX_MEMBER_SHARE } from "./run-defaults.js";
import { answerOfVerdict, closedOf } from "./run-answers.js";
import { close, flushClosed, type CubesRun } from "./run-cubes.js";
import { acceptSolution, rejectAnswer } from "./run-solutions.js";
import { isMemberId } from "../../proto/contract.js";
import { LEGACY_MEMBER_ID, memberId, treeLabel, treeOfMember, type ScanTree } from "./scan-trees.js";

export const SCAN_MEMBER_SEC = 10;
export const SCAN_MEMBER_MAX_SEC = 86_400;

/**
 * The share of the workers' time the members together may take by going on: the run's `--member-share`
 * (CubingSpec.member_share; run-spec.ts resolves its default when the run is made, so a replay keeps it).
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
  private readonly states = new Map<string, MemberState>();
  private earlyUnsat: Verdict | null = null;
  private memberMs = 0;
  private cubeMs = 0;

  /** A member's last attempt as recorded (sent, or stopped to go on later); null before one. */
  state(id: string): MemberState | null {
    return this.states.get(id) ?? null;
  }

  /** The members' ids, in the order their first attempts were recorded. */
  get ids(): string[] {
    return [...this.states.keys()];
  }

  apply(b: Extract<LedgerBody, { $case: "member" }>): void {
    const id = b.value.id || LEGACY_MEMBER_ID;
    this.states.set(id, { ...b.value, id });
  }

  /** Worker time (ms) a cube's verdict reported (live only). */
  addCubeTime(ms: number): void {
    this.cubeMs += ms;
  }

  /** Worker time (ms) a member's verdict reported (live only). */
  addMemberTime(ms: number): void {
    this.memberMs += ms;
  }

  /**
   * Whether the members' worker time is within `share` of the whole, so that they may go on: the time of verdicts
   * back, and of tasks running now (`running`, from the workers' heartbeats); beyond it by at most `slackMs`.
   */
  withinShare(share: number, running: { cubes: number; members: number } = { cubes: 0, members: 0 }, slackMs = 0): boolean {
    return this.memberMs + running.members - slackMs <= (share / (1 - share)) * (this.cubeMs + running.cubes);
  }

  /** Holds a member's UNSAT that came back before the split's last cube was recorded (live only). */
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

/** What the members' decisions read: the run's cubes, solutions and life, and the members. */
export interface MemberRun extends CubesRun {
  readonly member: ScanMember;
}

/**
 * A member's task: the whole board in its tree, numbered as part 0 of 1, from `from` on, with its own budget;
 * recorded once published (a crash between the two leaves the last stop to be sent again on replay). A first
 * attempt goes to the main queue; one that goes on (`lead`) to the lead queue, which workers ask before the front
 * queue: behind a re-split's children there (16 or more, each up to its budget) the member would wait minutes.
 */
export function* publishMember(run: MemberRun, tree: ScanTree, budgetSec: number, from: PartProgress | undefined, attempts: number, lead: boolean): RunSteps {
  const id = memberId(tree);
  const next = from?.next ?? 0;
  const part: CubePart = { k: 0, n: 1, depth: CUBE_PART_DEPTH, ...(next > 0 ? { from: next } : {}), ...(from?.path ? { resume: from.path } : {}) };
  // Each attempt its own attempt number, so its own message id: JetStream drops a message whose id it has seen
  // within its duplicate window (2 minutes), and the member would never go on.
  const task = run.recorder.task({ id, placements: [], part }, attempts, { tree, timeLimitSec: budgetSec });
  yield* run.recorder.publishAndRecord({ type: "publish", tasks: [task], seqs: [], ...(lead ? { lead: true } : {}) },
    () => ({ $case: "member", value: { id, from: { next, depth: CUBE_PART_DEPTH, path: from?.path }, budgetSec, attempts, lease: task.task.lease, searchNodes: 0 } }));
}

/**
 * The stopped members (their last recorded state has no lease: no attempt in flight) go on, to the lead queue, once
 * the cubes have had their share of the run's worker time; each in its own tree, with its own next budget. When a
 * member's attempt has just come back (`freed`), one member may go on beyond the share by one attempt: the slot that
 * ran the attempt waits on the run's lead queue for a member to go on (worker/slot.ts LEAD_WAIT_MS), and would
 * otherwise sit idle until a status round sends one or the wait ends; the share still holds within one attempt.
 */
export function* continueMember(run: MemberRun, freed = false): RunSteps {
  let slack = freed;
  // In rounds, as `cubist solve` turns its trees: no member starts its next attempt before every member still going
  // (in flight, or stopped to go on) has had as many; a member's first attempt waits in the queue behind the cubes'
  // first one, and the members that go on (to the lead queue) would otherwise take its turns.
  const round = Math.min(...run.member.ids.map((id) => run.member.state(id)!).filter((s) => s.lease !== "" || s.from).map((s) => s.attempts));
  for (const id of run.member.ids) {
    const s = run.member.state(id)!;
    const tree = treeOfMember(id);
    if (!s.from || s.lease !== "" || !tree || run.life.ended || run.life.state !== RunState.RUN_STATE_RUNNING) continue;
    // Its next attempt published and not yet recorded (a status round asking while a verdict's decision publishes):
    // sent twice, both copies would run, and the member would wait for the copy whose lease the record keeps.
    if (s.attempts > round || run.recorder.inFlight.hasCube(id)) continue;
    if (!run.member.withinShare(memberShare(run.spec), runningMs(run), slack ? s.budgetSec * 1000 : 0)) continue;
    slack = false;
    yield* publishMember(run, tree, s.budgetSec, s.from, s.attempts + 1, true);
    run.log.info("portfolio member goes on", { member: id, from: s.from.next, exactly: s.from.path ? "yes" : "no", budgetSec: s.budgetSec, attempt: s.attempts + 1 });
  }
}

/**
 * Worker time (ms) of the run's tasks running now, cubes and members apart (the workers' heartbeats, RunModelOptions
 * `running`): a cube runs a whole budget (60 s by default) before its verdict says how long it took, and the members
 * would wait that long for their share.
 */
function runningMs(run: MemberRun): { cubes: number; members: number } {
  const now = run.opts.clock();
  const r = { cubes: 0, members: 0 };
  for (const t of run.opts.running?.() ?? []) {
    const ms = Number.isFinite(t.sinceMs) ? Math.max(0, now - t.sinceMs) : 0;
    // A member's last heartbeat may still show an attempt that is back: only one in flight counts.
    if (isMemberId(t.cube)) r.members += run.cubes.table.member(t.cube)?.open ? ms : 0;
    else if (run.cubes.table.get(t.cube)) r.cubes += ms;
  }
  return r;
}

/**
 * A portfolio member's answer: its board ends the run (once verified); its exhausted space (the whole board in its
 * tree, a complete search: nothing fixed but the hints) refutes every open cube, each with its own weight, so the
 * weights still sum to 1. Stopped by its budget with a report of how far it got, it goes on later from there
 * (continueMember).
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
    run.log.error("the portfolio member's board was rejected by the verifier: not a solution", { member: v.cubeId, worker: v.workerId, violation: accepted && !accepted.ok ? accepted.reason : "no board" });
    yield* rejectAnswer(run);
    return;
  }
  if (v.kind !== VerdictKind.VERDICT_KIND_UNSAT) {
    const progress = v.kind === VerdictKind.VERDICT_KIND_UNKNOWN && memberShare(run.spec) > 0 ? memberProgress(run, v) : undefined;
    if (!progress) {
      run.log.info("portfolio member gave up", { member: v.cubeId, verdict: verdictLabel(v.kind), reason: v.reason, nodes: v.stats?.searchNodes ?? 0 });
      yield* memberEnded(run, v);
      return;
    }
    yield* memberBack(run, v, progress, nextBudgetSec(run.member.state(v.cubeId)?.budgetSec ?? SCAN_MEMBER_SEC, progress));
    yield* continueMember(run, true);
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
  yield* memberBack(run, v, undefined, run.member.state(v.cubeId)?.budgetSec ?? SCAN_MEMBER_SEC);
}

/**
 * An attempt came back: nothing in flight (no lease), its placements recorded, and where the next attempt would start
 * with what budget (no start: it does not go on).
 */
function* memberBack(run: MemberRun, v: Verdict, from: PartProgress | undefined, budgetSec: number): RunSteps {
  const searchNodes = v.stats?.searchNodes ?? 0;
  const id = v.cubeId;
  yield* run.recorder.record({ $case: "member", value: { id, from, budgetSec, attempts: run.member.state(id)?.attempts ?? 0, lease: "", searchNodes } });
}

/**
 * The budget of a member's next attempt: the same again when it goes on exactly where it stopped (a resume path);
 * else twice this one (up to SCAN_MEMBER_MAX_SEC), since it repeats the subtree it stopped in and must outgrow it.
 */
export function nextBudgetSec(budgetSec: number, progress: PartProgress): number {
  return progress.path ? budgetSec : Math.min(SCAN_MEMBER_MAX_SEC, 2 * budgetSec);
}

/** How far the member got, if its report fits its task (whole board numbered at CUBE_PART_DEPTH, not behind its start). */
function memberProgress(run: MemberRun, v: Verdict): PartProgress | undefined {
  const p = v.partNext;
  const from = run.member.state(v.cubeId)?.from?.next ?? 0;
  if (!p || progressProblem(p) !== null || p.depth !== CUBE_PART_DEPTH || p.next < from) return undefined;
  // (path: undefined, not absent: the shape the ledger decodes to)
  return { next: p.next, depth: p.depth, path: p.path ? { ranks: [...p.path.ranks] } : undefined };
}

/** A member exhausted the whole board in its tree: every open cube is refuted with its own weight, and the workers stop. */
export function* closeAllByMember(run: MemberRun, v: Verdict): RunSteps {
  // Another member (answered in the same batch) or the cubes closed them all already: its placements still count.
  if (![...run.cubes.table.entries()].some(isOpen)) return yield* memberEnded(run, v);
  const closed: CubeClosed[] = [];
  const tree = treeOfMember(v.cubeId);
  const reason = `refuted by ${v.cubeId}: the whole board's ${tree ? treeLabel(tree) : "member"} scan exhausted`;
  for (const e of [...run.cubes.table.entries()]) {
    // The member's own statistics go with the first cube it closes, so the run's placements include them.
    const own = closed.length === 0;
    if (isOpen(e)) close(run, { ...closedOf(v, VerdictKind.VERDICT_KIND_UNSAT, reason), id: e.id, ...(own ? {} : { wallMs: 0, searchNodes: 0, conflicts: 0 }), estNodes: 0, estNodesStderr: 0 }, closed);
  }
  run.log.info("portfolio member exhausted the board", { member: v.cubeId, cubes: closed.length, nodes: v.stats?.searchNodes ?? 0 });
  yield* flushClosed(run, closed);
  yield { type: "cancel", cube: "", reason: "refuted" };
}
