/**
 * What a worker's verdict carries, read against the run's own puzzle and spec for the run model
 * (coordinator/model/run-model.ts): the cube's closed record, its progress report, and the board or model of a SAT
 * answer (a reported best board: coordinator/model/run-best.ts). Pure: nothing here records or changes state.
 */

import { bitsetValue } from "../../core/accept.js";
import { progressProblem } from "../../core/cubes/parts.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Logger } from "../../cluster/log.js";
import { VerdictKind, type Verdict } from "../../proto/gen/cubist/v1/cube.js";
import type { CubeClosed } from "../../proto/gen/cubist/v1/ledger.js";
import type { RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { BoardCheck, RunShape } from "./shape.js";
import { taskPart } from "./task-message.js";

/** The closed record of a verdict's cube, as `kind` with `reason` (an UNSAT keeps its proof's name). */
export function closedOf(v: Verdict, kind: VerdictKind, reason: string): CubeClosed {
  return {
    id: v.cubeId, kind, workerId: v.workerId, wallMs: v.stats?.wallMs ?? 0, conflicts: v.stats?.conflicts ?? 0, reason,
    searchNodes: v.stats?.searchNodes ?? 0, estNodes: v.stats?.estNodes ?? 0, estNodesStderr: v.stats?.estNodesStderr ?? 0,
    proofSha256: kind === VerdictKind.VERDICT_KIND_UNSAT ? v.proofSha256 : "",
  };
}

/**
 * An unknown verdict's report of how far its search got (docs/cubing.md "Resuming"), when it fits the part the
 * cube's task searched (task-message.ts taskPart): at that part's depth, not behind its start. Anything else is
 * dropped (logged): the cube's next search then starts where it would have anyway. Trusted as far as the worker's
 * UNSAT verdicts are (the subtrees it says it exhausted are not searched again); certified runs never take it.
 */
export function progressOf(spec: RunSpec, cube: { id: string; part?: CubePart; progress?: PartProgress }, v: Verdict, log: Logger): PartProgress | undefined {
  const p = v.partNext;
  if (!p || v.kind !== VerdictKind.VERDICT_KIND_UNKNOWN) return undefined;
  const part = taskPart(spec, cube);
  const problem = progressProblem(p) ?? (!part ? "the cube is not searched in parts" : p.depth !== part.depth ? `depth ${p.depth}, the part's is ${part.depth}` : p.next < (part.from ?? 0) ? `next ${p.next} is behind the part's start ${part.from}` : null);
  if (problem !== null) {
    log.warn("a verdict's progress report ignored", { cube: cube.id, worker: v.workerId, problem });
    return undefined;
  }
  return { next: p.next, depth: p.depth };
}

/**
 * A SAT answer's board (placement searches send one) or model (SAT solvers), checked by the run's verifier; null when
 * the model has the wrong size (logged and dropped).
 */
export function answerOfVerdict(shape: RunShape, spec: RunSpec, v: Verdict, log: Logger): BoardCheck | null {
  if (v.board.length > 0) return shape.checkBoard(v.board);
  if (v.numVars !== spec.numVars || v.model.length !== (spec.numVars + 7) >> 3) {
    log.warn("SAT verdict with a model of the wrong size ignored", { cube: v.cubeId, worker: v.workerId, vars: v.numVars, bytes: v.model.length });
    return null;
  }
  return shape.checkModel(bitsetValue(v.model));
}
