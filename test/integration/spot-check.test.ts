/**
 * Spot checks against lying workers (issue 23 finding 1), with real parts: a private nats-server, the coordinator,
 * `cubist worker` processes, the real placement engine and Kissat. A liar's engine or solver is a script that says
 * UNSATISFIABLE (exit 20) for everything; beside it an honest worker whose first cube waits until the liar refuted
 * all the others (gatedSolver). On a satisfiable 6x6 (Eternity II clue puzzle 1) the run ends SAT, and the liar is
 * caught by a check of a cube it refuted: distrusted in the run's ledger, the coordinator's views and metrics, and
 * none of the cubes left closed are its refutations.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { DISTRUSTED_NOTE } from "../../coordinator/model/run-trust.js";
import { isOpen } from "../../coordinator/model/cube-entry.js";
import { Ledger } from "../../coordinator/shell/ledger.js";
import type { RunController } from "../../coordinator/shell/run.js";
import { RunState } from "../../proto/gen/cubist/v1/run.js";
import type { RunRequest } from "../../coordinator/run-spec.js";
import { requestFor, startTestCoordinator, waitForRunEnd, type TestCoordinator } from "../helpers/coordinator.js";
import { startTestNats, type TestNats } from "../helpers/nats.js";
import { spawnCubist, writeFakeSolver, type CubistProcess } from "../helpers/processes.js";
import { eventually } from "../helpers/runs.js";
import { flaggedWorkerViews } from "../helpers/worker-views.js";

const SAT6 = "test/fixtures/clues/clue1.txt";
/** The honest worker's own engine. */
const LIAR = new URL("../fixtures/fake-solvers/lying-unsat.sh", import.meta.url).pathname;
const ENGINE = join(process.cwd(), "dist/engine/cubist-engine");

function startWorker(t: TestNats, id: string, args: string[]): CubistProcess {
  return spawnCubist(["worker", "--nats", t.url, "--id", id, "--concurrency", "1", "--status-interval", "0.5", "--quarantine-after", "0", "--log-level", "debug", ...args]);
}

/**
 * An honest solver behind a gate: a call made before the file "go" exists waits for it and then fails (an error
 * verdict: the cube is sent again); later calls run "real". So the liar refutes every other cube first, and the
 * honest worker's first answers are spot checks of the liar's refutations, not a solution of its own.
 */
function gatedSolver(dir: string, name: string, real: string): string {
  return writeFakeSolver(dir, name, `if [ ! -f "${dir}/go" ]; then
  while [ ! -f "${dir}/go" ]; do sleep 0.05; done
  exit 1
fi
exec ${real} "$@"`);
}

/** Runs the request; once the liar refuted every cube but the honest worker's first, opens the gate. */
async function runWithLiar(c: TestCoordinator, dir: string, request: RunRequest): Promise<RunController> {
  const run = await c.coordinator.submitRun(request);
  const unrefuted = (): number => [...run.table.entries()].filter((e) => isOpen(e) && run.model.trust.refuterOf(e.id) === undefined).length;
  assert.ok(await eventually(() => run.table.initialSplitDone && unrefuted() <= 1, 60_000),
    `the liar refuted the other cubes: ${JSON.stringify(run.model.trust.counts)}, ${unrefuted()} open cubes not refuted`);
  writeFileSync(join(dir, "go"), "");
  assert.equal(await waitForRunEnd(run, 120_000), RunState.RUN_STATE_SAT);
  return run;
}

async function withCluster(body: (t: TestNats, c: TestCoordinator, dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cubist-spot-check-"));
  const t = await startTestNats();
  const c = await startTestCoordinator(t, { ackWaitMs: 5000 });
  try {
    await body(t, c, dir);
  } finally {
    await c.close();
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function bothLive(c: TestCoordinator, ids: string[]): Promise<void> {
  assert.ok(await eventually(() => ids.every((id) => c.coordinator.liveWorkers().some((w) => w.status.workerId === id)), 30_000), "both workers live");
}

/** The caught run: its note, the liar's refutations gone, and what the dashboard and Prometheus show. */
async function assertCaught(t: TestNats, c: TestCoordinator, run: RunController, liar: string): Promise<void> {
  assert.ok(run.model.trust.distrusted.has(liar), "the liar is distrusted");
  const closedByLiar = [...run.table.entries()].filter((e) => e.state === "unsat" && e.worker === liar);
  assert.deepEqual(closedByLiar.map((e) => e.id), [], "no refutation of the liar stands");
  const notes = (await new Ledger(t.layout.js, t.names).replay(run.id)).flatMap((e) => (e.entry?.$case === "note" && e.entry.value.kind === DISTRUSTED_NOTE ? [e.entry.value] : []));
  assert.equal(notes.length, 1, "one distrusted note in the run's ledger");
  assert.equal(notes[0].worker, liar);
  const { rows, metrics: text } = await flaggedWorkerViews(t, c, liar);
  assert.match(rows.find((w) => w.workerId === liar)!.quarantined, /^distrusted by a spot check: refuted cube \S+ of run /);
  assert.equal(rows.find((w) => w.workerId !== liar)!.quarantined, "");
  assert.match(text, /^cubist_cluster_distrusted_workers 1$/m);
  assert.match(text, /^cubist_coordinator_spot_checks\{kind="disproved"\} [1-9]/m);
}

test("spot checks - a lying engine beside an honest worker: the run ends SAT, and the liar is distrusted and its refutations redone", async () => {
  await withCluster(async (t, c, dir) => {
    // The worker races its engine against Kissat on each cube: both are gated.
    const gated = gatedSolver(dir, "honest-engine", ENGINE);
    const gatedKissat = gatedSolver(dir, "honest-kissat", "kissat");
    const liar = startWorker(t, "liar", ["--engine-path", LIAR]);
    const honest = startWorker(t, "honest", ["--engine-path", gated, "--solver-path", gatedKissat]);
    try {
      await bothLive(c, ["liar", "honest"]);
      const run = await runWithLiar(c, dir, requestFor(SAT6, { targetCubes: 70, solver: "kissat", searchMs: 60_000, spotCheckPercent: 100 }));
      await assertCaught(t, c, run, "liar");
    } finally {
      liar.kill("SIGTERM");
      honest.kill("SIGTERM");
      await Promise.all([liar.exited, honest.exited]);
    }
  });
});

test("spot checks - a lying Kissat (--search-ms 0) beside an honest one: the run ends SAT, and the liar is distrusted, in the next run too", async () => {
  await withCluster(async (t, c, dir) => {
    const gated = gatedSolver(dir, "honest-kissat", "kissat");
    const liar = startWorker(t, "liar-kissat", ["--solver", "kissat", "--solver-path", LIAR]);
    const honest = startWorker(t, "honest-kissat", ["--solver", "kissat", "--solver-path", gated]);
    try {
      await bothLive(c, ["liar-kissat", "honest-kissat"]);
      const run = await runWithLiar(c, dir, requestFor(SAT6, { targetCubes: 70, solver: "kissat", searchMs: 0, spotCheckPercent: 100 }));
      await assertCaught(t, c, run, "liar-kissat");
      // A second run without spot checks: the distrust holds there too, so none of the liar's refutations is taken.
      const second = await c.coordinator.submitRun(requestFor(SAT6, { runId: "after-the-liar", targetCubes: 70, solver: "kissat", searchMs: 0, spotCheckPercent: 0 }));
      assert.equal(await waitForRunEnd(second, 120_000), RunState.RUN_STATE_SAT);
      assert.match(second.model.trust.reasonOf("liar-kissat", second.id) ?? "", new RegExp(`^refuted cube \\S+ of run ${run.id}, `));
      assert.deepEqual([...second.table.entries()].filter((e) => e.state === "unsat" && e.worker === "liar-kissat").map((e) => e.id), []);
    } finally {
      liar.kill("SIGTERM");
      honest.kill("SIGTERM");
      await Promise.all([liar.exited, honest.exited]);
    }
  });
});
