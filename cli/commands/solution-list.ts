/**
 * `cubist solution list RUN`: a run's count (a counting run, `run submit --all`) and the verified boards the
 * coordinator recorded, one line each (index, cube, worker, time); `--json` prints them with their boards, and
 * `-o FILE` writes the boards as `solve --all -o` does. Every board is verified again here before it is listed.
 */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { writeLines } from "../io.js";
import { formatCount, formatPercent, formatTable, formatTime, runStateName } from "../control-format.js";
import type { PuzzleView } from "../puzzle-view.js";
import { runPuzzleView } from "../formula-view.js";
import type { GetRunRequest, GetSolutionRequest, RunInfo, SolutionInfo } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "solution list",
  summary: "List a run's count and its recorded solutions (each verified again here).",
  usage: "cubist solution list <run> [--json] [-o FILE] [--coordinator HOST:PORT]",
  positionals: { min: 1, max: 1 },
  options: {
    output: { type: "string", short: "o", arg: "FILE", output: true, description: "write every recorded board as a JSON line {\"board\": [[[id, rot], ...]]} to FILE (- for stdout)" },
    ...CLIENT_OPTIONS,
    json: { type: "boolean", description: 'print {"run", "state", "count", "complete", "progress", "recorded", "solutions": [{"index", "cube", "worker", "foundUnixMs", "board"}]}' },
  },
  details: `A counting run (run submit --all) records the first 100 boards it counts (every board with --every-board),
each verified by the coordinator; its count is the sum of the exact counts of the closed cubes (docs/cluster.md
"Counting"), shown with whether it is complete (the closed weights sum to 1) or a lower bound so far. Other runs
list their solutions (at most one in first-solution mode).

Exit codes: 0 listed; 1 error (NOT_FOUND: no such run; unreachable coordinator); 3 a board failed verification
here (a coordinator bug; nothing more is listed); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId]: string[]): Promise<number> {
  return withControlApi(values, async (api) => {
    const info = await api.call<GetRunRequest, RunInfo>(api.client.getRun, { runId });
    const s = info.status;
    const recorded = s?.solutions ?? 0;
    const rows: Array<{ index: number; cube: string; worker: string; foundUnixMs: number; board: unknown }> = [];
    let view: PuzzleView | null = null;
    for (let index = 0; index < recorded; index++) {
      const got = await api.call<GetSolutionRequest, SolutionInfo>(api.client.getSolution, { runId, index });
      const sol = got.solution!;
      // Every answer carries the run's puzzle: parsed once.
      view ??= runPuzzleView(got.puzzleText, info.encoding, `<run ${runId}>`);
      view.verify(sol.cells, `solution ${index} of run ${runId} as sent by the coordinator`);
      rows.push({ index: sol.index, cube: sol.cubeId, worker: sol.workerId, foundUnixMs: sol.foundUnixMs, board: view.boardJSON(sol.cells) });
    }
    const file = values.output as string | undefined;
    if (file !== undefined) writeLines(file, rows.map((r) => JSON.stringify({ board: r.board })));
    if (values.json) {
      process.stdout.write(`${JSON.stringify({
        run: runId, state: runStateName(s?.state), count: s?.solutionCount ?? recorded, complete: s?.countComplete ?? null, progress: s?.progress ?? 0,
        recorded, solutions: rows,
      })}\n`);
      return EXIT.OK;
    }
    const out = file === "-" ? process.stderr : process.stdout;
    const count = formatCount(s) || `${recorded} solution(s)`;
    out.write(`run ${runId} (${terminalSafe(view?.name || info.name)}): ${count}; ${formatPercent(s?.progress ?? 0, 2)} of the search space closed; ${recorded} board(s) recorded, each verified\n`);
    if (rows.length > 0) {
      out.write(formatTable(["INDEX", "CUBE", "WORKER", "FOUND"], rows.map((r) => [String(r.index), r.cube, r.worker || "?", formatTime(r.foundUnixMs)])));
    }
    return EXIT.OK;
  });
}
