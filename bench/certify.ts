/**
 * Certified vs uncertified UNSAT, side by side (issue 11: certified at most 3x the uncertified wall time).
 *
 *   node --import tsx bench/certify.ts [--puzzles a.txt,b.txt] [--repeats N] [--configs a,b] [--threads 2] [--out FILE]
 *     [--jsonl FILE] [--baseline DIR]
 *
 * For each puzzle and repeat the configurations run one after another (interleaved, so machine load hits them
 * alike); wall time of the whole `cubist solve` command, process start to exit:
 *   solve      `cubist solve FILE --threads T`                                     one machine, engines (+ Kissat)
 *   w1         `cubist solve FILE --workers 1 --concurrency T`                     embedded cluster, engine + Kissat per cube
 *   w1s0       `cubist solve FILE --workers 1 --concurrency T --search-ms 0 --solver kissat`   Kissat alone per cube
 *   certify    `cubist solve FILE --certify --threads T`                           the same cluster, certified (proofs
 *                                                                                  from cubist-prove, Kissat's otherwise)
 *   certifyKissat `cubist solve FILE --certify --threads T --search-ms 0`          certified, Kissat's proofs alone (no
 *                                                                                  engine, so no prover: the old path)
 *   certify256 `cubist solve FILE --certify --threads T --cubes 256`               certified, smaller cubes
 *   certifyW2  `cubist solve FILE --certify --workers 2 --concurrency 1`           certified on two workers, which check
 *                                                                                  each other's proofs (checker slots)
 * Every run must end UNSAT (exit 20); the certified ones must print their "certified:" line.
 *
 * `--baseline DIR` adds a `base:` form of every configuration (`base:certify`): the same command run by the build in
 * DIR (DIR/dist/cli/main.js: another checkout, built), interleaved with this one's. Each run also reports its CPU
 * seconds (user + system of the command and the processes it waited for, from /usr/bin/time); `--jsonl FILE`
 * appends one JSON line per run.
 */

import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median } from "./lib/summary.js";

const { values } = parseArgs({
  options: {
    puzzles: { type: "string", default: "bench/puzzles/unsat-hard.txt,test/fixtures/cluster/unsat-6x6.txt" },
    repeats: { type: "string", default: "1" },
    configs: { type: "string", default: "solve,w1,w1s0,certify,certifyKissat" },
    threads: { type: "string", default: "2" },
    out: { type: "string" },
    jsonl: { type: "string" },
    baseline: { type: "string" },
  },
});

const T = values.threads!;
const CONFIGS: Record<string, string[]> = {
  solve: ["--threads", T],
  w1: ["--workers", "1", "--concurrency", T],
  w1s0: ["--workers", "1", "--concurrency", T, "--search-ms", "0", "--solver", "kissat"],
  certify: ["--certify", "--threads", T],
  certifyKissat: ["--certify", "--threads", T, "--search-ms", "0"],
  certify256: ["--certify", "--threads", T, "--cubes", "256"],
  certifyW2: ["--certify", "--workers", "2", "--concurrency", "1"],
};
const configs = values.configs!.split(",").flatMap((c) => (values.baseline ? [`base:${c}`, c] : [c]));
const flags = (c: string): string[] | undefined => CONFIGS[c.replace(/^base:/, "")];
for (const c of configs) if (!flags(c)) throw new Error(`unknown config ${c} (known: ${Object.keys(CONFIGS).join(", ")})`);

const results = new Map<string, number[]>();
const cpus = new Map<string, number[]>();
for (const puzzle of values.puzzles!.split(",")) {
  for (let r = 0; r < Number(values.repeats); r++) {
    for (const c of configs) {
      const cli = c.startsWith("base:") ? join(values.baseline!, "dist/cli/main.js") : "dist/cli/main.js";
      const t0 = performance.now();
      const p = spawnSync("/usr/bin/time", ["-f", "CPU %U %S", process.execPath, cli, "solve", puzzle, ...flags(c)!], { encoding: "utf8" });
      const secs = (performance.now() - t0) / 1000;
      const load = (await import("node:os")).loadavg()[0].toFixed(1);
      const t = /CPU (\S+) (\S+)\s*$/.exec(p.stderr);
      const cpu = t ? Number(t[1]) + Number(t[2]) : NaN;
      if (p.status !== 20) throw new Error(`${puzzle} ${c}: exit ${p.status}: ${p.stdout}${p.stderr}`);
      if (c.startsWith("certify") && !/^certified: /m.test(p.stdout)) throw new Error(`${puzzle} ${c}: no certified line: ${p.stdout}`);
      const line = `${puzzle} ${c} repeat ${r + 1}: ${secs.toFixed(2)} s, ${cpu.toFixed(2)} s CPU (load ${load}) | ${p.stdout.trim().split("\n").join(" | ")}`;
      console.log(line);
      if (values.out) appendFileSync(values.out, `${line}\n`);
      if (values.jsonl) appendFileSync(values.jsonl, JSON.stringify({ date: new Date().toISOString(), puzzle, config: c, repeat: r + 1, wallSec: secs, cpuSec: cpu, load1: Number(load), env: process.env.CUBIST_PROOF_FORMAT ? { CUBIST_PROOF_FORMAT: process.env.CUBIST_PROOF_FORMAT } : {}, stdout: p.stdout.trim() }) + "\n");
      const key = `${puzzle} ${c}`;
      results.set(key, [...(results.get(key) ?? []), secs]);
      cpus.set(key, [...(cpus.get(key) ?? []), cpu]);
    }
  }
}
console.log("\nmedian wall seconds (CPU seconds):");
for (const [k, v] of results) console.log(`  ${k}: ${median(v).toFixed(2)} (${median(cpus.get(k)!).toFixed(2)})`);
