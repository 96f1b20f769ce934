/**
 * An in-process Coordinator against a TestNats server, with its logs captured (shown with CUBIST_TEST_LOG=1),
 * and helpers to wait for a run to end.
 */

import { readFileSync } from "node:fs";
import { createLogger } from "../../cluster/log.js";
import { requireJetStream } from "../../cluster/nats.js";
import { Coordinator } from "../../coordinator/shell/coordinator.js";
import type { RunRequest } from "../../coordinator/run-spec.js";
import type { CoordinatorSettings } from "../../coordinator/config.js";
import type { RunController } from "../../coordinator/shell/run.js";
import { isTerminal } from "../../proto/vocabulary.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { TestNats } from "./nats.js";

export interface TestCoordinator {
  readonly coordinator: Coordinator;
  readonly logs: string[];
  logged(re: RegExp): string[];
  close(): Promise<void>;
}

export async function startTestCoordinator(t: TestNats, settings: Partial<CoordinatorSettings> = {}, options: { stallCheckMs?: number } = {}): Promise<TestCoordinator> {
  const logs: string[] = [];
  const echo = process.env.CUBIST_TEST_LOG === "1";
  const log = createLogger({
    component: "coordinator",
    level: "debug",
    write: (line) => {
      logs.push(line);
      if (echo) process.stderr.write(line + "\n");
    },
  });
  const nc = await t.connect("test-coordinator");
  const jsm = await requireJetStream(nc);
  const coordinator = new Coordinator({ nc, jsm, names: t.names, log, settings, statusIntervalMs: 250, stallCheckMs: options.stallCheckMs });
  await coordinator.start();
  let closing: Promise<void> | null = null;
  return {
    coordinator,
    logs,
    logged: (re) => logs.filter((l) => re.test(l)),
    close: () => (closing ??= coordinator.close()),
  };
}

/** A run request for a puzzle file. */
/**
 * A run request for a puzzle file. The placement search is off (searchMs 0) unless `extra` sets it: these tests
 * are about the SAT-solver path (its faults, its metrics, redeliveries), and on their tiny puzzles the default
 * search would close every cube before a solver starts.
 */
export function requestFor(file: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { puzzleText: readFileSync(file, "utf8"), puzzleLabel: file, searchMs: 0, ...extra };
}

/** Resolves with the run's final state, or rejects after `timeoutMs` with its status. */
export function waitForRunEnd(run: RunController, timeoutMs = 60_000): Promise<RunState> {
  return new Promise((resolve, reject) => {
    const start = Date.now();
    const timer = setInterval(() => {
      if (isTerminal(run.state)) {
        clearInterval(timer);
        resolve(run.state);
      } else if (Date.now() - start > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`run ${run.id} still ${RunState[run.state]} after ${timeoutMs} ms: ${JSON.stringify(run.status().cubes)}`));
      }
    }, 100);
  });
}
