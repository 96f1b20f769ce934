/**
 * Score slots, a part of the run model (coordinator/model/run-model.ts): how a score run (objective "score") uses a
 * cluster. A score run is anytime optimisation, not a tree to close: no cubes, no split and no re-splits. The run
 * keeps `slots` whole-board score searches going (CubingSpec.score_slots, or as many as the live workers have solver
 * slots), each a task `score-K` with its own seed and a budget. While it runs, a slot's worker streams every
 * improvement of its best board (VERDICT_KIND_BEST: the task stays open), which the run re-scores and keeps when it
 * beats the run's best; the worker reads the run's best back from the run record and searches only for better boards
 * (a shared bound). When its budget ends the slot comes back (UNKNOWN with its best) and goes out again with the next
 * attempt, with a new seed (a worker process that ran the slot's last attempt goes on exactly where it stopped, with
 * that attempt's seed: worker/score-search.ts), and so that workers return to the queue, where priorities between
 * runs hold. A perfect board ends the run as a verified solution; otherwise it runs until it is cancelled.
 *
 * Changed only by `apply` ("slot" entries: an attempt sent, with its lease, or back, with its placements). A slot sent
 * is a member of the cube table (coordinator/model/cube-table.ts), so its verdicts pass the same lease checks.
 */

import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { ScoreSlot } from "../../proto/gen/cubist/v1/ledger.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import { verdictLabel } from "../../proto/vocabulary.js";
import type { LedgerBody, RunSteps } from "./run-effects.js";
import { answerOfVerdict } from "./run-answers.js";
import { considerBest, type BestRun } from "./run-best.js";
import type { CubesRun } from "./run-cubes.js";
import { acceptSolution, rejectAnswer } from "./run-solutions.js";
import { MAX_SCORE_SLOTS, SCORE_SLOT_SEC } from "./run-defaults.js";

/** Score slots are named `score-K`. */
export const SCORE_SLOT_PREFIX = "score-";
export function isScoreSlot(id: string): boolean {
  return id.startsWith(SCORE_SLOT_PREFIX);
}

export class ScoreSlots {
  private readonly slots = new Map<string, ScoreSlot>();
  private placements = 0;

  apply(b: Extract<LedgerBody, { $case: "slot" }>): void {
    const s = b.value;
    this.slots.set(s.id, s);
    if (s.lease === "") this.placements += s.searchNodes;
  }

  /** Slots the run has (sent or back). */
  get count(): number {
    return this.slots.size;
  }

  /** Every slot's last attempt as recorded. */
  all(): IterableIterator<ScoreSlot> {
    return this.slots.values();
  }

  get(id: string): ScoreSlot | undefined {
    return this.slots.get(id);
  }

  /** Placements of the attempts that came back. */
  get searchNodes(): number {
    return this.placements;
  }
}

/** What the slots' decisions read: the run's cubes (its members), solutions, best board and slots. */
export interface ScoreRun extends CubesRun, BestRun {
  readonly slots: ScoreSlots;
}

/** A score run (objective "score"): it has slots, not cubes. */
export function isScoreRun(spec: { solver?: { objective?: string } }): boolean {
  return spec.solver?.objective === "score";
}

/** How many slots the run wants, given how many solver slots the live workers have. */
export function wantedSlots(run: ScoreRun, liveSlots: number): number {
  const asked = run.spec.cubing?.scoreSlots ?? 0;
  return Math.min(MAX_SCORE_SLOTS, asked > 0 ? asked : Math.max(1, liveSlots));
}

/** Sends one attempt of a slot (the whole board, its own seed and budget) and records it. */
function* sendSlot(run: ScoreRun, index: number, attempt: number): RunSteps {
  const id = `${SCORE_SLOT_PREFIX}${index}`;
  const budgetSec = run.spec.solver!.timeLimitSec > 0 ? run.spec.solver!.timeLimitSec : SCORE_SLOT_SEC;
  // Attempt A of slot K searches with the spec's seed + K + A * MAX_SCORE_SLOTS (the sum is taken in
  // coordinator/model/task-message.ts): the first attempts take the seeds `cubist solve --objective score` gives its
  // engines (engine K: seed + K), so N slots search as `solve` on N cores does, and no two attempts of any slots share
  // a seed (K < MAX_SCORE_SLOTS; the seed wraps at 2^31 - 1 only after two million attempts of a slot).
  const task = run.recorder.task({ id, placements: [] }, index + attempt * MAX_SCORE_SLOTS, { timeLimitSec: budgetSec });
  const seed = task.task.solver!.seed;
  yield* run.recorder.publishAndRecord({ type: "publish", tasks: [task], seqs: [] },
    () => ({ $case: "slot", value: { id, attempt, seed, budgetSec, lease: task.task.lease, searchNodes: 0 } }));
}

/** A score run starts (or a coordinator takes it over): slots back go out again, then up to `wantedSlots`. */
export function* startScore(run: ScoreRun, liveSlots: number): RunSteps {
  yield* resendSlots(run);
  yield* growSlots(run, liveSlots);
}

/** Starts slots up to `wantedSlots` (a new run, or more workers joined); existing slots are left as they are. */
export function* growSlots(run: ScoreRun, liveSlots: number): RunSteps {
  if (run.life.ended || run.life.state !== RunState.RUN_STATE_RUNNING) return;
  const wanted = wantedSlots(run, liveSlots);
  const first = run.slots.count;
  for (let k = first; k < wanted; k++) yield* sendSlot(run, k, 0);
  if (wanted > first) run.log.info("score slots started", { slots: wanted, new: wanted - first });
}

/** Slots sent and not back (their attempt in flight). */
export function openSlots(run: ScoreRun): number {
  let n = 0;
  for (const s of run.slots.all()) if (s.lease !== "") n++;
  return n;
}

/** Slots whose tasks no consumer holds any more (the stall check found them lost): each goes out again as a new attempt. */
export function* republishSlots(run: ScoreRun): RunSteps {
  for (const s of [...run.slots.all()]) yield* republishSlot(run, s.id);
}

/** One slot in flight whose task is lost or whose worker is gone: back (no placements known), and out again. */
export function* republishSlot(run: ScoreRun, id: string): RunSteps {
  const s = run.slots.get(id);
  if (!s || s.lease === "" || !run.cubes.takeMember(s.id)) return;
  yield* run.recorder.record({ $case: "slot", value: { ...s, lease: "", searchNodes: 0 } });
  if (run.life.state === RunState.RUN_STATE_RUNNING) yield* sendSlot(run, slotIndex(s.id), s.attempt + 1);
}

/** Slots back and not sent again (after a replay, a pause, or an error in between) go out again. */
export function* resendSlots(run: ScoreRun): RunSteps {
  if (run.life.ended || run.life.state !== RunState.RUN_STATE_RUNNING) return;
  for (const s of [...run.slots.all()]) {
    if (s.lease === "") yield* sendSlot(run, slotIndex(s.id), s.attempt + 1);
  }
}

function slotIndex(id: string): number {
  return Number(id.slice(SCORE_SLOT_PREFIX.length));
}

/**
 * A verdict of a slot's attempt in flight. An improvement (BEST) is re-scored and kept when it beats the run's best;
 * the attempt goes on. A perfect board ends the run (once verified). Anything else ends the attempt: its best is
 * considered, its placements recorded, and the slot goes out again.
 */
export function* recordSlot(run: ScoreRun, v: Verdict): RunSteps {
  if (v.kind === VerdictKind.VERDICT_KIND_BEST) {
    yield* considerBest(run, v);
    return;
  }
  if (!run.cubes.takeMember(v.cubeId)) return;
  const slot = run.slots.get(v.cubeId);
  if (!slot) return;
  if (v.best.length > 0) yield* considerBest(run, v);
  yield* run.recorder.record({ $case: "slot", value: { ...slot, lease: "", searchNodes: v.stats?.searchNodes ?? 0 } });
  if (v.kind === VerdictKind.VERDICT_KIND_SAT) {
    const accepted = answerOfVerdict(run.shape, run.spec, v, run.log);
    if (accepted?.ok) {
      yield* acceptSolution(run, accepted.cells, v.cubeId, v.workerId);
      return;
    }
    run.log.error("a score slot's perfect board was rejected by the verifier: not a solution", { slot: v.cubeId, worker: v.workerId, violation: accepted && !accepted.ok ? accepted.reason : "no board" });
    yield* rejectAnswer(run);
  } else if (v.kind === VerdictKind.VERDICT_KIND_ERROR) {
    run.log.warn("score slot failed; sent again", { slot: v.cubeId, worker: v.workerId, verdict: verdictLabel(v.kind), reason: v.reason });
  }
  if (run.life.state === RunState.RUN_STATE_RUNNING) yield* sendSlot(run, slotIndex(slot.id), slot.attempt + 1);
}
