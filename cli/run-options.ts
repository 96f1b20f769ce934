/**
 * The flags that describe a run (cubing, per-cube solver budget, re-split policy, priority), shared by
 * `cubist solve --workers N`, `cubist coordinator --puzzle FILE` and `cubist run submit`.
 */
import { cellOrders } from "../core/cubes/types.js";
import type { RunRequest } from "../coordinator/run-spec.js";
import { DEFAULT_CELL_ORDER, DEFAULT_CERTIFIED_TARGET_CUBES, DEFAULT_SPOT_CHECK_PERCENT, DEFAULT_CUBE_TIME_LIMIT_SEC, DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC, DEFAULT_TARGET_CUBES, FORMULA_CUBE_TIME_LIMIT_SEC, MAX_CUBE_PARTS, MAX_MEMBER_SHARE, MAX_SCORE_SLOTS, SCORE_SLOT_SEC } from "../coordinator/model/run-defaults.js";
import type { OptionSpec, ParsedValues } from "./args.js";
import { encodeOptionsFrom } from "./encode-options.js";

export const RUN_OPTIONS: Record<string, OptionSpec> = {
  cubes: { type: "integer", arg: "N", description: `initial split: this many cubes (default: ${DEFAULT_TARGET_CUBES}; ${DEFAULT_CERTIFIED_TARGET_CUBES} for a puzzle with --certify)`, min: 1, max: 2_000_000 },
  "max-depth": { type: "integer", arg: "D", description: "initial split: at most this many placements per cube (0 = no limit)", min: 0, max: 1024 },
  "cell-order": { type: "string", arg: "O", description: `how the splitter picks cells (default: scan, cubes along the engine's own scan, where the engine runs alone on a board of up to 200 free cells (cells no hint fixes) with few expected solutions; else ${DEFAULT_CELL_ORDER})`, choices: cellOrders },
  "cube-parts": { type: "integer", arg: "N", description: "scan cubes: search each cube as N parts side by side (the engine's --part), so N workers share one cube's scan (default: 1; solve --workers: its solver slots)", min: 1, max: MAX_CUBE_PARTS },
  "member-share": { type: "number", arg: "F", description: `scan runs: the share of the workers' time the portfolio members (the whole board in the other trees cubist solve searches: the mirror, or on a square board with eight trees the other seven) may take by going on where their budgets stopped them (0 = their first 10 s only, the choice for a board expected to be UNSAT, where the members only repeat the refutation; default: every tree the same share, 1/2 or 7/8)`, min: 0, max: MAX_MEMBER_SHARE },
  "score-slots": { type: "integer", arg: "N", description: `objective score: whole-board score searches kept going, each with its own seed (default: as many as the live workers' solver slots, growing as workers join; at most ${MAX_SCORE_SLOTS})`, min: 1, max: MAX_SCORE_SLOTS },
  "cube-time": { type: "number", arg: "S", description: `per-cube time budget cap in seconds (0 = none; scan cubes: their first budget); a cube over budget is re-split (default: ${DEFAULT_CUBE_TIME_LIMIT_SEC}, a formula run's ${FORMULA_CUBE_TIME_LIMIT_SEC}; a score run's slot: ${SCORE_SLOT_SEC}, then its next attempt)`, min: 0 },
  "cube-time-first": { type: "number", arg: "S", description: `budget of an initial cube; doubles per re-split generation up to --cube-time (0 = --cube-time always; scan cubes get --cube-time at once, doubling per re-split generation since they resume; default: ${DEFAULT_FIRST_CUBE_TIME_LIMIT_SEC}, a formula run's 0)`, min: 0 },
  "cube-conflicts": { type: "integer", arg: "N", description: "per-cube solver conflict budget (0 = none)", min: 0 },
  "search-ms": { type: "integer", arg: "MS", description: "per cube: how long the native placement engine runs beside the SAT solver (0 = SAT solver only; default: the whole budget)", min: 0, max: 3_600_000 },
  "resplit-after": { type: "integer", arg: "N", description: "re-split a cube after this many budgets came back unknown", min: 1, max: 1000, default: 1 },
  "resplit-depth": { type: "integer", arg: "D", description: "re-split this many placements deeper", min: 1, max: 64, default: 1 },
  "resplit-children": { type: "integer", arg: "N", description: "or: re-split until this many children exist", min: 0, max: 1_000_000 },
  priority: { type: "integer", arg: "P", description: "run priority (higher first)", min: -1000, max: 1000, default: 0 },
  name: { type: "string", arg: "NAME", description: "run name (default: the puzzle's)" },
  objective: { type: "string", arg: "GOAL", description: "sat (a solution or a proof there is none) or score (complete boards with the fewest mismatched edges: the best board improves until you stop the run)", choices: ["sat", "score"], default: "sat" },
  "spot-check": { type: "integer", arg: "P", description: `re-solve this percent of refuted cubes on another worker; a worker caught refuting a satisfiable cube is distrusted and its refutations redone (default: ${DEFAULT_SPOT_CHECK_PERCENT}; 0: none; docs/operations.md "Spot checks"). With --certify: the percent of proofs workers verified that the coordinator checks again`, min: 0, max: 100 },
  certify: { type: "boolean", description: "certified UNSAT: every refuted cube's proof checked by another worker than its producer, or by the coordinator (DRAT by drat-trim; LRAT, from workers with --proof-format lrat, by lrat-check), plus a coverage proof (docs/operations.md \"Certificates\")" },
};

export function runRequestFrom(values: ParsedValues, puzzleText: string, label: string): RunRequest {
  const n = (k: string): number | undefined => (typeof values[k] === "number" ? (values[k] as number) : undefined);
  const s = (k: string): string | undefined => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const enc = encodeOptionsFrom(values);
  return {
    name: s("name"),
    puzzleText,
    puzzleLabel: label,
    format: s("format"),
    encoding: s("encoding"),
    order: enc.order,
    targetCubes: n("cubes"),
    maxDepth: n("max-depth"),
    cellOrder: s("cell-order"),
    cubeParts: n("cube-parts"),
    memberShare: n("member-share"),
    scoreSlots: n("score-slots"),
    solver: s("solver"),
    timeLimitSec: n("cube-time"),
    conflictLimit: n("cube-conflicts"),
    seed: n("seed"),
    searchMs: n("search-ms"),
    firstTimeLimitSec: n("cube-time-first"),
    resplitAfter: n("resplit-after"),
    resplitDepth: n("resplit-depth"),
    resplitChildren: n("resplit-children"),
    priority: n("priority"),
    certify: values.certify === true,
    spotCheckPercent: n("spot-check"),
    objective: s("objective"),
    // Counting (`--all`: run submit, solve --workers); solve -o FILE needs every board (cli/commands/solve.ts).
    ...(values.all === true ? { mode: "all" as const, solutionLimit: n("limit"), everyBoard: values["every-board"] === true } : {}),
  };
}
