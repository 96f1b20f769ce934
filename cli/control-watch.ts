/**
 * Following a run (`cubist run watch`, `cubist run submit --watch`): reads the WatchRun stream and shows it as
 * a live block on a terminal, plain throttled lines elsewhere, or one JSON object per event with `--json`.
 * Ends with the run's exit code once the run ends. Ctrl-C (the signal) only stops the watching: the run goes on.
 */

import { status as Status } from "@grpc/grpc-js";
import type { RunStatus } from "../proto/gen/cubist/v1/run.js";
import type { RunEvent, RunInfo } from "../proto/gen/cubist/v1/api.js";
import type { OptionSpec } from "./args.js";
import { ClusterError } from "./client.js";
import { watchRunEvents, type ControlApi } from "./control-client.js";
import { exitCodeOfRun, isTerminal, runStateName, statusJSON } from "./control-format.js";
import { EXIT } from "./exit-codes.js";
import {
  clearFrame, redrawFrame, renderDroppedLine, renderEndLine, renderSolutionLine, renderStatusLine, renderVerdictLine,
  renderWatchView, StatusThrottle, verdictKindName,
} from "./watch-view.js";

export const WATCH_OPTIONS: Record<string, OptionSpec> = {
  verdicts: { type: "boolean", description: "also show every verdict (cube, answer, worker, time)" },
  interval: {
    type: "number", arg: "S", min: 0.1, max: 3600, default: 5,
    description: "without a terminal: seconds between progress lines (state changes and solutions are printed at once)",
  },
};

export const WATCH_EXIT_CODES = `Exit codes (when following a run):
  0    the run ended SAT: a verified solution exists (cubist solution show RUN)
  1    the run FAILED (some cube could not be answered), or an error (unreachable coordinator, bad token, ...)
  20   the run ended UNSAT: the puzzle has no solution (proved)
  30   the run was cancelled
  130  Ctrl-C: stopped watching; the run keeps running`;

export interface FollowOptions {
  runId: string;
  name?: string;
  verdicts: boolean;
  json: boolean;
  /** Seconds between plain progress lines. */
  intervalSec: number;
  /** Draw the live block (stdout is a terminal). */
  tty: boolean;
  width?: number;
  /** A score run: no ETA is shown. */
  score?: boolean;
  out: (s: string) => void;
  err: (s: string) => void;
  signal?: AbortSignal;
  now?: () => number;
}

/** Watches the run to its end; returns the exit code. */
export async function followRun(api: ControlApi, o: FollowOptions): Promise<number> {
  const now = o.now ?? Date.now;
  const throttle = new StatusThrottle(o.intervalSec * 1000);
  let last: RunStatus | undefined;
  let drawn = 0;
  const line = (text: string): void => {
    if (o.tty) {
      o.out(redrawFrame(drawn, last ? renderWatchView(last, { runId: o.runId, name: o.name, width: o.width, score: o.score }) : [], [text]));
      drawn = last ? 2 : 0;
    } else {
      o.out(`${text}\n`);
    }
  };
  const json = (obj: Record<string, unknown>): void => o.out(`${JSON.stringify({ run: o.runId, ...obj })}\n`);

  const onEvent = (ev: RunEvent): void => {
    const e = ev.event;
    if (!e) return;
    switch (e.$case) {
      case "status": {
        last = e.value;
        if (o.json) json({ event: "status", ...statusJSON(e.value) });
        else if (o.tty) {
          o.out(redrawFrame(drawn, renderWatchView(e.value, { runId: o.runId, name: o.name, width: o.width, score: o.score })));
          drawn = 2;
        } else if (throttle.shouldPrint(e.value, now())) line(renderStatusLine(e.value, { runId: o.runId, now: now(), score: o.score }));
        break;
      }
      case "verdict": {
        const v = e.value;
        if (o.json) json({ event: "verdict", cube: v.cubeId, kind: verdictKindName(v.kind), worker: v.workerId, wallMs: v.wallMs, conflicts: v.conflicts, reason: v.reason, ...(v.earlier ? { earlier: true } : {}) });
        else line(renderVerdictLine(v));
        break;
      }
      case "solution": {
        const s = e.value;
        if (o.json) json({ event: "solution", index: s.index, cube: s.cubeId, worker: s.workerId, foundUnixMs: s.foundUnixMs });
        else line(renderSolutionLine(o.runId, s));
        break;
      }
      case "dropped":
        if (o.json) json({ event: "dropped", count: e.value });
        else line(renderDroppedLine(e.value));
        break;
    }
  };

  const how = await watchRunEvents(api, { runId: o.runId, verdicts: o.verdicts, intervalSec: 1 }, onEvent, o.signal);
  if (o.tty) o.out(clearFrame(drawn));
  if (how === "aborted") {
    const state = last ? runStateName(last.state) : "running";
    if (!o.json && o.tty && last) o.out(`${renderWatchView(last, { runId: o.runId, name: o.name, width: o.width, score: o.score }).join("\n")}\n`);
    o.err(`stopped watching; run ${o.runId} is still ${state} (cubist run watch ${o.runId} to follow it again)\n`);
    return EXIT.INTERRUPTED;
  }
  if (!last || !isTerminal(last.state)) {
    const state = last ? runStateName(last.state) : "unknown";
    throw new ClusterError(Status.UNAVAILABLE, `the watch of run ${o.runId} ended before the run did (last state: ${state})`);
  }
  if (o.json) json({ event: "end", ...statusJSON(last) });
  else o.out(`${renderEndLine(o.runId, last)}\n`);
  return exitCodeOfRun(last.state);
}

/** `followRun` for a command: stdout (live block when it is a terminal), Ctrl-C / SIGTERM stop the watching. */
export async function followRunFromCli(api: ControlApi, info: Pick<RunInfo, "runId" | "name" | "solver">, values: { verdicts?: unknown; json?: unknown; interval?: unknown }): Promise<number> {
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    return await followRun(api, {
      runId: info.runId,
      name: info.name,
      score: info.solver?.objective === "score",
      verdicts: values.verdicts === true,
      json: values.json === true,
      intervalSec: typeof values.interval === "number" ? values.interval : 5,
      tty: process.stdout.isTTY === true && values.json !== true,
      width: process.stdout.columns,
      out: (s) => process.stdout.write(s),
      err: (s) => process.stderr.write(s),
      signal: abort.signal,
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
