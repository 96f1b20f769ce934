/**
 * A worker's HTTP endpoint (`--http HOST:PORT`, off by default): `/metrics` for Prometheus and `/healthz`, which
 * answers 200 while the worker is running and 503 once it drains or stops (a readiness signal for Kubernetes).
 */

import { sendJson, sendText, startHttpServer, type HttpServer } from "../cluster/http.js";
import type { Logger } from "../cluster/log.js";
import type { WorkerMetrics } from "./metrics.js";
import type { Worker } from "./worker.js";

export async function startWorkerHttp(listen: string, worker: Worker, metrics: WorkerMetrics, log: Logger): Promise<HttpServer> {
  return startHttpServer(listen, async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") return sendText(res, 405, "GET only\n");
    if (path === "/metrics") return sendText(res, 200, await metrics.metrics(), metrics.contentType);
    if (path === "/healthz") {
      const s = worker.stats();
      return sendJson(res, worker.state === "running" ? 200 : 503, { ok: worker.state === "running", id: worker.id, state: s.state, slots: s.slots.length, busy: s.busy, cubesDone: s.cubesDone });
    }
    if (path === "/") return sendText(res, 200, `cubist worker ${worker.id}: see /metrics and /healthz\n`);
    return sendText(res, 404, "not found\n");
  }, log, "HTTP (metrics)");
}
