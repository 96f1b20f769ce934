/**
 * An in-process Worker against a TestNats server, on its own connection, with its log lines captured (and shown
 * on stderr with CUBIST_TEST_LOG=1). For tests of the worker itself and of the coordinator with real workers.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLayout } from "../../cluster/layout.js";
import { createLogger, type LogLevel } from "../../cluster/log.js";
import { requireJetStream, type NatsOptions } from "../../cluster/nats.js";
import { workerInboxPrefix } from "../../cluster/nats-users.js";
import { loadWorkerConfig, type WorkerConfigInput } from "../../worker/config.js";
import { Worker } from "../../worker/worker.js";
import type { TestNats } from "./nats.js";

export interface TestWorker {
  readonly worker: Worker;
  /** Captured log lines (text format). */
  readonly logs: string[];
  /** Lines matching `re`. */
  logged(re: RegExp): string[];
  /** Closes the worker (grace `graceMs`, default 0) and its connection, removes its cache dir. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

let counter = 0;

export async function startTestWorker(
  t: TestNats,
  options: Partial<Omit<WorkerConfigInput, "nats">> & { logLevel?: LogLevel } = {},
  /** The worker's own NATS credentials (a server configured with per-worker users). */
  auth: Partial<NatsOptions> = {},
): Promise<TestWorker> {
  const cacheDir = options.cacheDir ?? mkdtempSync(join(tmpdir(), "cubist-worker-cache-"));
  const workerId = options.workerId ?? `test-${process.pid}-${++counter}`;
  const config = loadWorkerConfig({
    concurrency: 1,
    statusIntervalMs: 500,
    retryDelayMs: 200,
    longPollMs: 1000,
    shutdownGraceMs: 0,
    ...options,
    nats: { servers: t.url, name: workerId },
    prefix: t.names.prefix,
    cacheDir,
    workerId,
  });
  const logs: string[] = [];
  const echo = process.env.CUBIST_TEST_LOG === "1";
  const log = createLogger({
    component: "worker",
    level: options.logLevel ?? "debug",
    fields: { worker: workerId },
    write: (line) => {
      logs.push(line);
      if (echo) process.stderr.write(line + "\n");
    },
  });
  const nc = await t.connect(workerId, { inboxPrefix: workerInboxPrefix(workerId), ...auth });
  const jsm = await requireJetStream(nc);
  const layout = await openLayout(nc, t.names, workerId);
  const worker = new Worker(config, { nc, jsm, layout, log });
  await worker.start();
  let closing: Promise<void> | null = null;
  return {
    worker,
    logs,
    logged: (re) => logs.filter((l) => re.test(l)),
    close(graceMs = 0) {
      closing ??= (async () => {
        await worker.close(graceMs);
        await nc.close().catch(() => undefined);
        if (options.cacheDir === undefined) rmSync(cacheDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}
