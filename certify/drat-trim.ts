/**
 * Checking a DRAT proof with drat-trim (Wetzler, Heule, Hunt), always in a process of its own, never in the
 * process that produced the proof. drat-trim exits 0 whether or not the proof holds, so the verdict is its
 * `s VERIFIED` line and nothing else: no line, `s NOT VERIFIED`, a crash, a time-out or an abort all mean "not
 * verified". The checker runs in its own process group through host/child.ts, like the solvers: a time-out or an
 * abort sends SIGTERM to the group, then SIGKILL after a second.
 */

import { runChild, TailBuffer, type RunChildOptions, type StopReason } from "../host/child.js";
import { ProcSampler } from "../host/solver/proc-sample.js";

/** What the checker said about one proof. */
export interface ProofCheck {
  verified: boolean;
  /** Why not (the checker's last lines, a time-out, a crash); "" when verified. */
  detail: string;
  wallMs: number;
  /** The checker process's CPU time (user + system) as /proc last saw it, 0 where unknown (off Linux). */
  cpuMs: number;
}

/**
 * Watches a checker process's CPU time from /proc (host/solver/proc-sample.ts): sampled when it writes output (its
 * verdict line comes last) and before a kill, so the figure misses only its last moments.
 */
export function checkerCpu(): { hooks: Pick<RunChildOptions, "onSpawn" | "onExit" | "beforeKill">; sample(): void; cpuMs(): number } {
  let sampler: ProcSampler | null = null;
  return {
    hooks: {
      onSpawn: (pid) => { sampler = new ProcSampler(pid); },
      onExit: () => sampler?.stop(),
      beforeKill: () => sampler?.sampleNow(),
    },
    sample: () => sampler?.sampleSoon(),
    cpuMs: () => {
      sampler?.stop();
      return Math.round(sampler?.last.cpuMs ?? 0);
    },
  };
}

export interface CheckOptions {
  /** Path or name of drat-trim. @default "drat-trim" (on PATH) */
  binary?: string;
  /** drat-trim's own limit (`-t`), and a watchdog 5 s later. @default 40000 (drat-trim's default) */
  timeLimitSec?: number;
  signal?: AbortSignal;
}

export const DEFAULT_DRAT_TRIM = "drat-trim";

/** Checks that `proofPath` refutes the CNF in `cnfPath`. Never throws for a bad proof: that is `verified: false`. */
export async function checkProof(cnfPath: string, proofPath: string, options: CheckOptions = {}): Promise<ProofCheck> {
  const limit = Math.max(1, Math.ceil(options.timeLimitSec ?? 40_000));
  const binary = options.binary ?? DEFAULT_DRAT_TRIM;
  const out = new TailBuffer(64 * 1024);
  let verified = false;
  let carry = "";
  const cpu = checkerCpu();
  // -w: warnings (e.g. about deleted unit clauses) are not verdicts; -t: the time limit.
  const run = await runChild(binary, [cnfPath, proofPath, "-w", "-t", String(limit)], {
    ...cpu.hooks,
    onStdout: (chunk) => {
      cpu.sample();
      out.push(chunk);
      const text = carry + chunk.toString("latin1");
      // Progress output ends in carriage returns: "\rs VERIFIED\n".
      const lines = text.split(/[\r\n]/);
      carry = lines.pop() ?? "";
      for (const line of lines) if (line.trim() === "s VERIFIED") verified = true;
    },
    onStderr: (chunk) => out.push(chunk),
    signal: options.signal,
    timeLimitMs: (limit + 5) * 1000,
  });
  if (carry.trim() === "s VERIFIED") verified = true;
  const wallMs = Math.round(run.wallMs);
  const cpuMs = cpu.cpuMs();
  const why = run.spawnError !== null
    ? `cannot run ${binary}: ${run.spawnError.message} (scripts/setup.sh installs drat-trim)`
    : stopReason(run.stoppedBy, limit);
  // A verdict line from a checker that was then stopped or crashed does not count.
  if (verified && run.code === 0 && run.signal === null && why === "") return { verified: true, detail: "", wallMs, cpuMs };
  const tail = out.text().split(/[\r\n]/).filter((l) => l.startsWith("s ") || /error|WARNING|timeout/i.test(l)).slice(-3).join("; ");
  const exit = run.signal !== null ? `killed by ${run.signal}` : `exit ${run.code}`;
  return { verified: false, detail: why || `drat-trim did not verify the proof (${exit}${tail ? `: ${tail}` : ""})`, wallMs, cpuMs };
}

function stopReason(reason: StopReason | null, limit: number): string {
  if (reason === null) return "";
  return reason === "time-limit" ? `no answer within ${limit + 5} s` : reason;
}
