/**
 * What a run's shell (coordinator/shell/run.ts) depends on, given by the run store, and the run's model built from it:
 * the coordinator's part in every run, kept apart from the run so the wiring is read in one place.
 */

import type { JetStreamManager } from "@nats-io/jetstream";
import type { Layout } from "../../cluster/layout.js";
import type { Logger } from "../../cluster/log.js";
import type { Puzzle } from "../../core/puzzle.js";
import type { TrianglePuzzle } from "../../core/triangle/puzzle.js";
import type { FormulaPuzzle } from "../../core/cnf/run-formula.js";
import type { Names } from "../../proto/contract.js";
import type { RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { CoordinatorSettings } from "../config.js";
import { RunModel } from "../model/run-model.js";
import type { RunningTask } from "../model/run-recorder.js";
import { runShapeOf } from "../model/run-shape.js";
import type { RunShape } from "../model/shape.js";
import type { Ledger } from "./ledger.js";
import { newLease } from "./lease-tokens.js";

export interface RunDeps {
  readonly layout: Layout;
  readonly jsm: JetStreamManager;
  readonly ledger: Ledger;
  readonly names: Names;
  readonly settings: CoordinatorSettings;
  readonly log: Logger;
  readonly publishCancel: (run: string, cube: string, reason: string) => void;
  /** Deletes a formula object no open run needs any more (coordinator/shell/run-store.ts). */
  readonly releaseFormula?: (sha256: string, runId: string) => Promise<void>;
  /** Deletes a cancelled run's DRAT proofs unless an open run shares them (coordinator/shell/formula-upload.ts). */
  readonly releaseProofs?: (proofs: Iterable<string>, runId: string) => Promise<void>;
  /** The run recorded tasks that were in flight: verdicts held for them are looked at again (coordinator/model/in-flight.ts). */
  readonly settled?: (runId: string) => void;
  /** Solver slots of the live workers (a score run starts as many score slots). @default 1 */
  readonly liveSlots?: () => number;
  /** A live, trusted worker other than this one can solve a spot check (coordinator/model/run-trust.ts). @default none */
  readonly checkers?: (worker: string) => boolean;
  /** The run's coordinator proof-check slots are not all taken (CoordinatorSettings.ownProofChecks). @default none */
  readonly ownCheckFree?: (runId: string) => boolean;
  /** Why a spot check of any run in memory disproved a worker (coordinator/model/run-trust.ts). @default none */
  readonly distrustedElsewhere?: (worker: string) => string | undefined;
  /** The run's tasks live workers report running, with their starts (the workers' heartbeats). @default none */
  readonly running?: (runId: string) => ReadonlyArray<RunningTask>;
  /** Throws unless this coordinator leads, waiting while its lease is lapsed (coordinator/shell/coordinator.ts): before every effect. */
  readonly fence?: () => Promise<void>;
}

/**
 * Encodes the puzzle, square or triangle (the model needs its placement literals), unless the run needs no formula
 * (a score run: coordinator/model/run-shape.ts needsFormula; `formula` is then null), and builds the run's model.
 */
export function runModelOf(deps: RunDeps, spec: RunSpec, puzzle?: Puzzle | TrianglePuzzle | FormulaPuzzle): { model: RunModel; formula: RunShape["formula"] } {
  const shape = runShapeOf(spec, puzzle);
  const model = new RunModel(spec, shape, {
    maxDeliver: deps.settings.maxDeliver,
    batchSize: deps.settings.batchSize,
    clock: Date.now,
    term: () => deps.ledger.term,
    lease: newLease,
    log: deps.log.child({ run: spec.runId }),
    memoryMB: () => Math.round(process.memoryUsage().rss / 2 ** 20),
    settled: () => deps.settled?.(spec.runId),
    checkers: deps.checkers,
    ownCheckFree: deps.ownCheckFree ? () => deps.ownCheckFree!(spec.runId) : undefined,
    distrustedElsewhere: deps.distrustedElsewhere,
    running: deps.running ? () => deps.running!(spec.runId) : undefined,
  });
  return { model, formula: shape.formula };
}
