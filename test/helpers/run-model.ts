/**
 * The run model (coordinator/model/run-model.ts) without NATS, for unit tests: a run built from a request as the
 * coordinator builds it (buildRunSpec, then its shape with the base formula encoded unless a score run's), every effect recorded, the
 * ledger kept, and `replay()` for the model a restarted coordinator would rebuild from that ledger.
 */

import { silentLogger } from "../../cluster/log.js";
import { runSteps, type RunEffect, type RunSteps } from "../../coordinator/model/run-effects.js";
import { RunModel } from "../../coordinator/model/run-model.js";
import type { RunModelOptions } from "../../coordinator/model/run-recorder.js";
import { buildRunSpec, type RunRequest } from "../../coordinator/run-spec.js";
import { runShapeOf } from "../../coordinator/model/run-shape.js";
import type { RunShape } from "../../coordinator/model/shape.js";
import { newLease } from "../../coordinator/shell/lease-tokens.js";
import type { Puzzle } from "../../core/puzzle.js";
import { FaultKind, VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { LedgerEntry } from "../../proto/gen/cubist/v1/ledger.js";
import type { RunSpec } from "../../proto/gen/cubist/v1/run.js";

export interface ModelHarness {
  readonly spec: RunSpec;
  readonly shape: RunShape;
  readonly model: RunModel;
  readonly ledger: LedgerEntry[];
  readonly effects: RunEffect[];
  /** Carries out a decision's effects (publishes get stream sequences 1, 2, ...). */
  run<T>(steps: RunSteps<T>): Promise<T>;
  /** A fresh model with the ledger applied, as a restarted coordinator builds it. */
  replay(): RunModel;
}

export function modelHarness(req: RunRequest, options: Partial<Pick<RunModelOptions, "maxDeliver" | "batchSize" | "checkers" | "ownCheckFree" | "distrustedElsewhere" | "running">> = {}): ModelHarness {
  const { spec, puzzle } = buildRunSpec(req);
  const shape = runShapeOf(spec, puzzle);
  spec.numVars = shape.formula?.numVars ?? 0;
  let now = 1_000_000;
  const opts = { maxDeliver: options.maxDeliver ?? 3, batchSize: options.batchSize ?? 3, clock: () => now++, log: silentLogger, lease: newLease, checkers: options.checkers, ownCheckFree: options.ownCheckFree, distrustedElsewhere: options.distrustedElsewhere, running: options.running };
  const model = new RunModel(spec, shape, opts);
  const ledger: LedgerEntry[] = [];
  const effects: RunEffect[] = [];
  let seq = 0;
  return {
    spec, shape, model, ledger, effects,
    run: (steps) => runSteps(steps, (e) => {
      effects.push(e);
      if (e.type === "append") ledger.push(...e.entries);
      if (e.type === "publish") e.seqs.push(...e.tasks.map(() => ++seq));
    }),
    replay() {
      const m = new RunModel(spec, shape, opts);
      for (const e of ledger) m.apply(e);
      return m;
    },
  };
}

/** The square puzzle of a harness's run (the test's own puzzle must be square). */
export function squarePuzzleOf(h: Pick<ModelHarness, "shape">): Puzzle {
  if (h.shape.kind !== "square") throw new Error("the test's run is not square");
  return h.shape.puzzle;
}

/** A worker's verdict on a cube of run "r1" from worker w1 (no lease: the model takes it; reason "budget" unless UNSAT). */
export function verdict(cube: string, kind: VerdictKind, extra: Partial<Verdict> = {}): Verdict {
  return {
    runId: "r1", cubeId: cube, kind, model: Buffer.alloc(0), numVars: 0, stats: undefined, workerId: "w1", host: "h",
    delivery: 1, reason: kind === VerdictKind.VERDICT_KIND_UNSAT ? "" : "budget", generation: 0, board: [], taskSeq: 0, best: [], lease: "", proofSha256: "", fault: FaultKind.FAULT_KIND_UNSPECIFIED, ...extra,
  };
}

/** The ids of the cubes still to search (queued or back unknown). */
export const openCubes = (m: RunModel): string[] => [...m.table.entries()].filter((e) => e.state === "queued" || e.state === "unknown").map((e) => e.id);

/** Every task the effects published, in order, each marked with whether it went to the front queue or the lead queue. */
export const published = (effects: RunEffect[]) => effects.flatMap((e) => (e.type === "publish" ? e.tasks.map((t) => ({ ...t, front: e.front === true, lead: e.lead === true })) : []));
