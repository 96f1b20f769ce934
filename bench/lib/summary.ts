/**
 * Markdown tables from the encoding benchmark's result lines: median wall time per instance and encoding
 * (over the shuffle seeds; a time-out counts as slower than everything, printed ">L"), beside the paper's
 * Tables 2 and 3, and the per-instance ratio of a baseline encoding (heule-all) to a candidate. A ratio that
 * involves a time-out of the baseline is a lower bound ("≥"), of the candidate an upper bound ("≤").
 */

import { PAPER_TABLE2, paperBest } from "./paper-tables.js";
import type { RunRecord } from "./encoding-run.js";

/** Median of numbers (Infinity allowed); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A run's time, Infinity when it gave no answer. */
const timeOf = (r: RunRecord): number => (r.verdict === "unknown" ? Infinity : r.wallSec);

function fmt(seconds: number, limit?: number): string {
  if (Number.isNaN(seconds)) return "";
  if (seconds === Infinity) return limit !== undefined ? `>${limit}` : "> 3600";
  if (seconds < 0.1) return seconds.toFixed(3);
  if (seconds < 10) return seconds.toFixed(2);
  return seconds.toFixed(1);
}

interface Cell {
  readonly median: number;
  readonly solved: number;
  readonly runs: number;
  readonly limit: number;
}

/** Groups results by instance and label for one solver; the latest record wins per (instance, seed). */
function cells(records: readonly RunRecord[], solver: string): Map<string, Map<string, Cell>> {
  const byKey = new Map<string, RunRecord>();
  for (const r of records) if (r.solver === solver) byKey.set(`${r.instance}|${r.label}|${r.seed}`, r);
  const groups = new Map<string, Map<string, RunRecord[]>>();
  for (const r of byKey.values()) {
    const inst = groups.get(r.instance) ?? new Map<string, RunRecord[]>();
    groups.set(r.instance, inst);
    const list = inst.get(r.label) ?? [];
    inst.set(r.label, list);
    list.push(r);
  }
  const out = new Map<string, Map<string, Cell>>();
  for (const [inst, labels] of groups) {
    const row = new Map<string, Cell>();
    for (const [label, list] of labels) {
      row.set(label, {
        median: median(list.map(timeOf)),
        solved: list.filter((r) => r.verdict !== "unknown").length,
        runs: list.length,
        limit: Math.max(...list.map((r) => r.limitSec)),
      });
    }
    out.set(inst, row);
  }
  return out;
}

function cellText(c: Cell | undefined): string {
  if (!c) return "";
  const t = fmt(c.median, c.limit);
  return c.solved === c.runs ? `${t}` : `${t} (${c.solved}/${c.runs})`;
}

/** A ratio base / cand with the bound marker; undefined when either is missing or both timed out. */
export function ratio(base: Cell | undefined, cand: Cell | undefined): { value: number; text: string } | undefined {
  if (!base || !cand) return undefined;
  const b = base.median === Infinity ? base.limit : base.median;
  const c = cand.median === Infinity ? cand.limit : cand.median;
  if (base.median === Infinity && cand.median === Infinity) return undefined;
  const value = b / c;
  const mark = base.median === Infinity ? "≥" : cand.median === Infinity ? "≤" : "";
  return { value, text: `${mark}${value.toFixed(value < 10 ? 2 : 1)}` };
}

/**
 * The main table for one solver: per instance the candidate and the baseline, their ratio, and the paper's
 * Table 2 F_all and best column. Ends with the median ratio over the instances that have one.
 */
export function comparisonTable(records: readonly RunRecord[], solver: string, instances: readonly string[], baseline: string, candidate: string): string {
  const grid = cells(records, solver);
  const lines = [
    `| instance | ${baseline} | ${candidate} | ratio | paper T2 F_all (picosat) | paper best (column) | ${candidate} faster than paper best |`,
    "|---|---|---|---|---|---|---|",
  ];
  const ratios: number[] = [];
  for (const inst of instances) {
    const row = grid.get(inst);
    const b = row?.get(baseline), c = row?.get(candidate);
    if (!b && !c) continue;
    const r = ratio(b, c);
    if (r) ratios.push(r.value);
    const best = paperBest(inst);
    const faster = c ? (c.median < best.seconds ? "yes" : "no") : "";
    lines.push(`| ${inst} | ${cellText(b)} | ${cellText(c)} | ${r?.text ?? ""} | ${fmt(PAPER_TABLE2[inst]?.all ?? NaN)} | ${fmt(best.seconds)} (${best.where}) | ${faster} |`);
  }
  lines.push("", `Median of the per-instance ratios ${baseline} / ${candidate} over ${ratios.length} instances: **${median(ratios).toFixed(2)}**` +
    ` (geometric mean ${Math.exp(ratios.reduce((a, x) => a + Math.log(x), 0) / Math.max(1, ratios.length)).toFixed(2)}).`);
  return lines.join("\n");
}

/** Median times of every label that has results for this solver, one column each. */
export function matrixTable(records: readonly RunRecord[], solver: string, instances: readonly string[], labels: readonly string[]): string {
  const grid = cells(records, solver);
  const present = labels.filter((l) => [...grid.values()].some((row) => row.has(l)));
  const lines = [`| instance | ${present.join(" | ")} |`, `|---|${present.map(() => "---|").join("")}`];
  for (const inst of instances) {
    const row = grid.get(inst);
    if (!row) continue;
    lines.push(`| ${inst} | ${present.map((l) => cellText(row.get(l))).join(" | ")} |`);
  }
  return lines.join("\n");
}

/** Every run, one row per instance and seed, one column per label (wall seconds, ">L" for a time-out). */
export function runsTable(records: readonly RunRecord[], solver: string, instances: readonly string[], labels: readonly string[]): string {
  const byKey = new Map<string, RunRecord>();
  for (const r of records) if (r.solver === solver) byKey.set(`${r.instance}|${r.label}|${r.seed}`, r);
  const present = labels.filter((l) => [...byKey.values()].some((r) => r.label === l));
  const seeds = [...new Set([...byKey.values()].map((r) => r.seed))].sort((a, b) => a - b);
  const lines = [`| instance | seed | ${present.join(" | ")} |`, `|---|---|${present.map(() => "---|").join("")}`];
  for (const inst of instances) {
    for (const seed of seeds) {
      const row = present.map((l) => byKey.get(`${inst}|${l}|${seed}`));
      if (row.every((r) => r === undefined)) continue;
      lines.push(`| ${inst} | ${seed} | ${row.map((r) => (r ? fmt(timeOf(r), r.limitSec) : "")).join(" | ")} |`);
    }
  }
  return lines.join("\n");
}
