/**
 * `cubist cube resplit RUN CUBE [--depth D | --children N]`: replaces a cube by its children (a running cube's
 * solver is stopped); the cube's weight passes to them. Prints the children ids, one per line.
 */
import type { CommandSpec, ParsedValues } from "../args.js";
import { UsageError } from "../args.js";
import { EXIT } from "../exit-codes.js";
import { CLIENT_OPTIONS } from "../client.js";
import { withControlApi } from "../control-client.js";
import type { ResplitCubeRequest, ResplitCubeResponse } from "../../proto/gen/cubist/v1/api.js";

export const spec: CommandSpec = {
  name: "cube resplit",
  summary: "Re-split a cube (queued, running, unknown or failed) into children one or more placements deeper; prints the children ids.",
  usage: "cubist cube resplit <run> <cube> [--depth D | --children N] [--coordinator HOST:PORT] [--token T] [--json]",
  positionals: { min: 2, max: 2 },
  options: {
    depth: { type: "integer", arg: "D", description: "split this many placements deeper (default 1)", min: 1, max: 16 },
    children: { type: "integer", arg: "N", description: "or: split until at least N children exist (a lower bound: a whole placement at a time)", min: 1, max: 100_000 },
    ...CLIENT_OPTIONS,
  },
  details: `Children ids extend the cube's: cube 17 becomes 17.0, 17.1, ... Branches the splitter refutes by itself are
closed at once (counted on stderr). A split may also find a solution, which ends the run (no children then).

--children N is a lower bound, not an exact count: a child fixes whole placements, so the cube is split a placement
deeper at a time (on near-unique boards a scan level at a time) until at least N children exist, and the last step
can give many more (a cell with 51 candidates gives 51 children). The summary on stderr says so when it did.
--json prints {"run","cube","children":[...],"refuted":N}.

Exit codes: 0 re-split; 1 error (NOT_FOUND: no such run or cube; FAILED_PRECONDITION: the cube is closed or the run
ended; UNAUTHENTICATED: pass --token or set CUBIST_AUTH_TOKEN; unreachable coordinator); 2 usage error.`,
};

export async function run(values: ParsedValues, [runId, cubeId]: string[]): Promise<number> {
  if (values.depth !== undefined && values.children !== undefined) throw new UsageError("--depth and --children exclude each other");
  return withControlApi(values, async (api) => {
    const request: ResplitCubeRequest = {
      runId,
      cubeId,
      depth: typeof values.depth === "number" ? values.depth : 0,
      targetChildren: typeof values.children === "number" ? values.children : 0,
    };
    const res = await api.call<ResplitCubeRequest, ResplitCubeResponse>(api.client.resplitCube, request);
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ run: runId, cube: cubeId, children: res.children, refuted: res.refuted })}\n`);
      return EXIT.OK;
    }
    for (const c of res.children) process.stdout.write(`${c}\n`);
    process.stderr.write(resplitSummary(runId, cubeId, res.children.length, res.refuted, request.targetChildren));
    return EXIT.OK;
  });
}

/** The summary line on stderr; `asked` is --children (0: none), which the split may pass by a whole step. */
export function resplitSummary(runId: string, cubeId: string, children: number, refuted: number, asked: number): string {
  const splitter = `${refuted} branch${refuted === 1 ? "" : "es"} refuted by the splitter`;
  if (children === 0) return `cube ${cubeId} closed without children (${splitter}, or a solution found: cubist run show ${runId})\n`;
  const over = asked > 0 && children > asked
    ? `; --children ${asked} is a lower bound: the last placement deeper gave ${children}, not ${asked}` : "";
  return `cube ${cubeId} re-split into ${children} ${children === 1 ? "child" : "children"} (${splitter}${over})\n`;
}
