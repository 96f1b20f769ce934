/**
 * One pulled task, from validation to the final ack (steps 3-9 of docs/cluster.md "A worker, per slot"):
 * - malformed or foreign: term, logged, counted; a task that cannot run now: nak; nothing to do: ack;
 * - otherwise the cube is registered as active (cancels and status see it) and heartbeated with `working()`
 *   every ack_wait/2 from receipt to the final ack, through the formula download, search, solver and the
 *   verdict publish retries;
 * - a verdict is published on the worker's own verdict subject with the task's lease (coordinator/model/leases.ts), then
 *   the task is acked, also after an error: the coordinator sends the cube again as a new attempt, so this worker's
 *   errors do not use up the task's deliveries; errors of its own in a row quarantine the worker
 *   (worker/quarantine.ts; an error that is the task's fault or a passing one does not count);
 * - a cube stopped by a cancel or a final run state is acked without a verdict; one stopped by pause-now or a
 *   shutdown is handed back (nak).
 */

import { performance } from "node:perf_hooks";
import type { WorkerContext } from "./context.js";
import { ActiveCube } from "./active.js";
import { PAUSE_NOW } from "./cancels.js";
import type { PulledTask } from "./pull.js";
import { solveCube } from "./solve-cube.js";
import { checkProofTask } from "./check-proof.js";
import { solveTriangleCube } from "./triangle/cube.js";
import { isTrianglePuzzle } from "../core/triangle/puzzle.js";
import { validateTask } from "./validate-task.js";
import { buildVerdict, publishVerdict, verdictMsgId, type CubeResult } from "./verdict.js";
import { Verdict, VerdictKind } from "../proto/gen/cubist/v1/cube.js";
import type { Placement } from "../core/puzzle.js";

/**
 * Acks and waits for the confirmation, 3 attempts. A failure is harmless (the verdict is out; a redelivery only
 * produces a duplicate, which the coordinator ignores), and expected when the run's consumer was deleted (the
 * run ended): "no responders" ends the attempts. `quiet`: failures are logged at debug level only.
 */
async function ackWithRetry(ctx: WorkerContext, msg: PulledTask, fields: Record<string, unknown>, quiet = false): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await msg.ackAck(5000);
      return;
    } catch (err) {
      const gone = /no responders/i.test((err as Error).message);
      if (attempt === 3 || gone) {
        const why = gone ? "the run's consumer is gone" : (err as Error).message;
        if (quiet) ctx.log.debug("task ack not confirmed", { ...fields, why });
        else ctx.log.warn("task ack not confirmed; it may be redelivered", { ...fields, why });
        return;
      }
    }
  }
}

function round1(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function countResult(ctx: WorkerContext, kind: Exclude<CubeResult["kind"], "stopped">): void {
  const c = ctx.counters;
  c.cubesDone++;
  // A check task's answer is a task done, neither a refutation nor an error of this worker's.
  if (kind === "checked") return;
  if (kind === "sat" || kind === "sat-board") c.sat++;
  else if (kind === "unsat") c.unsat++;
  else if (kind === "unknown") c.unknown++;
  else c.errors++;
}

/**
 * Score runs: each improvement of the task's best board goes out at once as an interim verdict (VERDICT_KIND_BEST,
 * the task's lease; docs/cluster.md "Score runs"), numbered so that each is stored once. Fire and forget: the final
 * verdict carries the task's best board too.
 */
function interimReporter(ctx: WorkerContext, runId: string, task: { cubeId: string; lease: string }, msg: PulledTask): (best: readonly Placement[], searchNodes: number) => void {
  let n = 0;
  const { config, log } = ctx;
  return (best, searchNodes) => {
    n++;
    const v = Verdict.fromPartial({
      runId, cubeId: task.cubeId, kind: VerdictKind.VERDICT_KIND_BEST, workerId: config.workerId, host: config.host,
      delivery: msg.info.deliveryCount, taskSeq: msg.info.streamSequence, lease: task.lease,
      best: best.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })), stats: { engine: "search", searchNodes },
    });
    const msgID = `${runId}:${task.cubeId}:${msg.info.streamSequence}:${msg.info.deliveryCount}:b${n}`;
    ctx.layout.js.publish(config.names.verdictsSubject(runId, config.workerId), Verdict.encode(v).finish(), { msgID })
      .catch((err: Error) => log.debug("improvement not published", { run: runId, cube: task.cubeId, err: err.message }));
  };
}

export async function handleTask(
  ctx: WorkerContext,
  slot: { index: number },
  msg: PulledTask,
  ackWaitMs: number,
): Promise<void> {
  const { config, log, counters } = ctx;
  const names = config.names;
  const where = { seq: msg.info.streamSequence, delivery: msg.info.deliveryCount };
  const check = validateTask(
    { names, run: (id) => ctx.table.get(id), cancelled: (run, cube) => ctx.cancels.cancelled(run, cube), workerId: config.workerId },
    msg.subject,
    msg.data,
    msg.info,
  );
  if (check.action === "term") {
    msg.term();
    counters.terminated++;
    log.warn("task terminated: malformed or foreign", { run: check.run, cube: check.cube, ...where, why: check.reason });
    return;
  }
  if (check.action === "nak") {
    msg.nak(check.delayMs ?? config.retryDelayMs);
    counters.handedBack++;
    log.info("task handed back", { run: check.run, cube: check.cube, ...where, why: check.reason });
    return;
  }
  if (check.action === "ack") {
    msg.ack();
    counters.dropped++;
    log.info("task dropped", { run: check.run, cube: check.cube, ...where, why: check.reason });
    return;
  }

  const { task, run, limits } = check;
  const fields = { run: run.id, cube: task.cubeId, ...where };
  const active = new ActiveCube(slot.index, run.id, task.cubeId, Date.now(), task.lease);
  ctx.active.add(active);
  const heartbeat = setInterval(() => msg.working(), Math.max(100, Math.floor(ackWaitMs / 2)));
  try {
    log.debug("cube started", { ...fields, units: task.units.length, searchMs: limits.searchMs });
    const job = { task, run, limits, active, improved: interimReporter(ctx, run.id, task, msg) };
    const result = await (task.check ? checkProofTask(ctx, job) : isTrianglePuzzle(run.puzzle) ? solveTriangleCube(ctx, job) : solveCube(ctx, job));
    if (result.kind === "stopped") {
      if (active.handBack) {
        msg.nak(active.stopReason === PAUSE_NOW ? config.retryDelayMs : 0);
        counters.handedBack++;
        log.info("cube stopped; task handed back", { ...fields, why: active.stopReason });
      } else {
        await ackWithRetry(ctx, msg, fields, true);
        counters.dropped++;
        log.info("cube stopped; task acked", { ...fields, why: active.stopReason });
      }
      return;
    }
    active.phase = "verdict";
    const vctx = {
      run: run.id,
      cube: task.cubeId,
      numVars: run.numVars,
      workerId: config.workerId,
      host: config.host,
      delivery: msg.info.deliveryCount,
      taskSeq: msg.info.streamSequence,
      lease: task.lease,
    };
    const verdict = buildVerdict(vctx, result);
    const published = await publishVerdict(ctx.nc, ctx.layout.js, names.verdictsSubject(run.id, config.workerId), names.verdictsStream, verdict, verdictMsgId(vctx), {
      signal: ctx.hardStop,
      log,
      connected: () => ctx.connected(),
    });
    if (!published) {
      msg.nak(0);
      counters.handedBack++;
      log.warn("verdict not published; task handed back", fields);
      return;
    }
    countResult(ctx, result.kind === "counted" ? (result.solutions > 0 ? "sat" : "unsat") : result.kind);
    ctx.quarantine.record(result.kind === "error" ? { error: true, fault: result.fault, reason: result.reason } : { error: false });
    const stats = verdict.stats!;
    const summary = { ...fields, verdict: result.kind, engine: stats.engine, wallMs: Math.round(stats.wallMs), conflicts: stats.conflicts };
    await ackWithRetry(ctx, msg, fields);
    if (result.kind === "error") {
      log.warn("cube failed; error verdict sent (the coordinator sends the cube again)", { ...summary, fault: result.fault, why: verdict.reason });
      return;
    }
    if (result.kind === "checked") {
      log.info("proof checked", { ...summary, producer: task.check?.producer, verified: result.verified, format: result.format, cpuMs: Math.round(stats.cpuMs), why: result.detail || undefined });
      return;
    }
    // From receipt to the confirmed ack; overhead = that minus the search and solver time.
    const totalMs = performance.now() - msg.receivedAt;
    const timing = { totalMs: round1(totalMs), overheadMs: round1(totalMs - stats.wallMs) };
    log.debug("cube done", result.kind === "unknown" ? { ...summary, ...timing, why: result.reason } : { ...summary, ...timing });
  } finally {
    clearInterval(heartbeat);
    ctx.active.remove(active);
  }
}
