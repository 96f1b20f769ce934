/**
 * Engine settings of score mode side by side: for each shuffle of the official Eternity II with its 5 hints (as
 * bench/score.ts shuffles it), one `cubist-engine --score` process per setting, all started together so that they
 * share the cores and the machine's load alike (pairs, not absolute figures). A setting is a list of engine flags
 * added to score mode's defaults (worker/engine/runner.ts: row order, seed 1, breaks from 75%, ramp 1.6, Luby
 * restarts of 4 x 10^6). Prints one JSON line per run (the score-over-time curve; also appended to --out) and a table.
 *
 *   node --import tsx bench/score-pairs.ts --time 900 --seeds 1,2,3 --set "A=" --set "B=--score-from 70" [--out FILE]
 */

import { appendFileSync } from "node:fs";
import { execFileSync, spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { shufflePuzzle } from "../core/generate.js";
import { engineProblem, SCORE_FROM_PCT, SCORE_RAMP_PCT, SCORE_RESTART_NODES } from "../worker/engine/index.js";
import { officialE2 } from "./lib/eternity2.js";

const { values } = parseArgs({
  options: {
    time: { type: "string", default: "600" },
    seeds: { type: "string", default: "1,2,3" },
    set: { type: "string", multiple: true, default: [] },
    out: { type: "string", default: "" },
  },
});
const e2 = officialE2();
const sets = values.set!.map((s) => {
  const at = s.indexOf("=");
  return { name: s.slice(0, at), flags: s.slice(at + 1).split(" ").filter((f) => f !== "") };
});
const timeMs = Number(values.time) * 1000;
const BASE = ["--order", "row", "--seed", "1", "--restart", String(SCORE_RESTART_NODES), "--score", "--score-from", String(SCORE_FROM_PCT), "--score-ramp", String(SCORE_RAMP_PCT)];

/** One engine on one shuffle: the best score over time, as the engine printed it. */
function runOne(problem: string, flags: string[]): Promise<Array<{ seconds: number; score: number }>> {
  return new Promise((resolve, reject) => {
    const child = spawn("dist/engine/cubist-engine", [...BASE, ...flags, "--time-ms", String(timeMs)], { stdio: ["pipe", "pipe", "inherit"] });
    const history: Array<{ seconds: number; score: number }> = [];
    let rest = "";
    child.stdout.on("data", (d: Buffer) => {
      const lines = (rest + d.toString()).split("\n");
      rest = lines.pop()!;
      for (const line of lines) {
        const m = /^c best score=(\d+) .* seconds=([\d.]+)/.exec(line);
        if (m) history.push({ seconds: Number(m[2]), score: Number(m[1]) });
      }
    });
    child.on("error", reject);
    child.on("close", () => resolve(history));
    child.stdin.end(problem);
  });
}

const load = (): string => execFileSync("uptime").toString().trim().replace(/.*load average: /, "");
const marks = [60, 300, 600, 900, 1200, 1800].filter((m) => m <= Number(values.time));
const rows: string[] = [];
const loadBefore = load();
const runs = values.seeds!.split(",").map(Number).flatMap((seed) => {
  const problem = engineProblem(shufflePuzzle(e2, seed).puzzle, [])!;
  return sets.map(async (s) => ({ seed, set: s, history: await runOne(problem, s.flags) }));
});
for (const r of await Promise.all(runs)) {
  const at = (m: number): number | string => r.history.filter((h) => h.seconds <= m).at(-1)?.score ?? "-";
  const line = JSON.stringify({ set: r.set.name, flags: r.set.flags.join(" "), seed: r.seed, time: Number(values.time), final: r.history.at(-1)?.score ?? null, loadBefore, loadAfter: load(), history: r.history });
  console.log(line);
  if (values.out) appendFileSync(values.out, line + "\n");
  rows.push(`| ${r.set.name} (${r.set.flags.join(" ") || "defaults"}) | ${r.seed} | ${marks.map(at).join(" | ")} | ${r.history.at(-1)?.score ?? "-"} |`);
}
console.log(`\nload before ${loadBefore}, after ${load()}\n| setting | shuffle | ${marks.map((m) => `${m} s`).join(" | ")} | final |\n|---|---|${marks.map(() => "---|").join("")}---|`);
for (const r of rows) console.log(r);
