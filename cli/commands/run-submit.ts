/**
 * `cubist run submit PUZZLE`: sends a puzzle (or a formula: cli/formula-submit.ts) to the coordinator as a new run and prints its id (`--json`: the
 * run). The puzzle text goes as it is, so the coordinator validates it and a bad line comes back as
 * INVALID_ARGUMENT naming file:line; with `--hints` the puzzle is read here, the hints applied, and the
 * canonical text sent. `--watch` follows the run to its end (exit code like `cubist solve`).
 */
import { terminalSafe } from "../../cluster/terminal-text.js";
import type { CommandSpec, ParsedValues } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { PUZZLE_OPTIONS } from "../io.js";
import { ENCODING_OPTIONS } from "../encode-options.js";
import { RUN_OPTIONS, runRequestFrom } from "../run-options.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import { formatBoardSize, formatFormula, hasFormula, runJSON } from "../control-format.js";
import { runPuzzleText } from "../triangle-commands.js";
import { followRunFromCli, WATCH_EXIT_CODES, WATCH_OPTIONS } from "../control-watch.js";
import { SOLVER_NAMES } from "../../host/solver/index.js";
import type { RunRequest } from "../../coordinator/run-spec.js";
import { RunMode } from "../../proto/gen/cubist/v1/run.js";
import { InvalidOptionError } from "../../core/errors.js";
import { isCnfPath } from "../cnf-io.js";
import { isSudokuPath } from "../../core/sudoku/format.js";
import { formulaRunRequest } from "../formula-submit.js";
import type { RunInfo, SubmitRunRequest, SubmitRunResponse } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "run submit",
  summary: "Submit a puzzle, a DIMACS formula or a Sudoku to the cluster's coordinator as a new run; prints the run id.",
  usage: "cubist run submit <puzzle> [--coordinator HOST:PORT] [--token T] [--cubes N] [--cube-time S] [--encoding E] [--all [--limit N] [--every-board]] [--watch] [--json]",
  positionals: { min: 1, max: 1 },
  options: {
    ...PUZZLE_OPTIONS,
    encoding: ENCODING_OPTIONS.encoding,
    order: ENCODING_OPTIONS.order,
    solver: { type: "string", arg: "NAME", description: "SAT solver the workers run beside the placement engine (none: the engine alone, the default above 200 cells and on near-unique boards)", choices: [...SOLVER_NAMES, "none"] },
    seed: { type: "integer", arg: "N", description: "solver random seed", min: 0, max: 2147483647 },
    ...RUN_OPTIONS,
    name: { type: "string", arg: "NAME", description: "run name (default: the puzzle's name from its `# name:` line, else the file's name)" },
    id: { type: "string", arg: "RUN", description: "choose the run id (letters, digits, _ and -; must be new)" },
    all: { type: "boolean", description: "count every solution (the engine counts each cube; docs/cluster.md \"Counting\"); run show and solution list show the count" },
    limit: { type: "integer", arg: "N", description: "with --all: end the run once at least N solutions are counted (the count is then a lower bound)", min: 1 },
    redundant: { type: "boolean", description: "a Sudoku: add each digit's at-least-once clauses per row, column and box to the encoding" },
    "every-board": { type: "boolean", description: "with --all: record every board, each verified (default: the first 100; the rest are counted)" },
    watch: { type: "boolean", short: "w", description: "follow the run until it ends (like cubist run watch)" },
    ...WATCH_OPTIONS,
    ...CLIENT_OPTIONS,
  },
  details: `The puzzle file is read here and sent as text ("-" reads stdin); the coordinator parses and validates it,
so a bad line is reported as INVALID_ARGUMENT naming file:line. The run takes the puzzle's name (a \`# name:\` line in
the file, any format), else the file's name (--name to change; with a \`# name:\` line, --name or --hints the file is
checked here first, and a bad line is reported the same way without the status).
Prints the run id on stdout (--json: the run as JSON), a summary on stderr.

A triangle puzzle (first line \`triangle N\`, docs/formats.md) runs as any puzzle: its cubes fix triangle placements
along the triangle search's own order, workers run the triangle search (and with --solver kissat or --search-ms 0
Kissat on the triangle encoding), and the coordinator checks every board with the triangle verifier (docs/cluster.md
"Triangle runs"). --hints, --encoding other than the triangle's, --order, --cell-order, --objective score and
--certify are for square boards.

A DIMACS formula (F.cnf, F.dimacs, plain or gzipped) or a Sudoku (P.sudoku, P.sdk; --redundant adds the implied
clauses) runs as a formula run (docs/cluster.md "Formula runs"): it is parsed here (errors name file:line) and sent
as text within --max-puzzle-mb; the coordinator cubes it by lookahead (--cubes N: depth log2 N; --max-depth D), the
workers run Kissat alone on each cube, and every model is checked against the formula (a Sudoku's grid by the Sudoku
verifier) before the run ends SAT; a cube over budget is re-split by a deeper lookahead. With --certify each cube's
Kissat DRAT proof is checked by the coordinator, then the coverage; run certificate exports the bundle. --all,
--objective score, --encoding, --order, --cell-order and cube parts are for puzzles.

--all counts every solution: each cube is counted by the placement engine (alone) where it exhausts the cube within
the cube's budget, and re-split otherwise; the coordinator verifies the boards that come with each count and sums
the exact counts of closed cubes (docs/cluster.md "Counting"). run show, solution list RUN, the dashboard and the
metric cubist_run_solutions_counted show the count as it grows; the run ends SAT (or UNSAT: none) once the closed
weights sum to 1, or at --limit with the count a lower bound.

--objective score keeps whole-board score searches going with the placement engine alone (docs/cluster.md "Score
runs"): the coordinator encodes no CNF formula for the run and uploads none, so --encoding and --order do not matter
to it.

Exit codes:
  0    submitted (with --watch: see below)
  1    refused (INVALID_ARGUMENT: bad puzzle or option; UNAUTHENTICATED: pass --token or set CUBIST_AUTH_TOKEN;
       ALREADY_EXISTS: --id is taken), or the coordinator is unreachable
  2    usage error

${WATCH_EXIT_CODES}`,
};

/** The API request for a run request built from the run flags. */
export function submitRequestOf(r: RunRequest, runId: string | undefined): SubmitRunRequest {
  return {
    puzzleText: r.puzzleText,
    puzzleName: r.name ?? r.puzzleLabel ?? "",
    format: r.format ?? "auto",
    encoding: r.encoding ?? "",
    order: r.order ?? "",
    cubing: { targetCubes: r.targetCubes ?? 0, maxDepth: r.maxDepth ?? 0, cellOrder: r.cellOrder ?? "", ...(r.cubeParts ? { parts: r.cubeParts } : {}), ...(r.memberShare !== undefined ? { memberShare: r.memberShare } : {}), ...(r.scoreSlots ? { scoreSlots: r.scoreSlots } : {}) },
    solver: { solver: r.solver ?? "", timeLimitSec: r.timeLimitSec ?? 0, conflictLimit: r.conflictLimit ?? 0, seed: r.seed ?? 0, searchMs: r.searchMs, firstTimeLimitSec: r.firstTimeLimitSec, objective: r.objective ?? "" },
    resplit: { afterBudgets: r.resplitAfter ?? 0, depth: r.resplitDepth ?? 0, targetChildren: r.resplitChildren ?? 0 },
    priority: r.priority ?? 0,
    mode: r.mode === "all" ? RunMode.RUN_MODE_ALL_SOLUTIONS : RunMode.RUN_MODE_FIRST_SOLUTION,
    runId: runId ?? "",
    certify: r.certify === true,
    ...(r.spotCheckPercent !== undefined ? { spotCheckPercent: r.spotCheckPercent } : {}),
    ...(r.mode === "all" ? { solutionLimit: r.solutionLimit ?? 0, everyBoard: r.everyBoard === true } : {}),
  };
}

export async function run(values: ParsedValues, [path]: string[]): Promise<number> {
  const label = path === "-" ? "<stdin>" : path;
  if (values.all !== true && (values.limit !== undefined || values["every-board"] === true)) {
    throw new InvalidOptionError(values.limit !== undefined ? "limit" : "every-board", "goes with --all");
  }
  let request: SubmitRunRequest;
  if (isCnfPath(path) || isSudokuPath(path)) {
    // A formula run (docs/cluster.md "Formula runs"): read and checked here, named after the file unless --name.
    request = submitRequestOf(await formulaRunRequest(path, values), values.id as string | undefined);
  } else {
    // With --hints (applied here) or --name (which the API also uses to label parse errors), the file is read
    // and validated here, so its errors still name file:line; a triangle always is.
    const { text, format, named } = await runPuzzleText(path, values, typeof values.name === "string");
    request = submitRequestOf({ ...runRequestFrom(values, text, label), format }, values.id as string | undefined);
    // The API names a run after puzzle_name when it is given (a file name, as given); a puzzle that names itself in
    // its file is sent checked with its name inside the text, so the run takes that name.
    if (named && values.name === undefined) request.puzzleName = "";
  }
  return withControlApi(values, async (api) => {
    const res = await api.call<SubmitRunRequest, SubmitRunResponse>(api.client.submitRun, request);
    const info = res.run!;
    if (values.json) process.stdout.write(`${JSON.stringify(runJSON(info))}\n`);
    else process.stdout.write(`${info.runId}\n`);
    if (!values.json) {
      process.stderr.write(
        `run ${info.runId} submitted: ${terminalSafe(info.name)}, ${formatBoardSize(info)}, ${submittedFormula(info)}, ` +
        `${info.cubing?.targetCubes ?? "?"} cubes` + (values.watch ? "\n" : `; follow it with: cubist run watch ${info.runId}\n`),
      );
    }
    if (!values.watch) return EXIT.OK;
    return followRunFromCli(api, info, values);
  });
}

/** The submit line's formula: its encoding and size, or that the run has none (a score run). */
function submittedFormula(info: RunInfo): string {
  return hasFormula(info) ? `${info.encoding} (${info.numVars} vars, ${info.numClauses} clauses)` : formatFormula(info);
}
