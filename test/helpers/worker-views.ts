/** What the dashboard (its worker table reads /api/workers) and Prometheus see of the workers of a test coordinator. */
import assert from "node:assert/strict";
import { silentLogger } from "../../cluster/log.js";
import { startCoordinatorHttp } from "../../coordinator/serve/http-server.js";
import { createCoordinatorMetrics } from "../../coordinator/serve/metrics.js";
import type { TestCoordinator } from "./coordinator.js";
import type { TestNats } from "./nats.js";
import { eventually } from "./runs.js";

/** One worker's row of /api/workers: `quarantined` holds why it is quarantined or distrusted ("" when neither). */
export interface WorkerRow {
  workerId: string;
  quarantined: string;
}

/**
 * Serves the coordinator's HTTP for a moment: waits until /api/workers shows `worker` quarantined or distrusted
 * (failing after 5 s), and returns every worker's row and the /metrics text.
 */
export async function flaggedWorkerViews(t: TestNats, c: TestCoordinator, worker: string): Promise<{ rows: WorkerRow[]; metrics: string }> {
  const metrics = createCoordinatorMetrics({ coordinator: c.coordinator, jsm: t.jsm, names: t.names, log: silentLogger, defaultMetrics: false });
  const http = await startCoordinatorHttp({ listen: "127.0.0.1:0", coordinator: c.coordinator, metrics, log: silentLogger });
  try {
    let rows: WorkerRow[] = [];
    assert.ok(await eventually(async () => {
      rows = ((await (await fetch(`${http.url}/api/workers`)).json()) as { workers: WorkerRow[] }).workers;
      return rows.some((w) => w.workerId === worker && w.quarantined !== "");
    }, 5000), JSON.stringify(rows));
    return { rows, metrics: await (await fetch(`${http.url}/metrics`)).text() };
  } finally {
    await http.close();
  }
}
