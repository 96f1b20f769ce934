/**
 * Checking a cube's proof in a process of its own, never in the process that produced it. Two formats arrive:
 * binary DRAT (Kissat's proofs), checked by drat-trim (certify/drat-trim.ts), and text LRAT (the placement prover's,
 * engine/prove-lrat.c), checked by `lrat-check` (installed with drat-trim by Debian's drat-trim package), which
 * follows each lemma's hints and so checks in time linear in the proof instead of searching every lemma's
 * propagation again. The format is read from the proof's first byte: binary DRAT starts with `a` or `d`, text LRAT
 * with a clause ID. A proof that claims the wrong format simply fails its checker.
 *
 * lrat-check's verdict is its exit code 0 together with its `c VERIFIED` line; it fails a proof that does not end
 * in the empty clause. It accepts an empty clause its hints do not derive, though (certify/lrat-guard.ts), so a
 * proof it verifies must also pass the guard, which replays the proof's empty clauses.
 */

import { open } from "node:fs/promises";
import { runChild, TailBuffer } from "../host/child.js";
import { checkerCpu, checkProof, type CheckOptions, type ProofCheck } from "./drat-trim.js";
import { checkEmptyClauses } from "./lrat-guard.js";

export const DEFAULT_LRAT_CHECK = "lrat-check";

export type ProofFormat = "drat" | "lrat";

/** The format of a proof from its first bytes: LRAT when it starts with a digit (a clause ID). */
export function proofFormatOf(head: Uint8Array): ProofFormat {
  return head.length > 0 && head[0] >= 0x30 && head[0] <= 0x39 ? "lrat" : "drat";
}

/** The format of the proof file at `path`. */
export async function proofFormat(path: string): Promise<ProofFormat> {
  const file = await open(path, "r");
  try {
    const head = Buffer.alloc(1);
    const { bytesRead } = await file.read(head, 0, 1, 0);
    return proofFormatOf(head.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** Checks an LRAT proof of the CNF in `cnfPath` with lrat-check. Never throws for a bad proof. */
export async function checkLratProof(cnfPath: string, proofPath: string, options: CheckOptions = {}): Promise<ProofCheck> {
  const limit = Math.max(1, Math.ceil(options.timeLimitSec ?? 40_000));
  const binary = options.binary ?? DEFAULT_LRAT_CHECK;
  const out = new TailBuffer(64 * 1024);
  const started = performance.now();
  const cpu = checkerCpu();
  const run = await runChild(binary, [cnfPath, proofPath], {
    ...cpu.hooks,
    onStdout: (chunk) => {
      cpu.sample();
      out.push(chunk);
    },
    onStderr: (chunk) => out.push(chunk),
    signal: options.signal,
    timeLimitMs: limit * 1000,
  });
  const wallMs = Math.round(run.wallMs);
  const cpuMs = cpu.cpuMs();
  const text = out.text();
  const verified = /^c VERIFIED$/m.test(text) && !/^c NOT VERIFIED$/m.test(text);
  if (run.spawnError !== null) return { verified: false, detail: `cannot run ${binary}: ${run.spawnError.message} (scripts/setup.sh installs drat-trim, which brings lrat-check)`, wallMs, cpuMs };
  if (run.stoppedBy !== null) return { verified: false, detail: run.stoppedBy === "time-limit" ? `no answer within ${limit} s` : run.stoppedBy, wallMs, cpuMs };
  if (verified && run.code === 0 && run.signal === null) {
    const problem = await checkEmptyClauses(cnfPath, proofPath).catch((err: Error) => `the proof's empty clauses could not be read: ${err.message}`);
    const total = Math.round(performance.now() - started);
    return problem === null ? { verified: true, detail: "", wallMs: total, cpuMs } : { verified: false, detail: `lrat-check verified the proof, but ${problem}`, wallMs: total, cpuMs };
  }
  const tail = text.split("\n").filter((l) => /FAILED|failed|WARNING|NOT VERIFIED|error/i.test(l)).slice(-3).join("; ");
  const exit = run.signal !== null ? `killed by ${run.signal}` : `exit ${run.code}`;
  return { verified: false, detail: `lrat-check did not verify the proof (${exit}${tail ? `: ${tail}` : ""})`, wallMs, cpuMs };
}

export interface CubeCheckOptions {
  /** drat-trim's path or name. @default "drat-trim" */
  dratTrim?: string;
  /** lrat-check's path or name. @default "lrat-check" */
  lratCheck?: string;
  timeLimitSec?: number;
  signal?: AbortSignal;
}

/** Checks a cube's proof with the checker of its format (see the module comment). */
export async function checkCubeProof(cnfPath: string, proofPath: string, options: CubeCheckOptions = {}): Promise<ProofCheck & { format: ProofFormat }> {
  const format = await proofFormat(proofPath);
  const common = { timeLimitSec: options.timeLimitSec, signal: options.signal };
  const r = format === "lrat"
    ? await checkLratProof(cnfPath, proofPath, { ...common, binary: options.lratCheck })
    : await checkProof(cnfPath, proofPath, { ...common, binary: options.dratTrim });
  return { ...r, format };
}
