/**
 * The progress display of `cubist run watch` (cli/watch-view.ts) and the formatting helpers of the control
 * commands (cli/control-format.ts): pure functions of a RunStatus, tested without a cluster.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  clearFrame, fitWidth, formatPlacements, redrawFrame, renderEndLine, renderProgressBar, renderStatusLine, renderVerdictLine,
  renderWatchView, StatusThrottle,
} from "../../cli/watch-view.js";
import {
  exitCodeOfRun, formatDuration, formatEta, formatPercent, formatProgress, formatTable, formatWeight, parseDuration, runJSON, runStateName, runStateOption,
} from "../../cli/control-format.js";
import { renderRunDetails, renderRunTable, solverLine, stateWithMessage } from "../../cli/control-run-view.js";
import { RunState, RunStatus } from "../../proto/gen/cubist/v1/run.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";
import { InvalidOptionError } from "../../core/errors.js";

function status(extra: Partial<RunStatus> = {}): RunStatus {
  // fromPartial: fields added to RunStatus later get their defaults.
  return RunStatus.fromPartial({
    runId: "r1",
    state: RunState.RUN_STATE_RUNNING,
    cubes: { queued: 12, running: 2, sat: 0, unsat: 30, unknown: 1, failed: 0, resplit: 4, refutedBySplit: 7, purged: 0 },
    progress: 0.362,
    etaSeconds: 80,
    cubesPerSecond: 3.25,
    solutions: 0,
    rejectedModels: 0,
    startedUnixMs: Date.UTC(2026, 10, 22, 4, 0, 0),
    finishedUnixMs: 0,
    updatedUnixMs: 0,
    priority: 0,
    message: "",
    generation: 0,
    certification: undefined,
    ...extra,
  });
}

const visible = (s: string): number => Array.from(s).length;

test("watch view - the progress bar is width cells between brackets at every fraction", () => {
  for (const f of [0, 0.01, 0.125, 0.5, 0.77, 0.999, 1, -1, 2, NaN]) {
    for (const w of [1, 7, 10, 40]) {
      const bar = renderProgressBar(f, w);
      assert.equal(visible(bar), w + 2, `fraction ${f} width ${w}: ${bar}`);
      assert.ok(bar.startsWith("[") && bar.endsWith("]"));
    }
  }
  assert.equal(renderProgressBar(0, 10), `[${"░".repeat(10)}]`);
  assert.equal(renderProgressBar(1, 10), `[${"█".repeat(10)}]`);
  assert.equal(renderProgressBar(0.5, 10), `[${"█".repeat(5)}${"░".repeat(5)}]`);
  // An eighth-cell step shows as a partial block.
  assert.equal(renderProgressBar(0.55, 10), `[${"█".repeat(5)}▌${"░".repeat(4)}]`);
});

test("watch view - the block shows state, closed fraction, cubes by state, cubes/s, ETA and solutions", () => {
  const lines = renderWatchView(status(), { runId: "r1", name: "clue1", width: 120 });
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^r1 \(clue1\) {2}running {2}\[█+.*░+\] +36\.2% {2}ETA 1m20s$/);
  assert.match(lines[1], /^cubes: 12 queued · 2 running · 30 unsat · 1 unknown · 4 re-split · 7 split-refuted {3}3\.3 cubes\/s {3}0 solutions$/);
  const done = renderWatchView(status({ state: RunState.RUN_STATE_SAT, solutions: 1 }), { runId: "r1", width: 120 });
  assert.match(done[0], /^r1 {2}sat {2}\[/);
  assert.match(done[0], /solved {2}ETA done$/);
  assert.match(done[1], /1 solution$/);
});

test("watch view - no line reaches the terminal width, so the redraw never wraps; a long name is cut first", () => {
  const name = "test/fixtures/some/very/long/directory/name/and/a/long/puzzle-file-name.txt";
  for (const width of [20, 40, 60, 80, 100, 200]) {
    const lines = renderWatchView(status(), { runId: "rmwrbusace8dc5c", name, width });
    for (const l of lines) assert.ok(visible(l) <= width - 1, `width ${width}: ${visible(l)} chars: ${l}`);
    if (width >= 60) assert.match(lines[0], /36\.2% {2}ETA 1m20s$/, `width ${width}: the figures survive: ${lines[0]}`);
  }
  assert.equal(fitWidth("abcdef", 4), "ab…");
  assert.equal(fitWidth("abc", 4), "abc");
});

test("watch view - a redraw moves up over the previous block, clears it, prints permanent lines above the new one", () => {
  assert.equal(redrawFrame(0, ["a", "b"]), "\r\x1b[Ja\nb\n");
  assert.equal(redrawFrame(2, ["c", "d"]), "\x1b[2A\r\x1b[Jc\nd\n");
  assert.equal(redrawFrame(2, ["c", "d"], ["verdict cube 3: unsat"]), "\x1b[2A\r\x1b[Jverdict cube 3: unsat\nc\nd\n");
  assert.equal(clearFrame(2), "\x1b[2A\r\x1b[J");
  assert.equal(clearFrame(0), "");
});

test("watch view - the plain line carries the time, run, state, closed fraction, every count, rate, ETA and solutions", () => {
  const now = Date.UTC(2026, 10, 22, 4, 13, 24);
  assert.equal(
    renderStatusLine(status(), { runId: "r1", now }),
    "04:13:24 r1 running 36.2% closed | cubes: 12 queued, 2 running, 30 unsat, 0 sat, 1 unknown, 0 failed, 4 re-split, 7 refuted by the splitter | 3.3 cubes/s | ETA 1m20s | 0 solution(s)",
  );
  assert.match(renderStatusLine(status({ etaSeconds: -1 }), { runId: "r1", now }), /\| ETA \? \|/);
});

test("watch view - plain lines are throttled to the interval, but state changes, solutions and the end print at once", () => {
  const t = new StatusThrottle(5000);
  assert.equal(t.shouldPrint(status(), 0), true, "the first status");
  assert.equal(t.shouldPrint(status({ progress: 0.4 }), 1000), false, "within the interval");
  assert.equal(t.shouldPrint(status({ progress: 0.5 }), 4999), false);
  assert.equal(t.shouldPrint(status({ progress: 0.6 }), 5000), true, "the interval passed");
  assert.equal(t.shouldPrint(status(), 5100), false);
  assert.equal(t.shouldPrint(status({ state: RunState.RUN_STATE_PAUSED }), 5200), true, "paused");
  assert.equal(t.shouldPrint(status({ state: RunState.RUN_STATE_PAUSED }), 5300), false);
  assert.equal(t.shouldPrint(status({ state: RunState.RUN_STATE_PAUSED, solutions: 1 }), 5400), true, "a solution");
  assert.equal(t.shouldPrint(status({ state: RunState.RUN_STATE_SAT, solutions: 1 }), 5500), true, "the end");
  assert.equal(t.shouldPrint(status({ state: RunState.RUN_STATE_SAT, solutions: 1 }), 5600), true, "an ended run always prints");
});

test("watch view - verdict, end and placement lines", () => {
  assert.equal(
    renderVerdictLine({ cubeId: "17.3", kind: VerdictKind.VERDICT_KIND_UNSAT, workerId: "w1", wallMs: 1234, conflicts: 5678, reason: "", earlier: false }),
    "verdict cube 17.3: unsat by w1 in 1.2s (5678 conflicts)",
  );
  assert.equal(
    renderVerdictLine({ cubeId: "2", kind: VerdictKind.VERDICT_KIND_UNKNOWN, workerId: "w2", wallMs: 60_000, conflicts: 9, reason: "time-limit", earlier: false }),
    "verdict cube 2: unknown: time-limit by w2 in 1m00s (9 conflicts)",
  );
  assert.equal(
    renderVerdictLine({ cubeId: "5", kind: VerdictKind.VERDICT_KIND_SAT, workerId: "w1", wallMs: 300, conflicts: 0, reason: "", earlier: true }),
    "verdict cube 5: sat by w1 in 300ms (closed before this watch)",
  );
  const end = renderEndLine("r1", status({
    state: RunState.RUN_STATE_UNSAT, progress: 1, message: "every cube refuted", finishedUnixMs: Date.UTC(2026, 10, 22, 4, 0, 18),
  }));
  assert.equal(end, "run r1 unsat: every cube refuted after 18s (100.0% closed, 0 solution(s))");
  assert.equal(formatPlacements([{ cell: 7, piece: 12, rot: 3 }, { cell: 0, piece: 0, rot: 0 }], { rows: 6, cols: 6 }), "r1c1=p12/3 r0c0=p0/0");
  assert.equal(formatPlacements([{ cell: 7, piece: 12, rot: 2 }], { shape: "triangle", rows: 4, cols: 7 }), "r2pos3=p12/2");
  assert.equal(formatPlacements([{ cell: 7, piece: 12, rot: 2 }], null), "7=p12/2");
});

test("control format - durations parse from 30s, 10m, 2h, 1h30m, 1.5h, 500ms and plain seconds", () => {
  assert.equal(parseDuration("30s"), 30);
  assert.equal(parseDuration("10m"), 600);
  assert.equal(parseDuration("2h"), 7200);
  assert.equal(parseDuration("1h30m"), 5400);
  assert.equal(parseDuration("1.5h"), 5400);
  assert.equal(parseDuration("500ms"), 0.5);
  assert.equal(parseDuration("1d"), 86400);
  assert.equal(parseDuration("90"), 90);
  assert.equal(parseDuration(" 2M "), 120);
  for (const bad of ["", "m", "10x", "10 m", "-5s", "1h30", "s10"]) {
    assert.throws(() => parseDuration(bad, "--stuck"), (e: unknown) => e instanceof InvalidOptionError && /^--stuck: expected a duration/.test(e.message), bad);
  }
});

test("control format - durations, percentages, weights and ETAs print for people", () => {
  assert.equal(formatDuration(0.25), "250ms");
  assert.equal(formatDuration(4.56), "4.6s");
  assert.equal(formatDuration(45), "45s");
  assert.equal(formatDuration(725), "12m05s");
  assert.equal(formatDuration(3 * 3600 + 4 * 60), "3h04m");
  assert.equal(formatDuration(2 * 86400 + 3 * 3600), "2d03h");
  assert.equal(formatDuration(-1), "?");
  assert.equal(formatPercent(0.362), "36.2%");
  assert.equal(formatPercent(0.99999), "99.9%", "an open run never shows 100%");
  assert.equal(formatPercent(1), "100.0%");
  assert.equal(formatPercent(1e-9), "<0.1%", "something closed never shows 0%");
  assert.equal(formatPercent(0), "0.0%");
  assert.equal(formatWeight(1 / 3), "0.333");
  // One format for every weight: never 0.0125 beside 1/7200.
  assert.equal(formatWeight(1 / 80), "0.0125");
  assert.equal(formatWeight(1 / 7200), "1.39e-4");
  assert.equal(formatWeight(1 / 4096), "2.44e-4");
  assert.equal(formatWeight(0), "0");
  assert.equal(formatEta(status({ etaSeconds: -1 })), "?");
  assert.equal(formatEta(status({ state: RunState.RUN_STATE_SAT })), "done");
  assert.equal(formatEta(status({ state: RunState.RUN_STATE_UNSAT })), "done");
});

test("control format - a cancelled or failed run has no ETA, not \"ETA done\"; a solved run shows solved, not 0.000%", () => {
  assert.equal(formatEta(status({ state: RunState.RUN_STATE_CANCELLED })), "-");
  assert.equal(formatEta(status({ state: RunState.RUN_STATE_FAILED })), "-");
  assert.equal(formatProgress(status({ state: RunState.RUN_STATE_SAT, progress: 0 })), "solved");
  assert.equal(formatProgress(status({ state: RunState.RUN_STATE_CANCELLED, progress: 0.25 })), "25.0%");
  assert.equal(renderEndLine("r1", status({ state: RunState.RUN_STATE_SAT, progress: 0, solutions: 1 })), "run r1 sat (solved, 1 solution(s))");
  assert.match(renderStatusLine(status({ state: RunState.RUN_STATE_SAT, progress: 0 }), { runId: "r1", now: 0 }), /^00:00:00 r1 sat solved \|/);
});

test("control format - run states map to names, exit codes like cubist solve, and messages that do not repeat the state", () => {
  assert.equal(runStateName(RunState.RUN_STATE_PAUSED), "paused");
  assert.equal(runStateOption("unsat"), RunState.RUN_STATE_UNSAT);
  assert.throws(() => runStateOption("nope"), InvalidOptionError);
  assert.throws(() => runStateOption("unspecified"), InvalidOptionError);
  assert.equal(exitCodeOfRun(RunState.RUN_STATE_SAT), 0);
  assert.equal(exitCodeOfRun(RunState.RUN_STATE_UNSAT), 20);
  assert.equal(exitCodeOfRun(RunState.RUN_STATE_CANCELLED), 30);
  assert.equal(exitCodeOfRun(RunState.RUN_STATE_FAILED), 1);
  assert.equal(stateWithMessage("paused", "paused"), "paused");
  assert.equal(stateWithMessage("paused", "paused (running cubes stopped)"), "paused (running cubes stopped)");
  assert.equal(stateWithMessage("cancelled", "by ops"), "cancelled (by ops)");
  assert.equal(formatTable(["A", "BB"], [["xyz", "1"], ["k", ""]]), "A    BB\nxyz  1\nk\n");
});

test("run views - run show lists state, settings, progress, counts, rate and solutions; an ended run has no growing duration", () => {
  const info = {
    runId: "r1", name: "clue1", status: status(), encoding: "heule-all", rows: 6, cols: 6, numVars: 728, numClauses: 8256,
    cubing: { targetCubes: 64, maxDepth: 0, cellOrder: "most-constrained" },
    solver: { solver: "kissat", timeLimitSec: 60, conflictLimit: 0, seed: 0, searchMs: 0, firstTimeLimitSec: 2, objective: "" },
    resplit: { afterBudgets: 1, depth: 1, targetChildren: 0 },
    mode: 1, createdUnixMs: Date.UTC(2026, 10, 22, 4, 0, 0),
  };
  const now = Date.UTC(2026, 10, 22, 4, 2, 0);
  const text = renderRunDetails(info, now);
  assert.match(text, /^run\s+r1$/m);
  assert.match(text, /^state\s+running$/m);
  assert.match(text, /^puzzle\s+6x6, encoding heule-all, 728 vars, 8256 clauses$/m);
  // A score run has no formula: said so, not "0 vars" (and null in --json).
  const noFormula = { ...info, numVars: 0, numClauses: 0 };
  assert.match(renderRunDetails(noFormula, now), /^puzzle\s+6x6, no CNF formula \(a score run\)$/m);
  assert.deepEqual([runJSON(noFormula).vars, runJSON(noFormula).clauses, runJSON(info).vars, runJSON(info).clauses], [null, null, 728, 8256]);
  assert.match(text, /^solver\s+kissat: 1m00s per cube, seed 0$/m);
  // The engine's share in words: beside a SAT solver for some or all of the budget; alone with solver none.
  const solverOf = (solver: string, timeLimitSec: number, searchMs: number): string =>
    solverLine({ ...info.solver, solver, timeLimitSec, searchMs });
  assert.equal(solverOf("kissat", 60, 1000), "kissat: 1m00s per cube, the placement engine beside it for the first 1.0s, seed 0");
  assert.equal(solverOf("kissat", 60, 3_600_000), "kissat: 1m00s per cube, the placement engine beside it throughout, seed 0");
  assert.equal(solverOf("none", 60, 3_600_000), "none (the placement engine alone): 1m00s per cube, seed 0");
  assert.equal(solverOf("none", 60, 5000), "none (the placement engine alone): 5.0s per cube, seed 0");
  assert.equal(solverOf("none", 0, 3_600_000), "none (the placement engine alone): 1h00m per cube, seed 0");
  assert.match(text, /^progress\s+36\.20% of the search space closed$/m);
  assert.match(text, /^cubes\s+12 queued, 2 running, 30 unsat, 0 sat, 1 unknown, 0 failed, 4 re-split, 7 refuted by the splitter$/m);
  assert.match(text, /^rate\s+3\.25 cubes\/s$/m);
  // One ETA, on its own line (the smoothed tree estimate; a range when the estimate has an error).
  assert.match(text, /^ETA\s+1m20s$/m);
  assert.equal(text.match(/ETA/g)?.length, 1, text);
  const ranged = renderRunDetails({ ...info, status: status({ remainingNodes: 1000, remainingNodesStderr: 250 }) }, now);
  assert.match(ranged, /^ETA\s+1m20s \(40s-2m00s\)$/m);
  assert.match(ranged, /^work\s+.*left about 1000 ± 250 placements$/m);
  const paused = renderRunDetails({ ...info, status: status({ state: RunState.RUN_STATE_PAUSED, etaSeconds: -1, runningSeconds: 30 }) }, now);
  assert.match(paused, /^ETA\s+none while paused$/m);
  assert.match(paused, /^running for\s+30s \(stopped while paused\)$/m);
  const score = renderRunDetails({ ...info, solver: { ...info.solver, objective: "score" }, status: status({ etaSeconds: -1 }) }, now);
  assert.match(score, /^ETA\s+none \(a score run improves its best board until it is stopped\)$/m);
  const counting = renderRunDetails({ ...info, status: status({ solutions: 100, solutionCount: 11584, countComplete: true, state: RunState.RUN_STATE_SAT }) }, now);
  assert.match(counting, /^count\s+exactly 11584 solutions/m);
  assert.doesNotMatch(counting, /^solutions\s/m, "one count, not the recorded boards beside it");
  assert.match(text, /^running for\s+2m00s$/m);
  const ended = renderRunDetails({ ...info, status: status({ state: RunState.RUN_STATE_CANCELLED, message: "enough", finishedUnixMs: 0 }) }, now);
  assert.match(ended, /^state\s+cancelled \(enough\)$/m);
  assert.match(ended, /^ran for\s+-$/m);
  const table = renderRunTable([info], now);
  assert.match(table, /^RUN\s+STATE\s+PROGRESS\s+OPEN\s+DONE\s+SOLUTIONS\s+BEST\s+SIZE\s+CREATED\s+NAME\nr1\s+running\s+36\.2%\s+15\s+30\s+0\s+-\s+6x6\s+2026-11-22 04:00 UTC \(2m00s ago\)\s+clue1\n$/);
  const best = { score: 448, maxScore: 480, placed: 256, cells: [], cubeId: "score-0", workerId: "w1", foundUnixMs: now };
  assert.match(renderRunTable([{ ...info, solver: { ...info.solver, objective: "score" }, status: status({ best }) }], now), /^r1\s+running\s+36\.2%\s+15\s+30\s+0\s+448\/480\s+6x6/m);
  assert.equal(renderRunTable([], now), "no runs\n");
});

test("run views - run show says how many cubes the split made beside the goal, why a run waits, and solved for a SAT run", () => {
  const info = {
    runId: "r1", name: "clue1", status: status({ initialCubes: 258, waiting: "2/2 slots busy with e2-full (priority 0)", priority: 5 }), encoding: "cubist-placement",
    rows: 6, cols: 6, numVars: 728, numClauses: 8256, cubing: { targetCubes: 256, maxDepth: 0, cellOrder: "most-constrained" },
    solver: undefined, resplit: undefined, mode: 1, createdUnixMs: Date.UTC(2026, 10, 22, 4, 0, 0),
  };
  const now = Date.UTC(2026, 10, 22, 4, 2, 0);
  const text = renderRunDetails(info, now);
  assert.match(text, /^cubing\s+258 cubes \(256 asked\), most-constrained cell order/m);
  assert.match(text, /^priority\s+5$/m);
  assert.match(text, /^waiting\s+2\/2 slots busy with e2-full \(priority 0\)$/m);
  const exact = renderRunDetails({ ...info, status: status({ initialCubes: 256 }) }, now);
  assert.match(exact, /^cubing\s+256 cubes, /m);
  assert.doesNotMatch(exact, /^waiting/m);
  const solved = renderRunDetails({ ...info, status: status({ state: RunState.RUN_STATE_SAT, progress: 0, solutions: 1 }) }, now);
  assert.match(solved, /^progress\s+solved \(0\.00% of the search space closed before the solution\)$/m);
  assert.match(solved, /^ETA\s+done$/m);
  const cancelled = renderRunDetails({ ...info, status: status({ state: RunState.RUN_STATE_CANCELLED }) }, now);
  assert.match(cancelled, /^ETA\s+-$/m);
  assert.match(renderRunTable([{ ...info, status: status({ state: RunState.RUN_STATE_SAT, progress: 0 }) }], now), /^r1\s+sat\s+solved\s+/m);
});

test("watch view - a score run has no ETA: none in the block and the plain line, not ?", () => {
  const running = status({ etaSeconds: -1 });
  assert.match(renderWatchView(running, { runId: "r1", width: 120 })[0], /ETA \?$/);
  assert.match(renderWatchView(running, { runId: "r1", width: 120, score: true })[0], /ETA none$/);
  assert.match(renderStatusLine(running, { runId: "r1", now: 0, score: true }), /\| ETA none \|/);
});
