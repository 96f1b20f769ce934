/**
 * Markdown tables from bench/frontier.ts's result lines, ready for BENCHMARKS.md: per board and seed the
 * reference backtracker's time (bench/lib/peers.ts), the issue's target and each configuration's time; per suite the
 * median over the board-seed pairs per configuration against the reference's median, and the w1 / w2 ratio.
 *
 * A run counts as solved when it gave the right answer (a SAT board that `cubist verify` accepted, or UNSAT on the
 * UNSAT puzzle) within the limit, wall time of the whole command. An unsolved run counts as its limit, and a
 * reference "> L" as L: a median or ratio that rests on such a value is a bound, marked "≥" or "≤".
 *
 * Where a board, seed and configuration was run in several sessions (invocations of the benchmark), the latest
 * session's runs stand; with --repeats N the cell is the median over its N repeats.
 */

import { referenceTime } from "./peers.js";
import { repeatsTable } from "./repeats.js";
import { median } from "./summary.js";
import { BOARDS, targetOf, type SuiteName } from "./frontier-suites.js";

/** One line of the results file: one run of one configuration on one shuffled board. */
export interface FrontierRow {
  readonly suite: SuiteName;
  readonly board: string;
  readonly seed: number;
  readonly config: string;
  /** The extra `cubist solve` arguments of the configuration. */
  readonly args: readonly string[];
  /** 1-based repeat within the session. */
  readonly repeat: number;
  /** sat / unsat / unknown as printed by `solve --json`; killed (hard time-out); invalid (board not verified); wrong (the other answer); error. */
  readonly status: string;
  /** `cubist verify` accepted the printed board (null: nothing to verify). */
  readonly verified: boolean | null;
  /** The right answer within the limit. */
  readonly solved: boolean;
  /** Wall time of the whole `cubist solve` command, seconds. */
  readonly seconds: number;
  readonly limit: number;
  readonly exit: number | null;
  /** Processes that outlived the command (killed by the harness). */
  readonly leftover: number;
  readonly load1: number;
  readonly commit: string;
  /** The checkout had uncommitted changes to tracked files. */
  readonly dirty: boolean;
  /** When the benchmark invocation started (ISO); groups the runs of one invocation. */
  readonly session: string;
  readonly at: string;
}

const BUILT_IN_ORDER = ["solve", "w1", "w2"];

/** Seconds for a table: 2 decimals below 10 s, 1 below 100 s, none above. */
export function fmtSec(s: number): string {
  return s < 10 ? s.toFixed(2) : s < 100 ? s.toFixed(1) : s.toFixed(0);
}

/** A time that may be a lower bound (a limit standing in for "not solved"). */
interface Bounded {
  readonly value: number;
  readonly lower: boolean;
}

/** The median of bounded values; it is a lower bound when a value it rests on is one. */
function boundedMedian(values: readonly Bounded[]): Bounded {
  const s = [...values].sort((a, b) => a.value - b.value || Number(a.lower) - Number(b.lower));
  const m = s.length >> 1;
  const mid = s.length % 2 ? [s[m]] : [s[m - 1], s[m]];
  return { value: median(s.map((v) => v.value)), lower: mid.some((v) => v.lower) };
}

const boundedText = (b: Bounded): string => `${b.lower ? "≥ " : ""}${fmtSec(b.value)}`;

/** base / cand, marked as a bound when either side is one; undefined when both are. */
function ratioText(base: Bounded, cand: Bounded): string {
  if (base.lower && cand.lower) return "?";
  const r = base.value / cand.value;
  return `${base.lower ? "≥ " : cand.lower ? "≤ " : ""}${r.toFixed(r < 10 ? 2 : 1)}x`;
}

/** A configuration's runs on one board and seed (the latest session's). */
interface Cell {
  readonly time: Bounded;
  readonly solved: number;
  readonly runs: number;
  readonly limit: number;
  readonly rows: readonly FrontierRow[];
}

function cellOf(rows: readonly FrontierRow[]): Cell {
  const times = rows.map((r): Bounded => (r.solved ? { value: r.seconds, lower: false } : { value: r.limit, lower: true }));
  return { time: boundedMedian(times), solved: rows.filter((r) => r.solved).length, runs: rows.length, limit: Math.max(...rows.map((r) => r.limit)), rows };
}

function cellText(c: Cell | undefined, target: number | undefined): string {
  if (!c) return "";
  const t = c.solved === 0 ? `> ${c.limit}` : boundedText(c.time);
  const count = c.runs > 1 && c.solved < c.runs ? ` (${c.solved}/${c.runs})` : "";
  const odd = c.rows.some((r) => !["sat", "unsat", "unknown", "killed"].includes(r.status)) ? ` [${[...new Set(c.rows.map((r) => r.status))].join(",")}]` : "";
  const mark = target === undefined ? "" : met(c, target) ? " ✓" : " ✗";
  return `${t}${count}${mark}${odd}`;
}

/** The target is met when the cell's median is a solved time within it. */
const met = (c: Cell, target: number): boolean => !c.time.lower && c.time.value <= target;

/** The latest session's rows per (suite, board, seed, config). */
function latestCells(rows: readonly FrontierRow[]): Map<string, Cell> {
  const bySession = new Map<string, FrontierRow[]>();
  const latest = new Map<string, string>();
  for (const r of rows) {
    const key = `${r.suite}|${r.board}|${r.seed}|${r.config}`;
    if (!latest.has(key) || latest.get(key)! < r.session) latest.set(key, r.session);
    const list = bySession.get(`${key}|${r.session}`) ?? [];
    list.push(r);
    bySession.set(`${key}|${r.session}`, list);
  }
  const out = new Map<string, Cell>();
  for (const [key, session] of latest) out.set(key, cellOf(bySession.get(`${key}|${session}`)!));
  return out;
}

/** Configurations in table order: the built-in ones first, then the others as first seen. */
export function orderConfigs(rows: readonly FrontierRow[], only?: readonly string[]): string[] {
  const seen = [...new Set(rows.map((r) => r.config))];
  const ordered = [...BUILT_IN_ORDER.filter((c) => seen.includes(c)), ...seen.filter((c) => !BUILT_IN_ORDER.includes(c))];
  return only ? ordered.filter((c) => only.includes(c)) : ordered;
}

function refText(board: string, seed: number): { text: string; time?: Bounded } {
  const ref = referenceTime(board, seed);
  if (!ref) return { text: referenceTime(board, 1) || referenceTime(board, 2) || referenceTime(board, 3) ? "not run" : "-" };
  if (ref.seconds === null) return { text: `> ${ref.limitSec}`, time: { value: ref.limitSec, lower: true } };
  return { text: fmtSec(ref.seconds), time: { value: ref.seconds, lower: false } };
}

/** The tables of one suite; empty when it has no results. */
export function suiteSummary(suite: SuiteName, rows: readonly FrontierRow[], only?: readonly string[]): string {
  const mine = rows.filter((r) => r.suite === suite);
  const configs = orderConfigs(mine, only);
  if (configs.length === 0) return "";
  const cells = latestCells(mine.filter((r) => configs.includes(r.config)));
  const boards = BOARDS.filter((b) => b.suite === suite);
  const seeds = [...new Set(mine.map((r) => r.seed))].sort((a, b) => a - b);
  const out: string[] = [];
  const argsOf = (c: string): string => {
    const r = mine.find((x) => x.config === c);
    return r && r.args.length ? ` ${r.args.join(" ")}` : "";
  };

  out.push(`#### ${suite}: seconds per board and seed (wall time of the whole \`cubist solve\` command)`, "");
  out.push(`| board | seed | reference | target | ${configs.join(" | ")} |`, `|---|---|---|---|${configs.map(() => "---|").join("")}`);
  const pairs: Array<{ board: string; seed: number; ref?: Bounded; cells: Map<string, Cell> }> = [];
  const metCount = new Map<string, number>();
  let targets = 0;
  for (const b of boards) {
    for (const seed of seeds) {
      const row = new Map<string, Cell>();
      for (const c of configs) {
        const cell = cells.get(`${suite}|${b.name}|${seed}|${c}`);
        if (cell) row.set(c, cell);
      }
      if (row.size === 0) continue;
      const ref = refText(b.name, seed);
      const target = targetOf(b, seed);
      if (target) targets++;
      for (const [c, cell] of row) if (target && met(cell, target.seconds)) metCount.set(c, (metCount.get(c) ?? 0) + 1);
      const targetText = target ? `${fmtSec(target.seconds)}${target.why === "max(1 s, ref)" ? "" : ` (${target.why})`}` : "-";
      out.push(`| ${b.name} | ${seed} | ${ref.text} | ${targetText} | ${configs.map((c) => cellText(row.get(c), target?.seconds)).join(" | ")} |`);
      pairs.push({ board: b.name, seed, ref: ref.time, cells: row });
    }
  }
  out.push("");
  out.push(`Configurations: ${configs.map((c) => `\`${c}\` = \`cubist solve FILE --json --time L${argsOf(c)}\``).join("; ")}.`);
  out.push(`✓ / ✗: the target met or not (the median of the runs, solved, within the target). Reference: ` +
    "david3x3x3/eternity2, a public single-threaded C row-scan backtracker, measured on the same shuffles with its rows along the short side (2026-11-26; the Heule suite 2026-11-23) (bench/lib/peers.ts).");
  if (suite === "frontier") out.push("Target per board and seed (issue 10): `cubist solve` within max(1 s, the reference's time); where the reference did not finish, within its limit.");
  if (suite === "heule") out.push("Target (issue 10): every em-* within 1.2 s on one machine, em_9_3_5 within 3 s.");
  if (suite === "hard") out.push("Goal (issue 10): the 8x8 within 30 min; unsat-hard refuted (no target time).");

  // Suite medians over the board-seed pairs every configuration has.
  const common = pairs.filter((p) => configs.every((c) => p.cells.has(c)));
  if (suite !== "hard" && common.length > 0) {
    const refMed = common.every((p) => p.ref) ? boundedMedian(common.map((p) => p.ref!)) : undefined;
    const med = new Map(configs.map((c) => [c, boundedMedian(common.map((p) => p.cells.get(c)!.time))]));
    out.push("", `#### ${suite}: suite median over ${common.length} board-seed pairs`, "");
    out.push(`| | reference | ${configs.join(" | ")} |`, `|---|---|${configs.map(() => "---|").join("")}`);
    out.push(`| median s | ${refMed ? boundedText(refMed) : "-"} | ${configs.map((c) => boundedText(med.get(c)!)).join(" | ")} |`);
    if (refMed) out.push(`| reference / config | | ${configs.map((c) => ratioText(refMed, med.get(c)!)).join(" | ")} |`);
    out.push(`| targets met | | ${configs.map((c) => `${metCount.get(c) ?? 0}/${targets}`).join(" | ")} |`);
    out.push(`| solved | | ${configs.map((c) => `${common.reduce((a, p) => a + p.cells.get(c)!.solved, 0)}/${common.reduce((a, p) => a + p.cells.get(c)!.runs, 0)}`).join(" | ")} |`);
    out.push("");
    if (pairs.length > common.length) out.push(`- ${pairs.length - common.length} board-seed pairs lack a configuration and are left out of the medians.`);
    out.push(`- A reference "> L" counts as L s in its median, an unsolved run of ours as its limit; a median resting on one is a lower bound (≥), and so is a ratio over it (≥ / ≤).`);
    if (suite === "frontier" && refMed && med.has("solve")) {
      const m = med.get("solve")!;
      const ok = !m.lower && refMed.value / m.value >= 3;
      out.push(`- Target: the \`solve\` suite median at least 3x faster than the reference's: **${ok ? "met" : "not met"}** (${ratioText(refMed, m)}).`);
    }
    if (med.has("w1") && med.has("w2")) {
      out.push(`- \`w1\` / \`w2\`, ratio of the suite medians: **${ratioText(med.get("w1")!, med.get("w2")!)}** (target at least 1.8x).`);
    }
    if (med.has("solve")) {
      for (const w of configs.filter((c) => /^w\d+$/.test(c))) {
        let worst: { d: number; where: string } | undefined;
        for (const p of common) {
          const d = p.cells.get(w)!.time.value - p.cells.get("solve")!.time.value;
          if (!worst || d > worst.d) worst = { d, where: `${p.board} seed ${p.seed}` };
        }
        if (worst) out.push(`- \`${w}\` − \`solve\`, worst board-seed: ${worst.d >= 0 ? "+" : ""}${worst.d.toFixed(2)} s on ${worst.where} (${w === "w2" ? "target at most +1.5 s; " : ""}unsolved runs count as their limit).`);
      }
    }
  }

  // Every repeat, when each cell has the same number of them.
  const all = [...cells.entries()];
  const n = all[0]?.[1].runs ?? 0;
  if (n > 1 && all.every(([, c]) => c.runs === n)) {
    const table = Array.from({ length: n }, (_, i) => Object.fromEntries(all.map(([key, c]) => {
      const [, board, seed, config] = key.split("|");
      const r = c.rows[i];
      return [`${board} seed ${seed} ${config}`, r.solved ? Math.round(r.seconds * 1000) : Infinity];
    })));
    out.push("", `#### ${suite}: every repeat (ms; Infinity = unsolved)`, "", repeatsTable(table));
  }

  // Where and how the runs were made.
  const used = mine.filter((r) => configs.includes(r.config));
  const commits = [...new Set(used.map((r) => `${r.commit.slice(0, 7)}${r.dirty ? " + uncommitted changes" : ""}`))];
  const limits = [...new Set(used.map((r) => r.limit))];
  const loads = used.map((r) => r.load1);
  const leftovers = used.reduce((a, r) => a + r.leftover, 0);
  out.push("", `Runs: ${used.length}, commit ${commits.join(", ")}, limit ${limits.join("/")} s, 1-min load at start ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)}` +
    `${leftovers ? `, ${leftovers} processes outlived their command and were killed` : ""}.`);
  return out.join("\n");
}

/** Every suite that has results. */
export function summary(rows: readonly FrontierRow[], suites: readonly SuiteName[], only?: readonly string[]): string {
  return suites.map((s) => suiteSummary(s, rows, only)).filter(Boolean).join("\n\n");
}
