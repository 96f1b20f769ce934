/**
 * The cube task a worker receives: the run's formula by hash, the cube's placements as unit literals, and the
 * solver spec with a seed that changes with each attempt. The message id de-duplicates attempt 0 across
 * coordinator restarts (the same cube published twice is stored once); later attempts are always new messages.
 * Each message carries its attempt's lease (coordinator/model/leases.ts); a duplicate keeps the stored message's lease
 * (coordinator/shell/task-publisher.ts).
 */

import { resumeFrom } from "../../core/cubes/parts.js";
import type { CubePart, PartProgress } from "../../core/cubes/types.js";
import type { Placement } from "../../core/puzzle.js";
import type { CubeTask } from "../../proto/gen/cubist/v1/cube.js";
import type { RunSpec } from "../../proto/gen/cubist/v1/run.js";
import type { TaskMessage } from "./run-effects.js";
import { CUBE_PART_DEPTH, cubeBudgetSec, scanCubeBudgetSec } from "./run-defaults.js";
import type { ScanTree } from "./scan-trees.js";
import type { RunShape } from "./shape.js";

/**
 * The part a cube's task searches (docs/cubing.md "Resuming"): a part searches itself; a whole cube of a run whose
 * cubes may be parts (scan cubes, not certified, objective sat) is searched as part 0 of 1 at CUBE_PART_DEPTH, so
 * that a stop by its budget says how far it got; other cubes are searched whole (undefined). Either starts where
 * an earlier attempt stopped (`progress`, when at the same depth); a portfolio member's part may go on exactly where
 * its last attempt stopped (`resume`).
 */
export function taskPart(spec: RunSpec, cube: { part?: CubePart; progress?: PartProgress }): CubePart | undefined {
  const part = cube.part ?? (resumable(spec) ? { k: 0, n: 1, depth: CUBE_PART_DEPTH } : undefined);
  if (!part) return undefined;
  const from = resumeFrom(part, cube.progress);
  return { k: part.k, n: part.n, depth: part.depth, ...(from > 0 ? { from } : {}), ...(part.resume ? { resume: part.resume } : {}) };
}

/** A run whose cubes are searched in parts, or may become parts when re-split (core/cubes/parts.ts). */
function resumable(spec: RunSpec): boolean {
  const objective = spec.solver?.objective ?? "";
  return spec.cubing?.cellOrder === "scan" && !spec.certify && (objective === "" || objective === "sat");
}

/**
 * A whole-board task with a budget of its own: a portfolio member's (coordinator/model/scan-member.ts), in its tree, or
 * a score slot's (coordinator/model/score-slots.ts), no tree.
 */
export interface MemberTask {
  tree?: ScanTree;
  timeLimitSec: number;
}

export function taskMessage(spec: RunSpec, shape: Pick<RunShape, "placementLiterals">, cube: { id: string; placements: readonly Placement[]; part?: CubePart; progress?: PartProgress }, attempt: number, now: number, lease: string,
  member?: MemberTask): TaskMessage {
  const part = member ? cube.part : taskPart(spec, cube);
  const units: number[] = [];
  for (const p of cube.placements) units.push(...shape.placementLiterals(p));
  const s = spec.solver!;
  const task: CubeTask = {
    runId: spec.runId,
    cubeId: cube.id,
    formulaSha256: spec.formulaSha256,
    numVars: spec.numVars,
    units,
    placements: cube.placements.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })),
    // The budget grows with the cube's re-split generation and the attempt (run-defaults.ts cubeBudgetSec).
    // A portfolio member (a whole-board scan in another order) has a budget of its own. Scan cubes get the whole cap
    // at once: a re-split child starts its subtree from scratch, and taken in order they need no budget to spread
    // the search (docs/cubing.md "Scan cubes").
    solver: {
      ...s,
      timeLimitSec: member ? member.timeLimitSec : (spec.cubing?.cellOrder === "scan" ? scanCubeBudgetSec : cubeBudgetSec)(s, cube.id.split(".").length - 1 + attempt),
      seed: (s.seed + attempt) % 2147483647,
    },
    generation: 0,
    puzzleSha256: spec.puzzleSha256,
    lease,
    certify: spec.certify,
    engineOrder: member?.tree?.order ?? "",
    engineMirror: member?.tree?.mirror ?? false,
    engineCorner: member?.tree?.corner ?? 0,
    notWorker: "",
    ...(part ? { part } : {}),
  };
  return { task, msgId: attempt === 0 ? `${spec.runId}:${cube.id}` : `${spec.runId}:${cube.id}:a${attempt}:${now}` };
}
