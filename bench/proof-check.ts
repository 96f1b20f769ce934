/**
 * What a certified cube's proof costs, DRAT against LRAT, side by side on one puzzle (issue 23, finding 8):
 *
 *   node --import tsx bench/proof-check.ts [--puzzle bench/puzzles/unsat-hard.txt] [--repeats 3] [--out FILE]
 *
 * The whole puzzle is one cube (no units beyond the hints). Each repeat runs, interleaved:
 *   drat   `cubist-prove --support --proof P.drat`, then `drat-trim F.cnf P.drat -w`
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

const { values } = parseArgs({ options: { puzzle: { type: "string", default: "bench/puzzles/unsat-hard.txt" }, repeats: { type: "string", default: "3" }, out: { type: "string" } } });
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
const rows: Record<string, number[]> = { dratProve: [], dratCheck: [], lratProve: [], lratCheck: [], guard: [], dratMB: [], lratMB: [] };
say(`# ${new Date().toISOString()} ${file}, load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
try {
  for (let i = 0; i < Number(values.repeats); i++) {
    const drat = join(dir, "p.drat"), lrat = join(dir, "p.lrat");
    const dp = timed(prover, ["--support", "--proof", drat], problem);
    const dc = timed("drat-trim", [cnf, drat, "-w"]);
    if (!/^s VERIFIED/m.test(dc.out.replace(/\r/g, "\n"))) throw new Error("drat-trim did not verify");
    rows.dratMB.push(statSync(drat).size / 1e6);
    rmSync(drat);
    const lp = timed(prover, ["--cnf", cnf, "--lrat", lrat], problem);
    const lc = timed("lrat-check", [cnf, lrat]);
    if (!/^c VERIFIED$/m.test(lc.out)) throw new Error("lrat-check did not verify");
    const t0 = process.cpuUsage();
    const problemFound = await checkEmptyClauses(cnf, lrat);
    const g = process.cpuUsage(t0);
    if (problemFound) throw new Error(problemFound);
    rows.lratMB.push(statSync(lrat).size / 1e6);
    rmSync(lrat);
    rows.dratProve.push(dp.cpu); rows.dratCheck.push(dc.cpu); rows.lratProve.push(lp.cpu); rows.lratCheck.push(lc.cpu);
    rows.guard.push((g.user + g.system) / 1e6);
    const lemmas = (s: string): string => /^c lemmas (\d+)/m.exec(s)?.[1] ?? "?";
    const line = (s: string, key: string): number => Number(new RegExp(`^c ${key} (\\d+)`, "m").exec(s)?.[1] ?? NaN);
    const hints = line(lp.out, "hints"), facts = line(lp.out, "facts");
    say(`repeat ${i + 1}: drat prove ${dp.cpu.toFixed(2)} s (${lemmas(dp.out)} lemmas, ${rows.dratMB.at(-1)!.toFixed(0)} MB) + drat-trim ${dc.cpu.toFixed(2)} s | ` +
      `lrat prove ${lp.cpu.toFixed(2)} s (${lemmas(lp.out)} lemmas, ${rows.lratMB.at(-1)!.toFixed(0)} MB, ` +
      `${(hints / 1e6).toFixed(1)} M hints naming ${(facts / 1e6).toFixed(1)} M distinct facts: ${(hints / facts).toFixed(1)}x) + lrat-check ${lc.cpu.toFixed(2)} s + guard ${rows.guard.at(-1)!.toFixed(2)} s`);
  }
  const m = (k: string): string => median(rows[k]!).toFixed(2);
  say(`median: drat prove ${m("dratProve")} + drat-trim ${m("dratCheck")} = ${(median(rows.dratProve!) + median(rows.dratCheck!)).toFixed(2)} s CPU | ` +
    `lrat prove ${m("lratProve")} + lrat-check ${m("lratCheck")} + guard ${m("guard")} = ${(median(rows.lratProve!) + median(rows.lratCheck!) + median(rows.guard!)).toFixed(2)} s CPU`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
