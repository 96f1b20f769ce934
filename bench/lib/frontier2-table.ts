/**
 * The markdown table of bench/frontier2.ts: per board and seed each configuration's seconds ("> T" for a run that
 * did not finish within its timeout T) and the ratio reference / t1; then each configuration's median over the
 * board-seed pairs (an unfinished run counts as its timeout, so a median resting on one is a bound) and the issue's
 * one-core targets: t1 within max(1 s, the reference) on every pair, and the median at least 2x the reference's.
 */

import { median } from "./summary.js";

/** One run of bench/frontier2.ts, as appended to its --out file. */
export interface Frontier2Row {
  readonly board: string;
  readonly seed: number;
  readonly config: string;
  /** sat (verified), timeout, invalid (a board that failed verification) or error. */
  readonly status: string;
  readonly seconds: number;
  readonly timeout: number;
  readonly load1: number;
  readonly session: string;
}

const cellText = (r: Frontier2Row | undefined): string =>
  !r ? "-" : r.status === "sat" ? r.seconds.toFixed(2) : r.status === "timeout" ? `> ${r.timeout}` : r.status;

/** Seconds of a run for medians and ratios: the timeout for an unfinished run. */
const secondsOf = (r: Frontier2Row): number => (r.status === "sat" ? r.seconds : r.timeout);

export function frontier2Table(rows: readonly Frontier2Row[], configs: readonly string[]): string {
  const pairs = [...new Set(rows.map((r) => `${r.board} ${r.seed}`))];
  const find = (pair: string, config: string): Frontier2Row | undefined => rows.find((r) => `${r.board} ${r.seed}` === pair && r.config === config);
  const compare = configs.includes("ref") && configs.includes("t1");
  const out = [`| board | seed | ${configs.join(" | ")} |${compare ? " ref / t1 |" : ""}`, `|---|---|${configs.map(() => "---|").join("")}${compare ? "---|" : ""}`];
  let within = 0, judged = 0;
  for (const pair of pairs) {
    const [board, seed] = pair.split(" ");
    let ratio = "";
    if (compare) {
      const ref = find(pair, "ref"), t1 = find(pair, "t1");
      if (ref && t1 && ref.status !== "sat" && t1.status !== "sat") {
        ratio = " - |";
        judged++;
      } else if (ref && t1) {
        ratio = ` ${(secondsOf(ref) / secondsOf(t1)).toFixed(2)}${ref.status !== "sat" ? " (≥)" : t1.status !== "sat" ? " (≤)" : ""} |`;
        judged++;
        if (t1.status === "sat" && t1.seconds <= Math.max(1, secondsOf(ref))) within++;
      } else ratio = " - |";
    }
    out.push(`| ${board} | ${seed} | ${configs.map((c) => cellText(find(pair, c))).join(" | ")} |${ratio}`);
  }
  const medians = configs.map((c) => median(rows.filter((r) => r.config === c).map(secondsOf)));
  out.push(`| median | | ${medians.map((m) => (Number.isNaN(m) ? "-" : m.toFixed(2))).join(" | ")} |${compare ? ` ${(medians[configs.indexOf("ref")] / medians[configs.indexOf("t1")]).toFixed(2)} |` : ""}`);
  if (compare) {
    out.push("", `t1 within max(1 s, reference) on ${within} of ${judged} board-seed pairs; ` +
      `median reference / t1 ${(medians[configs.indexOf("ref")] / medians[configs.indexOf("t1")]).toFixed(2)}x (target 2x).`);
  }
  return out.join("\n");
}
