/**
 * Verdicts: what a solved (or failed) cube becomes on the wire, and publishing it. A verdict is published with a
 * JetStream publish (msg id `<run>:<cube>:<stream seq>:<delivery>`, so a retried publish is stored once) and only
 * then is the task acked: a crash in between gives a redelivery and a duplicate verdict, never a lost one. While
 * NATS is away the publish is retried with backoff for as long as the worker is not forced to stop.
 */

import type { JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../cluster/log.js";
import type { Fault } from "../core/errors.js";
import type { Placement } from "../core/puzzle.js";
import type { PartProgress } from "../core/cubes/types.js";
import { FaultKind, Verdict, VerdictKind, type VerdictStats } from "../proto/gen/cubist/v1/cube.js";
import { faultKindOf } from "../proto/vocabulary.js";

/** Measurements carried by every verdict (absent counters are 0 on the wire). */
export interface CubeStats {
  conflicts?: number;
  decisions?: number;
  propagations?: number;
  solverSeconds?: number;
  wallMs?: number;
  cpuMs?: number;
  maxRssBytes?: number;
  searchNodes?: number;
  /** Knuth's estimate of the cube's whole search tree (placements) and its standard error. */
  estNodes?: number;
  estNodesStderr?: number;
  /** "kissat" | "cadical" | "search" | "prove": who decided (or who was running). */
  engine: string;
}

/** What became of a cube. "stopped": cancelled, paused or shut down: no verdict. */
export type CubeResult =
  | { kind: "sat"; model: Uint8Array; stats: CubeStats }
  | { kind: "sat-board"; board: Placement[]; stats: CubeStats }
  /** `proofSha256`: a certified task's uploaded DRAT proof. */
  | { kind: "unsat"; stats: CubeStats; proofSha256?: string }
  /** `partNext`: a search in parts (scan cubes) stopped by its budget says how far it got (docs/cubing.md "Resuming"). */
  | { kind: "unknown"; reason: string; stats: CubeStats; best?: Placement[]; partNext?: PartProgress }
  /** `fault`: whose fault (core/errors.ts); it travels in Verdict.fault and decides whether quarantine counts it. */
  | { kind: "error"; fault: Fault; reason: string; stats: CubeStats }
  /** Objective "count": the cube exhausted, its exact count and its first boards (worker/count-cube.ts). */
  | { kind: "counted"; solutions: number; boards: Placement[][]; stats: CubeStats }
  /** A check task's answer (worker/check-proof.ts): what the checker found about the proof. */
  | { kind: "checked"; proofSha256: string; verified: boolean; detail: string; format: string; stats: CubeStats }
  | { kind: "stopped"; stats: CubeStats };

export interface VerdictContext {
  run: string;
  cube: string;
  numVars: number;
  workerId: string;
  host: string;
  delivery: number;
  taskSeq: number;
  /** The task's lease, copied back (coordinator/model/leases.ts). */
  lease: string;
}

const KIND: Record<Exclude<CubeResult["kind"], "stopped">, VerdictKind> = {
  sat: VerdictKind.VERDICT_KIND_SAT,
  "sat-board": VerdictKind.VERDICT_KIND_SAT,
  unsat: VerdictKind.VERDICT_KIND_UNSAT,
  unknown: VerdictKind.VERDICT_KIND_UNKNOWN,
  error: VerdictKind.VERDICT_KIND_ERROR,
  counted: VerdictKind.VERDICT_KIND_UNSAT,
  checked: VerdictKind.VERDICT_KIND_UNSAT,
};

function kindOf(result: Exclude<CubeResult, { kind: "stopped" }>): VerdictKind {
  if (result.kind === "counted") return result.solutions > 0 ? VerdictKind.VERDICT_KIND_SAT : VerdictKind.VERDICT_KIND_UNSAT;
  if (result.kind === "checked") return result.verified ? VerdictKind.VERDICT_KIND_UNSAT : VerdictKind.VERDICT_KIND_ERROR;
  return KIND[result.kind];
}

/** A non-negative integer for a uint64 field (the wire type rejects fractions). */
function count(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), Number.MAX_SAFE_INTEGER) : 0;
}

function real(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? n : 0;
}

export function wireStats(s: CubeStats): VerdictStats {
  return {
    conflicts: count(s.conflicts),
    decisions: count(s.decisions),
    propagations: count(s.propagations),
    solverSeconds: real(s.solverSeconds),
    wallMs: real(s.wallMs),
    cpuMs: real(s.cpuMs),
    maxRssBytes: count(s.maxRssBytes),
    searchNodes: count(s.searchNodes),
    engine: s.engine,
    estNodes: real(s.estNodes),
    estNodesStderr: real(s.estNodesStderr),
  };
}

/** The Verdict for a result (not for "stopped", which has none). Reasons are cut to 1000 characters. */
export function buildVerdict(ctx: VerdictContext, result: Exclude<CubeResult, { kind: "stopped" }>): Verdict {
  return {
    runId: ctx.run,
    cubeId: ctx.cube,
    kind: kindOf(result),
    model: result.kind === "sat" ? Buffer.from(result.model.buffer, result.model.byteOffset, result.model.byteLength) : Buffer.alloc(0),
    numVars: ctx.numVars,
    stats: wireStats(result.stats),
    workerId: ctx.workerId,
    host: ctx.host,
    delivery: ctx.delivery,
    reason: result.kind === "unknown" || result.kind === "error" ? result.reason.slice(0, 1000) : result.kind === "checked" && !result.verified ? `proof not verified: ${result.detail}`.slice(0, 1000) : "",
    fault: result.kind === "error" ? faultKindOf(result.fault) : result.kind === "checked" && !result.verified ? FaultKind.FAULT_KIND_TASK : FaultKind.FAULT_KIND_UNSPECIFIED,
    generation: 0,
    board: result.kind === "sat-board" ? result.board.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })) : [],
    taskSeq: ctx.taskSeq,
    proofSha256: result.kind === "unsat" ? result.proofSha256 ?? "" : "",
    best: result.kind === "unknown" && result.best ? result.best.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })) : [],
    lease: ctx.lease,
    ...(result.kind === "unknown" && result.partNext ? { partNext: { next: result.partNext.next, depth: result.partNext.depth, ...(result.partNext.path ? { path: { ranks: [...result.partNext.path.ranks] } } : {}) } } : {}),
    ...(result.kind === "counted"
      ? { counted: { solutions: count(result.solutions), boards: result.boards.map((b) => ({ cells: b.map((p) => ({ cell: p.cell, piece: p.piece, rot: p.rot })) })) } }
      : {}),
    ...(result.kind === "checked"
      ? { checked: { proofSha256: result.proofSha256, verified: result.verified, detail: result.detail.slice(0, 1000), format: result.format } }
      : {}),
  };
}

/** The de-duplication id of a verdict (docs/cluster.md step 7). */
export function verdictMsgId(ctx: VerdictContext): string {
  return `${ctx.run}:${ctx.cube}:${ctx.taskSeq}:${ctx.delivery}`;
}

export interface PublishOptions {
  /** Give up when this aborts (the worker's hard stop). */
  signal: AbortSignal;
  log: Logger;
  /** Per-attempt publish timeout (a retry is harmless: the msg id de-duplicates it). @default 3000 */
  timeoutMs?: number;
  /** With the connection up, give up after this many failed attempts in a row (a rejected message). @default 10 */
  maxConnectedFailures?: number;
  /** Whether the connection is up now (the worker follows the client's status events). */
  connected: () => boolean;
}

/**
 * Publishes until the stream acknowledges it. Returns false when it gave up (hard stop, or the server keeps
 * rejecting it while connected); the caller then hands the task back.
 */
export async function publishVerdict(
  nc: NatsConnection,
  js: JetStreamClient,
  subject: string,
  streamName: string,
  verdict: Verdict,
  msgId: string,
  options: PublishOptions,
): Promise<boolean> {
  const data = Verdict.encode(verdict).finish();
  const maxConnectedFailures = options.maxConnectedFailures ?? 10;
  let connectedFailures = 0;
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) return false;
    try {
      await js.publish(subject, data, { msgID: msgId, timeout: options.timeoutMs ?? 3000, expect: { streamName } });
      if (attempt > 1) options.log.info("verdict published after retries", { msgId, attempts: attempt });
      return true;
    } catch (err) {
      connectedFailures = options.connected() ? connectedFailures + 1 : 0;
      if (attempt === 1 || attempt % 10 === 0) options.log.warn("verdict publish failed; retrying", { msgId, attempt, err: (err as Error).message });
      if (nc.isClosed()) return false;
      if (connectedFailures >= maxConnectedFailures) {
        options.log.error("verdict publish keeps failing; handing the task back", { msgId, attempts: attempt, err: (err as Error).message });
        return false;
      }
      await sleep(Math.min(5000, 100 * 2 ** Math.min(attempt, 6)), undefined, { signal: options.signal }).catch(() => undefined);
    }
  }
}
