/**
 * `cubist solve PUZZLE --workers N [--all]`: the run on the embedded local cluster (cli/local-cluster.ts), its progress
 * on stderr, and its answer printed as `solve` prints one, for square and triangle puzzles alike: what differs is the
 * puzzle's view (cli/puzzle-view.ts: its size fields in the JSON, its board JSON and how a board is shown).
 */

import { terminalSafe } from "../cluster/terminal-text.js";
import type { ParsedValues } from "./args.js";
import { certificationJSON, formatCertification, formatProofChecks, proofChecksJSON } from "./certification-format.js";
import { EXIT } from "./exit-codes.js";
import { onInterrupt } from "./interrupt.js";
import { writeLines } from "./io.js";
import { printCountLine } from "./count-line.js";
import type { LocalClusterResult } from "./local-cluster.js";
import { runRequestFrom } from "./run-options.js";
import { countOf, SolveProgress } from "./solve-progress.js";
import type { PuzzleView } from "./puzzle-view.js";
import { TRIANGLE_ENCODING } from "../coordinator/model/run-defaults.js";
import type { RunRequest } from "../coordinator/run-spec.js";

/** `solve --workers N --all`: the count (the shape of `solve --all`), and every board to -o. */
function printClusterCount(view: PuzzleView, r: LocalClusterResult, values: ParsedValues, seconds: number): "sat" | "unsat" | "unknown" {
  const count = r.status.solutionCount ?? 0;
  const complete = r.status.countComplete === true;
  const status = count > 0 ? "sat" : complete ? "unsat" : "unknown";
  const reason = complete ? undefined : r.state === "cancelled" ? r.message || "cancelled" : r.state === "failed" ? `failed: ${r.message}` : "limit";
  const file = values.output as string | undefined;
  if (file !== undefined) writeLines(file, r.solutions.map((s) => JSON.stringify({ board: view.boardJSON(s.cells) })));
  const c = r.status.cubes!;
  if (values.json) {
    process.stdout.write(JSON.stringify({
      status, count, complete, ...(reason ? { reason } : {}),
      upToSymmetry: false, ...view.size, puzzle: view.name ?? null,
      workers: r.workers, run: r.runId,
      stats: {
        wallMs: Math.round(seconds * 1000), progress: r.status.progress, placements: r.status.placements,
        cubes: { counted: c.sat, empty: c.unsat, resplit: c.resplit, refutedBySplit: c.refutedBySplit, failed: c.failed, purged: c.purged },
        rejectedModels: r.status.rejectedModels,
      },
    }) + "\n");
  } else {
    printCountLine({ name: view.name, count, complete, reason, seconds, detail: ` on ${r.workers} worker(s) (${c.sat} cubes counted, ${c.resplit} re-split)`, output: file });
  }
  return status;
}

function printClusterResult(view: PuzzleView, r: LocalClusterResult, values: ParsedValues, seconds: number, history: ReadonlyArray<{ seconds: number; score: number }>): Promise<void> | void {
  const status = r.state === "sat" ? "sat" : r.state === "unsat" ? "unsat" : "unknown";
  const c = r.status.cubes!;
  const board = r.state === "sat" ? r.solutions[0]?.cells ?? null : null;
  if (values.json) {
    const out = {
      status,
      ...view.size,
      board: board ? view.boardJSON(board) : null,
      ...(status === "unknown" ? { reason: r.message } : {}),
      puzzle: view.name ?? null,
      encoding: view.shape === "triangle" ? TRIANGLE_ENCODING : values.encoding,
      solver: values.solver,
      workers: r.workers,
      run: r.runId,
      stats: {
        wallMs: Math.round(seconds * 1000),
        progress: r.status.progress,
        cubes: { sat: c.sat, unsat: c.unsat, unknown: c.unknown, failed: c.failed, resplit: c.resplit, refutedBySplit: c.refutedBySplit, queued: c.queued + c.running, purged: c.purged },
        rejectedModels: r.status.rejectedModels,
        placements: r.status.placements,
        remainingPlacements: r.status.remainingNodes,
        phasesMs: r.phases,
      },
      certified: certificationJSON(r.status.certification),
      proofChecks: proofChecksJSON(r.status.certification),
      certificate: r.certificate,
      ...(status === "unknown" && r.status.best
        ? { best: { score: r.status.best.score, maxScore: r.status.best.maxScore, placed: r.status.best.placed, cubeId: r.status.best.cubeId, board: view.boardJSON(r.status.best.cells) } }
        : {}),
      ...(history.length ? { history } : {}),
    };
    process.stdout.write(JSON.stringify(out) + "\n");
    // --svg FILE with --json: the picture of the board (or the best board) the JSON tells of, and no grid.
    const drawn = board ?? (status === "unknown" ? r.status.best?.cells : undefined);
    if (drawn && typeof values.svg === "string") return view.show(drawn, values, () => undefined);
    return;
  }
  const secs = seconds.toFixed(2);
  const summary = `${c.unsat} cubes refuted, ${c.resplit} re-split, ${c.refutedBySplit} branches refuted by the splitter`;
  if (board) {
    process.stdout.write(`solution (verified) for ${terminalSafe(view.name ?? "puzzle")} in ${secs} s on ${r.workers} worker(s) (${summary}):\n`);
    return view.show(board, values);
  }
  if (r.state === "unsat") {
    process.stdout.write(`unsat: ${terminalSafe(view.name ?? "the puzzle")} has no solution (proved in ${secs} s on ${r.workers} worker(s): ${summary})\n`);
    const certified = certifiedText(r);
    if (certified) process.stdout.write(`${certified}\n`);
    const checks = formatProofChecks(r.status.certification);
    if (checks) process.stdout.write(`proof checks: ${checks}\n`);
  } else {
    process.stdout.write(`unknown: ${r.state}: ${terminalSafe(r.message)} after ${secs} s\n`);
    const best = r.status.best;
    if (best) {
      process.stdout.write(`best board (checked by the coordinator): score ${best.score} of ${best.maxScore}, ${best.placed} of ${view.cells} cells placed:\n`);
      return view.show(best.cells, values);
    }
  }
}

/** What a run on the embedded cluster came to, as `solve` prints it: the result, the wall clock and a score run's history. */
export interface LocalRunOutcome {
  readonly result: LocalClusterResult;
  readonly seconds: number;
  /** --time ended the run. */
  readonly timedOut: boolean;
  /** A score run's best score over time, as the run's status reported it (`history` in --json). */
  readonly history: ReadonlyArray<{ seconds: number; score: number }>;
}

/**
 * Runs `request` on the embedded cluster of `--workers` workers (`--concurrency` slots each, `--nats`), its progress
 * on stderr (not with --json); --time bounds the whole run (--cube-time is the per-cube budget). Null when Ctrl-C
 * stopped it.
 */
export async function runOnLocalCluster(request: RunRequest, values: ParsedValues): Promise<LocalRunOutcome | null> {
  const stop = onInterrupt();
  const abort = stop.abort;
  const t0 = performance.now();
  // Progress on stderr: redrawn on a terminal, a plain line every few seconds in a pipe (not with --json).
  const progress = values.json ? null : new SolveProgress(process.stderr.isTTY === true, Date.now(), `starting a local cluster of ${countOf(values.workers as number, "worker")}`);
  const show = (): void => void (progress && process.stderr.write(progress.tick(Date.now())));
  show();
  const ticker = progress ? setInterval(show, 1000) : undefined;
  let deadline: NodeJS.Timeout | undefined;
  const history: Array<{ seconds: number; score: number }> = [];
  try {
    let timedOut = false;
    deadline = typeof values.time === "number" && values.time > 0
      ? setTimeout(() => { timedOut = true; abort.abort(); }, values.time * 1000)
      : undefined;
    // Loaded here so that a single-machine solve does not pay for the NATS and gRPC modules at start.
    const { solveOnLocalCluster } = await import("./local-cluster.js");
    const result = await solveOnLocalCluster(request, {
      workers: values.workers as number,
      concurrency: values.concurrency as number,
      natsUrl: values.nats as string | undefined,
      solverPath: values["solver-path"] as string | undefined,
      verbose: values.verbose === true,
      certificateDir: values.certificate as string | undefined,
      proofFormat: values["proof-format"] as string | undefined,
      maxCells: values["max-cells"] as number | undefined,
      maxFormulaMb: values["max-formula-mb"] as number | undefined,
      maxPuzzleMb: values["max-puzzle-mb"] as number | undefined,
      signal: abort.signal,
      onStatus: (st) => {
        progress?.update(st);
        if (st.best && st.best.score > (history.at(-1)?.score ?? -1)) history.push({ seconds: Math.round(performance.now() - t0) / 1000, score: st.best.score });
      },
    });
    clearTimeout(deadline);
    clearInterval(ticker);
    if (progress) process.stderr.write(progress.finish());
    if (stop.interrupted) return null;
    if (timedOut && result.state === "cancelled") result.message = "time-limit";
    return { result, seconds: (performance.now() - t0) / 1000, timedOut, history };
  } finally {
    // Also when the cluster failed to start: a pending --time timer would keep the process alive until it fires.
    clearTimeout(deadline);
    clearInterval(ticker);
    stop.dispose();
  }
}

/** What a certified run checked, and where its bundle is ("certified: ..."); null for a run without --certify. */
export function certifiedText(r: LocalClusterResult): string | null {
  const checked = formatCertification(r.status.certification, r.status.cubes!.unsat);
  if (!checked) return null;
  return `certified: ${checked}${r.certificate ? `; certificate in ${r.certificate} (re-check: sh ${r.certificate}/check.sh)` : ""}`;
}

/** The exit code of a first-solution run on the embedded cluster. */
export function clusterExitCode(state: LocalClusterResult["state"] | "unknown"): number {
  return state === "sat" ? EXIT.OK : state === "unsat" ? EXIT.UNSAT : state === "failed" ? EXIT.ERROR : EXIT.UNKNOWN;
}

export async function runCluster(view: PuzzleView, values: ParsedValues, label: string): Promise<number> {
  // Scan cubes in as many parts as there are solver slots, so every slot advances the scan (docs/cubing.md "Cube parts").
  const slots = (values.workers as number) * (values.concurrency as number);
  const request = { ...runRequestFrom(values, view.text, label), format: "canonical", ...(slots > 1 ? { cubePartsIfScan: slots } : {}) };
  const outcome = await runOnLocalCluster(request, values);
  if (outcome === null) return EXIT.INTERRUPTED;
  const { result, seconds, timedOut, history } = outcome;
  if (values.all === true) {
    const status = printClusterCount(view, result, values, seconds);
    return clusterExitCode(result.state === "failed" ? "failed" : status);
  }
  await printClusterResult(view, result, values, seconds, history);
  // A score run that ran to --time with a board did what it was asked.
  if (timedOut && values.objective === "score" && result.status.best) return EXIT.OK;
  return clusterExitCode(result.state);
}
