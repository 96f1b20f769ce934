/**
 * `cubist cubes list RUN`: the run's cubes as a table (id, state, weight, worker, running time, unknown
 * budgets, errors, the solver time and re-splits of their subtree, reason), filtered by state, by the time their
 * subtree has taken (`--stuck 10m`: a hard region stays stuck across re-splits), by running time or by worker.
 */
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { cellPlace, CUBE_STATE_NAMES, formatDuration, formatTable, formatWeight, parseDuration } from "../control-format.js";
import { CubeState, cubeStateName, cubeStateOf } from "../../proto/api-vocabulary.js";
import { DEFAULT_CUBE_LIMIT, MAX_CUBE_LIMIT } from "../../proto/contract.js";
import { formatPlacements } from "../watch-view.js";
import type { CubeInfo, GetRunRequest, ListCubesRequest, ListCubesResponse, RunInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "cubes list",
  summary: "List a run's cubes: id, state, weight (fraction of the search space), worker, running time, subtree time.",
  usage: "cubist cubes list <run> [--state S] [--stuck 10m] [--running-for 5m] [--worker W] [--limit N] [--placements] [--json]",
  positionals: { min: 1, max: 1 },
  options: {
    state: { type: "string", arg: "S", description: "only cubes in this state", choices: CUBE_STATE_NAMES },
    stuck: { type: "string", arg: "DURATION", description: "only open cubes whose subtree has taken at least this much solver time (30s, 10m, 2h)" },
    "running-for": { type: "string", arg: "DURATION", description: "only cubes running for at least this long" },
    worker: { type: "string", arg: "W", description: "only cubes running on this worker" },
    limit: { type: "integer", arg: "N", description: "show at most N cubes", min: 1, max: MAX_CUBE_LIMIT, default: DEFAULT_CUBE_LIMIT },
    placements: { type: "boolean", description: "also show each cube's placements (rROWcCOL=pID/ROT: 0-based row and column, the file's piece id)" },
    ...CLIENT_OPTIONS,
  },
  details: `Cube ids are paths in the cube tree: "17" is a cube of the initial split, "17.3" a child of 17 after a re-split.
WORKER is the worker running the cube (running), or the one that answered it. UNKNOWNS counts budgets that ran out.
SUBTREE is the solver time spent on the cube's subtree (every cube descending from the same initial cube: every
verdict, plus the cubes running now) and its re-splits: a child starts with a fresh clock, its subtree does not.
--stuck 10m lists the open cubes (queued, running, unknown) of subtrees that have taken 10 minutes or more.
--json prints {"run","total","cubes":[{"cube","state","weight","worker","runningSec","unknowns","errors","reason",
"subtree","subtreeSec","subtreeResplits","depth","placements"?:[{"cell","row","col","piece","pieceIndex","rot"}]}]};
piece is the puzzle file's piece id, pieceIndex its 0-based position; total counts the matching cubes before --limit.

Exit codes: 0 listed, 1 error (NOT_FOUND: no such run; bad --stuck; unreachable coordinator), 2 usage error.`,
};

/** `17: 42m10s, 3 re-splits` (the subtree's solver time and re-splits). */
function subtreeText(c: CubeInfo): string {
  const resplits = c.subtreeResplits > 0 ? `, ${c.subtreeResplits} re-split${c.subtreeResplits === 1 ? "" : "s"}` : "";
  return `${c.subtree}: ${formatDuration(c.subtreeSec)}${resplits}`;
}

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  const stuckSec = typeof values.stuck === "string" ? parseDuration(values.stuck, "--stuck") : 0;
  const minRunningSec = typeof values["running-for"] === "string" ? parseDuration(values["running-for"], "--running-for") : 0;
  const placements = values.placements === true;
  return withControlApi(values, async (api) => {
    const request: ListCubesRequest = {
      runId,
      state: typeof values.state === "string" ? cubeStateOf(values.state) ?? CubeState.CUBE_STATE_UNSPECIFIED : CubeState.CUBE_STATE_UNSPECIFIED,
      minRunningSec,
      stuckSec,
      workerId: typeof values.worker === "string" ? values.worker : "",
      limit: values.limit as number,
      placements,
    };
    const res = await api.call<ListCubesRequest, ListCubesResponse>(api.client.listCubes, request);
    const board = placements ? await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId }) : null;
    if (values.json) {
      const cubes = res.cubes.map((c) => ({
        cube: c.cubeId, state: cubeStateName(c.state), weight: c.weight, worker: c.workerId, runningSec: c.runningSec,
        unknowns: c.unknowns, errors: c.errors, reason: c.reason,
        subtree: c.subtree, subtreeSec: c.subtreeSec, subtreeResplits: c.subtreeResplits, depth: c.depth,
        ...(placements ? {
          placements: c.placements.map((p, i) => ({ cell: p.cell, ...cellPlace(board!, p.cell), piece: c.pieceIds[i] ?? p.piece, pieceIndex: p.piece, rot: p.rot })),
        } : {}),
      }));
      process.stdout.write(`${JSON.stringify({ run: runId, total: res.total, cubes })}\n`);
      return EXIT.OK;
    }
    if (res.cubes.length === 0) {
      process.stdout.write("no matching cubes\n");
      return EXIT.OK;
    }
    const header = ["CUBE", "STATE", "WEIGHT", "WORKER", "RUNNING", "UNKNOWNS", "ERRORS", "SUBTREE", "REASON"];
    if (placements) header.push("PLACEMENTS");
    const rows = res.cubes.map((c) => {
      const row = [
        c.cubeId, cubeStateName(c.state), formatWeight(c.weight), c.workerId || "-", c.state === CubeState.CUBE_STATE_RUNNING ? formatDuration(c.runningSec) : "-",
        String(c.unknowns), String(c.errors), subtreeText(c), c.reason || "-",
      ];
      if (placements) row.push(formatPlacements(c.placements.map((p, i) => ({ ...p, piece: c.pieceIds[i] ?? p.piece })), board));
      return row;
    });
    process.stdout.write(formatTable(header, rows));
    if (res.total > res.cubes.length) process.stdout.write(`(${res.cubes.length} of ${res.total} matching cubes shown; raise --limit for more)\n`);
    return EXIT.OK;
  });
}
