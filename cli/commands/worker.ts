import type { CommandSpec, ParsedValues } from "../args.js";
import { watchParent } from "../parent-watch.js";
import { EXIT } from "../exit-codes.js";
import { LOG_OPTIONS } from "../log-options.js";
import { NATS_OPTIONS, natsOptionsFrom } from "../nats-options.js";
import {
  DEFAULT_LAYOUT_WAIT_MS, DEFAULT_QUARANTINE_AFTER, DEFAULT_QUARANTINE_MS, DEFAULT_SHUTDOWN_GRACE_MS, DEFAULT_STATUS_INTERVAL_MS, loadWorkerConfig, PROOF_FORMATS,
} from "../../worker/config.js";
import { MAX_STATUS_INTERVAL_MS, WORKER_SILENCE_MS } from "../../proto/contract.js";
import { LayoutUnavailableError, startWorkerProcess } from "../../worker/main.js";
import { SOLVER_NAMES } from "../../host/solver/index.js";

export const spec: CommandSpec = {
  name: "worker",
  summary:
    "Run a worker: it pulls cubes from NATS JetStream, solves them with Kissat (or CaDiCaL) and publishes the verdicts. Long-running; SIGTERM or SIGINT stops it gracefully (a second one at once).",
  usage: "cubist worker --nats URL [--concurrency N] [--solver kissat|cadical] [--solver-path PATH] [--cache-dir DIR] [--id ID] [--proof-format drat|lrat]",
  positionals: { min: 0, max: 0 },
  options: {
    ...NATS_OPTIONS,
    concurrency: { type: "integer", arg: "N", description: "solver slots (cubes solved at once); default: the number of CPUs", env: "CUBIST_CONCURRENCY", min: 1, max: 1024 },
    solver: { type: "string", arg: "NAME", description: "solver for tasks that name none, and the one --solver-path is", choices: SOLVER_NAMES, env: "CUBIST_SOLVER", default: "kissat" },
    "solver-path": { type: "string", arg: "PATH", description: "solver binary (default: --solver looked up on PATH)", env: "CUBIST_SOLVER_PATH" },
    "engine-path": { type: "string", arg: "PATH", description: "native placement engine (default: the build's dist/engine/cubist-engine)", env: "CUBIST_ENGINE" },
    "solver-arg": { type: "string", arg: "ARG", description: "extra solver argument (repeatable), e.g. --solver-arg=--tier1=3", multiple: true },
    "cache-dir": { type: "string", arg: "DIR", description: "formula cache (default: $XDG_CACHE_HOME/cubist/formulas or ~/.cache/cubist/formulas)", env: "CUBIST_CACHE_DIR" },
    id: { type: "string", arg: "ID", description: "worker id: 1-64 letters, digits, _ and -, starting with a letter or digit (default: <hostname>-<pid>)", env: "CUBIST_WORKER_ID" },
    grace: { type: "number", arg: "S", description: "on SIGTERM: seconds running cubes may go on before they are stopped and handed back", env: "CUBIST_WORKER_GRACE", min: 0, default: DEFAULT_SHUTDOWN_GRACE_MS / 1000 },
    "status-interval": { type: "number", arg: "S", description: `seconds between status heartbeats (the coordinator counts a worker silent after ${WORKER_SILENCE_MS / 1000} s)`, min: 0.1, max: MAX_STATUS_INTERVAL_MS / 1000, default: DEFAULT_STATUS_INTERVAL_MS / 1000 },
    "quarantine-after": { type: "integer", arg: "N", description: "errors of its own in a row (a crash, a missing solver; not a bad task's) after which the worker takes no cubes for a while (0 = never)", env: "CUBIST_QUARANTINE_AFTER", min: 0, max: 1_000_000, default: DEFAULT_QUARANTINE_AFTER },
    "quarantine-time": { type: "number", arg: "S", description: "seconds the first quarantine lasts (doubles while errors go on, up to a day)", env: "CUBIST_QUARANTINE_TIME", min: 0, max: 86_400, default: DEFAULT_QUARANTINE_MS / 1000 },
    "layout-wait": { type: "number", arg: "S", description: "give up when the coordinator has not created the streams within S seconds (0 = wait forever)", env: "CUBIST_LAYOUT_WAIT", min: 0, default: DEFAULT_LAYOUT_WAIT_MS / 1000 },
    http: { type: "string", arg: "HOST:PORT", description: "serve /metrics and /healthz here, e.g. 127.0.0.1:9465 or 0.0.0.0:9465 (default: off)", env: "CUBIST_WORKER_HTTP" },
    "proof-format": { type: "string", arg: "F", description: "certified cubes of cubist-placement runs: the placement prover writes binary DRAT (drat-trim) or LRAT (lrat-check; about 27x larger, cheaper to check)", choices: PROOF_FORMATS, env: "CUBIST_PROOF_FORMAT", default: "drat" },
    "drat-trim-path": { type: "string", arg: "PATH", description: "drat-trim this worker runs on check tasks of DRAT proofs, as a checker of other workers' proofs in certified runs (default: drat-trim on PATH)", env: "CUBIST_DRAT_TRIM" },
    "lrat-check-path": { type: "string", arg: "PATH", description: "lrat-check this worker runs on check tasks of LRAT proofs (default: lrat-check on PATH)", env: "CUBIST_LRAT_CHECK" },
    ...LOG_OPTIONS,
  },
  details: `Environment: every option with an "env:" note reads that variable when the flag is absent.
Start-up fails with a clear message when NATS is unreachable, JetStream is disabled or the solver is missing;
a worker started before the coordinator waits for it ("waiting for the coordinator" in the log).`,
};

export async function run(values: ParsedValues): Promise<number> {
  const seconds = (k: string): number | undefined => (typeof values[k] === "number" ? Math.round((values[k] as number) * 1000) : undefined);
  const config = loadWorkerConfig({
    // Unnamed: the connection is then named after the worker id.
    nats: { ...natsOptionsFrom(values, "cubist-worker"), name: undefined },
    prefix: values.prefix as string,
    concurrency: values.concurrency as number | undefined,
    solver: values.solver as string,
    solverPath: values["solver-path"] as string | undefined,
    enginePath: values["engine-path"] as string | undefined,
    solverArgs: (values["solver-arg"] as string[] | undefined) ?? [],
    cacheDir: values["cache-dir"] as string | undefined,
    workerId: values.id as string | undefined,
    shutdownGraceMs: seconds("grace"),
    statusIntervalMs: seconds("status-interval"),
    layoutWaitMs: seconds("layout-wait"),
    quarantineAfter: values["quarantine-after"] as number | undefined,
    quarantineMs: seconds("quarantine-time"),
    logLevel: values.debug === true ? "debug" : (values["log-level"] as string),
    logFormat: values["log-format"] as string,
    http: values.http as string | undefined,
    proofFormat: values["proof-format"] as string,
    dratTrimPath: values["drat-trim-path"] as string | undefined,
    lratCheckPath: values["lrat-check-path"] as string | undefined,
  });

  // Signals: the first stops gracefully (also while waiting for the layout), a second one at once.
  const abort = new AbortController();
  let signals = 0;
  let onStop: (() => void) | null = null;
  const onSignal = (): void => {
    signals++;
    abort.abort();
    onStop?.();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // A launcher (npx) killed without passing the signal on: stop as on SIGTERM.
  const unwatch = watchParent(onSignal);
  try {
    let proc;
    try {
      proc = await startWorkerProcess(config, { signal: abort.signal });
    } catch (err) {
      if (err instanceof LayoutUnavailableError) {
        if (abort.signal.aborted) return EXIT.OK;
        process.stderr.write(`cubist worker: ${err.message}\n`);
        return EXIT.ERROR;
      }
      throw err;
    }
    const p = proc;
    const lost = await new Promise<Error | null>((resolve) => {
      onStop = () => {
        if (signals > 1) p.worker.hurry();
        resolve(null);
      };
      if (abort.signal.aborted) resolve(null);
      void p.connectionLost.then(resolve);
    });
    if (lost) {
      await p.close(0);
      process.stderr.write(`cubist worker: ${lost.message}\n`);
      return EXIT.ERROR;
    }
    p.log.info("stopping", { graceMs: config.shutdownGraceMs });
    await p.close();
    return EXIT.OK;
  } finally {
    unwatch();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
