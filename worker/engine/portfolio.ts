/**
 * Portfolios: several searches on one problem side by side, each its own process on its own core; the first that
 * proves an answer wins and the others are stopped (and awaited, so no process outlives the call).
 *
 * A member is an engine configuration (scan order, shuffle seed, restarts, and `parts`: one search split over that
 * many processes without communication, decided when one part finds a board or every part is exhausted), or the
 * SAT solver, whose run the caller supplies (single-machine solve streams the encoded formula; a worker feeds its
 * cached formula plus the cube's units). The spec text is what `--portfolio` takes: members separated by commas,
 * options after colons, e.g. `short,spiral:r100000:s1,kissat` (see docs/engine.md).
 */

import type { Placement } from "../../core/puzzle.js";
import { InvalidOptionError } from "../../core/errors.js";
import { ENGINE_ORDERS, runEngine, type EngineOptions, type EngineOrder, type EngineOutcome } from "./runner.js";
import type { EngineBest, EngineProgress } from "./output.js";

export type MemberSpec =
  | {
      kind: "engine";
      order: EngineOrder;
      seed: number;
      restartBase: number;
      parts: number;
      /** The order mirrored left to right: the scan starts from another corner (`m`). */
      mirror?: boolean;
      /** The scan and its mirror in turns of this many placements on one core (`a<N>`; 0 or absent: one scan). */
      alternate?: number;
      /** The pinned corner piece (`c<K>`, 0-3; docs/engine.md "Symmetry"): another starting corner, another tree. */
      corner?: number;
      /** With `alternate`: the scans taking turns (`t0+0m+2+2m`: corner pieces, m for the mirror). */
      scans?: string[];
    }
  | { kind: "sat" };

/** Processes a member occupies. */
export function memberThreads(m: MemberSpec): number {
  return m.kind === "engine" ? m.parts : 1;
}

export function memberName(m: MemberSpec): string {
  if (m.kind === "sat") return "sat";
  return [
    m.order,
    ...(m.mirror ? ["m"] : []),
    ...(m.corner ? [`c${m.corner}`] : []),
    ...(m.alternate ? [`a${m.alternate}`] : []),
    ...(m.scans?.length ? [`t${m.scans.join("+")}`] : []),
    ...(m.seed ? [`s${m.seed}`] : []),
    ...(m.restartBase ? [`r${m.restartBase}`] : []),
    ...(m.parts > 1 ? [`p${m.parts}`] : []),
  ].join(":");
}

/** Parses `--portfolio` text; `sat`, `kissat` and `cadical` all name the SAT solver member. */
export function parsePortfolio(text: string): MemberSpec[] {
  const members: MemberSpec[] = [];
  for (const raw of text.split(",").map((s) => s.trim()).filter((s) => s !== "")) {
    const [head, ...opts] = raw.split(":");
    if (head === "sat" || head === "kissat" || head === "cadical") {
      if (opts.length) throw new InvalidOptionError("portfolio", `the SAT member '${raw}' takes no options`);
      members.push({ kind: "sat" });
      continue;
    }
    if (!(ENGINE_ORDERS as readonly string[]).includes(head)) {
      throw new InvalidOptionError("portfolio", `unknown member '${head}' (known: ${ENGINE_ORDERS.join(", ")}, kissat)`);
    }
    const m: Extract<MemberSpec, { kind: "engine" }> = { kind: "engine", order: head as EngineOrder, seed: 0, restartBase: 0, parts: 1 };
    for (const o of opts) {
      if (o === "m") {
        m.mirror = true;
        continue;
      }
      if (o[0] === "t") {
        if (!/^t[0-3]m?(\+[0-3]m?){0,7}$/.test(o)) throw new InvalidOptionError("portfolio", `bad scans '${o}' in '${raw}' (t then up to 8 corners 0-3, each with m for the mirror, joined by +)`);
        m.scans = o.slice(1).split("+");
        continue;
      }
      const n = Number(o.slice(1));
      const ok = /^[srpac]\d+$/.test(o) && Number.isSafeInteger(n);
      if (!ok) throw new InvalidOptionError("portfolio", `bad option '${o}' in '${raw}' (m, a<turn nodes>, t<scans>, c<corner>, s<seed>, r<restart nodes>, p<processes>)`);
      if (o[0] === "s") m.seed = n;
      else if (o[0] === "c") {
        if (n > 3) throw new InvalidOptionError("portfolio", `c${n}: the corner piece is 0-3`);
        m.corner = n;
      }
      else if (o[0] === "a") m.alternate = n;
      else if (o[0] === "r") m.restartBase = n;
      else if (n < 1 || n > 256) throw new InvalidOptionError("portfolio", `p${n}: between 1 and 256 processes`);
      else m.parts = n;
    }
    if (m.parts > 1 && m.restartBase) throw new InvalidOptionError("portfolio", `'${raw}': a member split over processes cannot restart`);
    if (m.scans && !m.alternate) throw new InvalidOptionError("portfolio", `'${raw}': t<scans> lists the scans of a<turn nodes>`);
    if (m.alternate && (m.parts > 1 || m.restartBase)) {
      throw new InvalidOptionError("portfolio", `'${raw}': an alternating member is two complete scans: not split over processes or restarting`);
    }
    members.push(m);
  }
  if (members.length === 0) throw new InvalidOptionError("portfolio", "no members");
  return members;
}

export interface Contender<T> {
  name: string;
  run(signal: AbortSignal): Promise<T>;
  /** True when `result` is a proof (an answer to keep), not a give-up. */
  decided(result: T): boolean;
}

export interface RaceEntry<T> {
  name: string;
  result?: T;
  error?: Error;
}

/**
 * Runs every contender at once; the first decided result stops the others. Resolves after all of them settled,
 * with the winner (null when none decided) and every contender's result or error.
 */
export async function firstProof<T>(contenders: readonly Contender<T>[], signal?: AbortSignal): Promise<{ winner: RaceEntry<T> | null; entries: RaceEntry<T>[] }> {
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  if (signal?.aborted) stop.abort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let winner: RaceEntry<T> | null = null;
  const entries: RaceEntry<T>[] = contenders.map((c) => ({ name: c.name }));
  try {
    await Promise.all(
      contenders.map(async (c, i) => {
        try {
          const result = await c.run(stop.signal);
          entries[i].result = result;
          if (winner === null && !stop.signal.aborted && c.decided(result)) {
            winner = entries[i];
            stop.abort();
          }
        } catch (err) {
          entries[i].error = err as Error;
        }
      }),
    );
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stop.abort();
  }
  return { winner, entries };
}

/** What an engine member reports: the first board found, or a proof that its space is empty, and its work. */
export interface EngineMemberResult {
  kind: "sat" | "unsat" | "unknown";
  board?: Placement[];
  nodes: number;
  seconds: number;
  reason?: string;
  /** With EngineRunContext.best: the deepest partial board printed (of the deepest part), unverified. */
  best?: EngineBest | null;
}

export interface EngineRunContext {
  /** engineProblem's text (null, contradicting fixed placements, is the caller's to handle). */
  problem: string;
  shape: { rows: number; cols: number; pieces: number };
  /** Symmetry breaking (only sound without fixed cells, for finding or refuting, not counting). */
  symmetry: boolean;
  timeLimitMs?: number;
  progressMs?: number;
  onProgress?: (member: string, p: EngineProgress) => void;
  /** Ask for the deepest partial board (EngineOptions.best). */
  best?: boolean;
  binary?: string;
}

function memberResult(o: EngineOutcome): EngineMemberResult {
  const base = { nodes: o.stats.nodes, seconds: o.stats.seconds, ...(o.best ? { best: o.best } : {}) };
  if (o.kind === "sat") return { kind: "sat", board: o.board, ...base };
  if (o.kind === "unsat") return { kind: "unsat", ...base };
  return { kind: "unknown", reason: o.reason, ...base };
}

/** An engine member as a contender: one process, or `parts` processes that together cover the space. */
export function engineContender(m: Extract<MemberSpec, { kind: "engine" }>, ctx: EngineRunContext): Contender<EngineMemberResult> {
  const name = memberName(m);
  const options = (signal: AbortSignal, part?: { k: number; n: number }): EngineOptions => ({
    order: m.order,
    mirror: m.mirror,
    alternate: m.alternate,
    corner: m.corner,
    scans: m.scans,
    seed: m.seed,
    restartBase: m.restartBase,
    symmetry: ctx.symmetry,
    part,
    timeLimitMs: ctx.timeLimitMs,
    progressMs: ctx.progressMs,
    best: ctx.best,
    onProgress: ctx.onProgress ? (p) => ctx.onProgress!(name, p) : undefined,
    binary: ctx.binary,
    signal,
  });
  return {
    name,
    decided: (r) => r.kind !== "unknown",
    async run(signal) {
      if (m.parts <= 1) return memberResult(await runEngine(ctx.problem, ctx.shape, options(signal)));
      const parts = await firstProof(
        Array.from({ length: m.parts }, (_, k): Contender<EngineMemberResult> => ({
          name: `${name}#${k}`,
          decided: (r) => r.kind === "sat",
          run: async (s) => memberResult(await runEngine(ctx.problem, ctx.shape, options(s, { k, n: m.parts }))),
        })),
        signal,
      );
      const failed = parts.entries.find((e) => e.error);
      if (failed && !parts.winner) throw failed.error!;
      const nodes = parts.entries.reduce((sum, e) => sum + (e.result?.nodes ?? 0), 0);
      const seconds = Math.max(...parts.entries.map((e) => e.result?.seconds ?? 0));
      let deepest: EngineBest | null = null;
      for (const e of parts.entries) if (e.result?.best && (!deepest || e.result.best.placed > deepest.placed)) deepest = e.result.best;
      const best = deepest ? { best: deepest } : {};
      if (parts.winner) return { ...parts.winner.result!, nodes, seconds, ...best };
      if (parts.entries.every((e) => e.result?.kind === "unsat")) return { kind: "unsat", nodes, seconds, ...best };
      return { kind: "unknown", reason: parts.entries.find((e) => e.result?.kind === "unknown")?.result?.reason ?? "aborted", nodes, seconds, ...best };
    },
  };
}
