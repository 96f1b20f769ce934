/**
 * User-given text printed by the CLI (issue 11, finding 6): control characters, separators and bidi overrides
 * come out as visible escapes in every view (run list, run show, run watch, cubes list, errors).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { terminalSafe, terminalSafeLines } from "../../cluster/terminal-text.js";
import { formatTable } from "../../cli/control-format.js";
import { renderRunDetails, renderRunTable } from "../../cli/control-run-view.js";
import { renderEndLine, renderSolutionLine, renderVerdictLine, renderWatchView } from "../../cli/watch-view.js";
import { describeError } from "../../cli/errors.js";
import { createLogger } from "../../cluster/log.js";
import { InvalidOptionError } from "../../core/errors.js";
import { RunState, RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

/** A name that retitles the window, clears the screen, forges a table row and reverses the rest of the line. */
const EVIL = "evil\x1b]0;pwned\x07\x1b[2J\nr2  sat  100%\r\0tail\u202eoops\u009b31m";
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

function status(extra: Partial<RunStatus> = {}): RunStatus {
  // fromPartial: fields added to RunStatus later get their defaults.
  return RunStatus.fromPartial({
    runId: "r1", state: RunState.RUN_STATE_RUNNING,
    cubes: { queued: 1, running: 0, sat: 0, unsat: 0, unknown: 0, failed: 0, resplit: 0, refutedBySplit: 0, purged: 0 },
    progress: 0.5, etaSeconds: 10, cubesPerSecond: 1, solutions: 0, rejectedModels: 0, startedUnixMs: 1, finishedUnixMs: 0,
    updatedUnixMs: 1, message: "", priority: 0, generation: 0, ...extra,
  });
}

test("terminal text - controls, separators and bidi overrides become visible escapes", () => {
  assert.equal(terminalSafe(EVIL), "evil\\e]0;pwned\\x07\\e[2J\\nr2  sat  100%\\r\\0tail\\u202eoops\\x9b31m");
  assert.equal(terminalSafe("a\tb\x7fc\u2028d\u2066e"), "a\\tb\\x7fc\\u2028d\\u2066e");
  // Printable text of any script passes unchanged.
  for (const ok of ["clue 1", "Éternité ²", "謎 パズル", "emoji 🧩", "a\\b"]) assert.equal(terminalSafe(ok), ok);
  assert.equal(terminalSafeLines("line 1\nline\x1b[2 2"), "line 1\nline\\e[2 2");
});

test("terminal text - run list, run show, run watch and cubes list print a hostile run name escaped", () => {
  const info = {
    runId: "r1", name: EVIL, status: status({ message: `cancelled: ${EVIL}` }), encoding: "cubist-placement", rows: 4, cols: 4,
    numVars: 1, numClauses: 1, cubing: { targetCubes: 4, maxDepth: 0, cellOrder: "most-constrained" },
    solver: { solver: "kissat", timeLimitSec: 60, conflictLimit: 0, seed: 0, searchMs: 0, firstTimeLimitSec: 2, objective: "" },
    resplit: { afterBudgets: 1, depth: 1, targetChildren: 0 }, mode: 1, createdUnixMs: 1,
  };
  const table = renderRunTable([info], 1000);
  assert.doesNotMatch(table, RAW);
  assert.equal(table.split("\n").length, 3, "a header, one row and the final newline: no forged row");
  assert.ok(table.includes("evil\\e]0;pwned\\x07\\e[2J\\nr2"), table);
  const details = renderRunDetails(info, 1000);
  assert.doesNotMatch(details, RAW);
  assert.match(details, /^name\s+evil\\e\]0;pwned/m);
  assert.match(details, /^state\s+running \(cancelled: evil\\e/m);
  for (const line of renderWatchView(info.status!, { runId: "r1", name: EVIL, width: 200 })) assert.doesNotMatch(line, RAW);
  assert.doesNotMatch(renderEndLine("r1", status({ state: RunState.RUN_STATE_CANCELLED, message: EVIL })), RAW);
  const verdict = renderVerdictLine({ cubeId: "3", kind: VerdictKind.VERDICT_KIND_UNKNOWN, workerId: "w\x1b[1m", wallMs: 5, conflicts: 0, reason: EVIL, earlier: false });
  assert.doesNotMatch(verdict, RAW);
  assert.ok(verdict.includes("by w\\e[1m"), verdict);
  assert.doesNotMatch(renderSolutionLine("r1", { index: 0, cubeId: "1", workerId: EVIL, foundUnixMs: 1, board: [], placements: [] } as never), RAW);
  // cubes list: worker ids and reasons are table cells.
  const cubes = formatTable(["CUBE", "WORKER", "REASON"], [["1", "w\u202e1", EVIL]]);
  assert.doesNotMatch(cubes, RAW);
  assert.equal(cubes.split("\n").length, 3);
  assert.doesNotMatch(describeError(new InvalidOptionError("puzzle", `bad file ${EVIL}`), false), RAW);
});

test("terminal text - the text log format escapes hostile field values (ids and reasons from messages)", () => {
  const lines: string[] = [];
  const log = createLogger({ component: "coordinator", write: (l) => lines.push(l) });
  log.warn("invalid verdict terminated", { run: "r\x1b[2J", reason: EVIL, err: new Error("bad\x9b1m"), n: 3 });
  assert.equal(lines.length, 1);
  assert.doesNotMatch(lines[0], RAW);
  assert.ok(lines[0].includes("run=r\\e[2J"), lines[0]);
  assert.ok(lines[0].endsWith(" n=3"), lines[0]);
});
