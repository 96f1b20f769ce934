/**
 * What a certified cube's proof costs, DRAT against LRAT, side by side on one puzzle (issue 23, finding 8):
 *
 *   node --import tsx bench/proof-check.ts [--puzzle bench/puzzles/unsat-hard.txt] [--repeats 3] [--out FILE]
 *     [--baseline PROVER] [--no-drat]
 *
 * The whole puzzle is one cube (no units beyond the hints). Each repeat runs, interleaved:
 *   drat   `cubist-prove --support --proof P.drat`, then `drat-trim F.cnf P.drat -w` (not with --no-drat)
 *   base   with --baseline (e.g. a prover built from main: `make -C engine OUT=/tmp/old /tmp/old/cubist-prove`):
 *          the lrat leg below with that prover
 *   lrat   `cubist-prove --cnf F.cnf --lrat P.lrat`, then `lrat-check F.cnf P.lrat`, then the empty-clause guard
 *          (certify/lrat-guard.ts, in this process)
 * and reports CPU seconds (user + system, from /usr/bin/time; the guard's from process.cpuUsage), the proof's size,
 * the LRAT proof's hint IDs against the distinct facts they name (how often the lemmas derive the same implied
 * literal again: engine/prove.h), and the medians. Both checkers must verify.
 */

import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { encode, dimacsString } from "../core/encode/index.js";
import { placementTable } from "../core/encode/placement-table.js";
import { parsePuzzle } from "../core/formats/index.js";
import { proverProblem } from "../worker/engine/prove.js";
import { checkEmptyClauses } from "../certify/lrat-guard.js";
import { median } from "./lib/summary.js";

const { values } = parseArgs({
  options: {
    puzzle: { type: "string", default: "bench/puzzles/unsat-hard.txt" }, repeats: { type: "string", default: "3" }, out: { type: "string" },
    baseline: { type: "string" }, "no-drat": { type: "boolean", default: false },
  },
});
const file = values.puzzle!;
const prover = "dist/engine/cubist-prove";
const dir = mkdtempSync(join(tmpdir(), "cubist-proof-check-"));
const say = (line: string): void => {
  console.log(line);
  if (values.out) appendFileSync(values.out, line + "\n");
};

/** Runs a command under /usr/bin/time; its CPU seconds and stdout. */
function timed(cmd: string, args: string[], input?: string): { cpu: number; out: string } {
  const r = spawnSync("/usr/bin/time", ["-f", "CPU %U %S", cmd, ...args], { input, encoding: "utf8", maxBuffer: 1 << 26 });
  const m = /CPU (\S+) (\S+)\s*$/.exec(r.stderr);
  if (!m) throw new Error(`${cmd}: no timing (${r.stderr.slice(-300)})`);
  return { cpu: Number(m[1]) + Number(m[2]), out: r.stdout };
}

const puzzle = parsePuzzle(readFileSync(file, "utf8"), file);
const table = placementTable(puzzle);
const cnf = join(dir, "f.cnf");
writeFileSync(cnf, dimacsString(encode("cubist-placement", puzzle)));
const problem = proverProblem(table, table.hintLits);
const legs = [...(values.baseline ? [{ name: "base", path: values.baseline }] : []), { name: "lrat", path: prover }];
const rows: Record<string, number[]> = {};
const add = (key: string, v: number): void => { (rows[key] ??= []).push(v); };
const line = (s: string, key: string): number => Number(new RegExp(`^c ${key} (\\d+)`, "m").exec(s)?.[1] ?? NaN);
say(`# ${new Date().toISOString()} ${file}, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);

/** One DRAT proof and its check; the repeat's report. */
function dratLeg(): string {
  const drat = join(dir, "p.drat");
  const dp = timed(prover, ["--support", "--proof", drat], problem);
  const dc = timed("drat-trim", [cnf, drat, "-w"]);
  if (!/^s VERIFIED/m.test(dc.out.replace(/\r/g, "\n"))) throw new Error("drat-trim did not verify");
  add("dratMB", statSync(drat).size / 1e6);
  rmSync(drat);
  add("dratProve", dp.cpu);
  add("dratCheck", dc.cpu);
  return `drat prove ${dp.cpu.toFixed(2)} s (${line(dp.out, "lemmas")} lemmas, ${rows.dratMB!.at(-1)!.toFixed(0)} MB) + drat-trim ${dc.cpu.toFixed(2)} s`;
}

/** One LRAT proof by prover `path`, lrat-check and the guard; the repeat's report. */
async function lratLeg(name: string, path: string): Promise<string> {
  const lrat = join(dir, "p.lrat");
  const lp = timed(path, ["--cnf", cnf, "--lrat", lrat], problem);
  const lc = timed("lrat-check", [cnf, lrat]);
  if (!/^c VERIFIED$/m.test(lc.out)) throw new Error(`${name}: lrat-check did not verify`);
  const t0 = process.cpuUsage();
  const problemFound = await checkEmptyClauses(cnf, lrat);
  const g = process.cpuUsage(t0);
  if (problemFound) throw new Error(problemFound);
  add(`${name}MB`, statSync(lrat).size / 1e6);
  rmSync(lrat);
  add(`${name}Prove`, lp.cpu);
  add(`${name}Check`, lc.cpu);
  add(`${name}Guard`, (g.user + g.system) / 1e6);
  const hints = line(lp.out, "hints"), facts = line(lp.out, "facts");
  return `${name} prove ${lp.cpu.toFixed(2)} s (${line(lp.out, "nodes")} nodes, ${line(lp.out, "lemmas")} lemmas, ${rows[`${name}MB`]!.at(-1)!.toFixed(0)} MB, ` +
    `${(hints / 1e6).toFixed(1)} M hints, ${(facts / 1e6).toFixed(1)} M distinct facts derived: ${(hints / facts).toFixed(1)}x) + lrat-check ${lc.cpu.toFixed(2)} s + guard ${rows[`${name}Guard`]!.at(-1)!.toFixed(2)} s`;
}

try {
  for (let i = 0; i < Number(values.repeats); i++) {
    const parts = values["no-drat"] ? [] : [dratLeg()];
    for (const leg of legs) parts.push(await lratLeg(leg.name, leg.path));
    say(`repeat ${i + 1}: ${parts.join(" | ")}`);
  }
  const m = (k: string): string => median(rows[k]!).toFixed(2);
  const sum = (...ks: string[]): string => ks.reduce((t, k) => t + median(rows[k]!), 0).toFixed(2);
  const parts = values["no-drat"] ? [] : [`drat prove ${m("dratProve")} + drat-trim ${m("dratCheck")} = ${sum("dratProve", "dratCheck")} s CPU`];
  for (const { name } of legs) {
    parts.push(`${name} prove ${m(`${name}Prove`)} + lrat-check ${m(`${name}Check`)} + guard ${m(`${name}Guard`)} = ${sum(`${name}Prove`, `${name}Check`, `${name}Guard`)} s CPU, ${m(`${name}MB`)} MB`);
  }
  say(`median: ${parts.join(" | ")}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
