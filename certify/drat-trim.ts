/**
 * Checking a DRAT proof with drat-trim (Wetzler, Heule, Hunt), always in a process of its own, never in the
 * process that produced the proof. drat-trim exits 0 whether or not the proof holds, so the verdict is its
 * `s VERIFIED` line and nothing else: no line, `s NOT VERIFIED`, a crash, a time-out or an abort all mean "not
 * verified". The checker runs detached (it leads its own process group) and is stopped by group, like the solvers.
 */

import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { signalGroup, TailBuffer } from "../worker/process-group.js";

/** What the checker said about one proof. */
export interface ProofCheck {
  verified: boolean;
  /** Why not (the checker's last lines, a time-out, a crash); "" when verified. */
  detail: string;
  wallMs: number;
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
export function checkProof(cnfPath: string, proofPath: string, options: CheckOptions = {}): Promise<ProofCheck> {
  const limit = Math.max(1, Math.ceil(options.timeLimitSec ?? 40_000));
  const started = performance.now();
  return new Promise<ProofCheck>((resolve) => {
    // -w: warnings (e.g. about deleted unit clauses) are not verdicts; -t: the time limit.
    const child = spawn(options.binary ?? DEFAULT_DRAT_TRIM, [cnfPath, proofPath, "-w", "-t", String(limit)], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = new TailBuffer(64 * 1024);
    let verified = false;
    let carry = "";
    let why = "";
    const stop = (reason: string): void => {
      why ||= reason;
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    };
    const onAbort = (): void => stop("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const watchdog = setTimeout(() => stop(`no answer within ${limit + 5} s`), (limit + 5) * 1000);
    child.stdout.on("data", (chunk: Buffer) => {
      out.push(chunk);
      const text = carry + chunk.toString("latin1");
      // Progress output ends in carriage returns: "\rs VERIFIED\n".
      const lines = text.split(/[\r\n]/);
      carry = lines.pop() ?? "";
      for (const line of lines) if (line.trim() === "s VERIFIED") verified = true;
    });
    child.stderr.on("data", (chunk: Buffer) => out.push(chunk));
    child.on("error", (err) => {
      why ||= `cannot run ${options.binary ?? DEFAULT_DRAT_TRIM}: ${err.message} (scripts/setup.sh installs drat-trim)`;
    });
    child.on("close", (code, signal) => {
      clearTimeout(watchdog);
      options.signal?.removeEventListener("abort", onAbort);
      if (child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
      if (carry.trim() === "s VERIFIED") verified = true;
      const wallMs = Math.round(performance.now() - started);
      // A verdict line from a checker that was then killed or crashed does not count.
      const clean = code === 0 && signal === null && why === "";
      if (verified && clean) {
        resolve({ verified: true, detail: "", wallMs });
        return;
      }
      const tail = out.text().split(/[\r\n]/).filter((l) => l.startsWith("s ") || /error|WARNING|timeout/i.test(l)).slice(-3).join("; ");
      const exit = signal !== null ? `killed by ${signal}` : `exit ${code}`;
      resolve({ verified: false, detail: why || `drat-trim did not verify the proof (${exit}${tail ? `: ${tail}` : ""})`, wallMs });
    });
  });
}
