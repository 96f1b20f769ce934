/**
 * The shared vocabulary (proto/vocabulary.ts, proto/api-vocabulary.ts): names and enums map both ways, and the lists
 * are the enums'.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CUBE_STATE_NAMES, FaultKind, faultKindOf, faultOfKind, isTerminal, isWorkersOwn, RUN_STATE_NAMES,
  RunState, runStateName, runStateOf, VERDICT_LABELS, VerdictKind, verdictLabel, verdictReason,
} from "../../proto/vocabulary.js";
import { CubeState, cubeStateName, cubeStateOf } from "../../proto/api-vocabulary.js";
import type { Fault } from "../../core/errors.js";
import { Verdict } from "../../proto/gen/cubist/v1/cube.js";
import { buildVerdict } from "../../worker/verdict.js";
import { boardSize } from "../../coordinator/serve/views.js";

test("vocabulary - every run state has a name and back; the terminal ones are sat, unsat, failed, cancelled", () => {
  const states = Object.values(RunState).filter((v): v is RunState => typeof v === "number" && v !== RunState.RUN_STATE_UNSPECIFIED);
  assert.deepEqual(states.map(runStateName), [...RUN_STATE_NAMES]);
  for (const s of states) assert.equal(runStateOf(runStateName(s)), s);
  assert.equal(runStateOf("unspecified"), undefined);
  assert.deepEqual(states.filter(isTerminal).map(runStateName), ["sat", "unsat", "failed", "cancelled"]);
  assert.equal(runStateName(99 as RunState), "state-99");
});

test("vocabulary - every cube state of the API has a name and back, purged and running included", () => {
  const states = Object.values(CubeState).filter((v): v is CubeState => typeof v === "number" && v !== CubeState.CUBE_STATE_UNSPECIFIED);
  assert.deepEqual(states.map(cubeStateName).sort(), [...CUBE_STATE_NAMES].sort());
  for (const s of states) assert.equal(cubeStateOf(cubeStateName(s)), s);
  assert.equal(cubeStateName(CubeState.CUBE_STATE_UNSPECIFIED), "");
  assert.equal(cubeStateOf("lost"), undefined);
});

test("vocabulary - verdict labels: sat, unsat, unknown, and error for anything else", () => {
  assert.deepEqual([VerdictKind.VERDICT_KIND_SAT, VerdictKind.VERDICT_KIND_UNSAT, VerdictKind.VERDICT_KIND_UNKNOWN, VerdictKind.VERDICT_KIND_ERROR, VerdictKind.VERDICT_KIND_BEST].map(verdictLabel), [...VERDICT_LABELS]);
  assert.equal(verdictLabel(VerdictKind.VERDICT_KIND_UNSPECIFIED), "error");
});

test("views - the board size is read from the first line that is neither blank nor a comment; a triangle has its side and base row", () => {
  assert.deepEqual(boardSize("# name: x\n\n  4 5\n1 0 1 2 0\n"), { shape: "square", rows: 4, cols: 5 });
  assert.deepEqual(boardSize("# only comments\n"), { shape: "square", rows: 0, cols: 0 });
  assert.deepEqual(boardSize("# name: t\ntriangle 6\n1 1 2 3\n"), { shape: "triangle", rows: 6, cols: 11 });
});

test("vocabulary - an error verdict carries its fault on the wire; one without the field (an older worker) reads as the worker's own", () => {
  const ctx = { run: "r1", cube: "3", numVars: 10, workerId: "w1", host: "h", delivery: 1, taskSeq: 7, lease: "l" };
  for (const fault of ["worker", "task", "transient", "internal"] as Fault[]) {
    const sent = buildVerdict(ctx, { kind: "error", fault, reason: "formula unavailable: gone", stats: { engine: "kissat" } });
    const got = Verdict.decode(Verdict.encode(sent).finish());
    assert.equal(got.fault, faultKindOf(fault));
    assert.equal(faultOfKind(got.fault), fault);
    assert.equal(verdictReason(got), `${fault} fault: formula unavailable: gone`);
  }
  assert.deepEqual((["worker", "task", "transient", "internal"] as Fault[]).filter(isWorkersOwn), ["worker", "internal"]);
  // An older worker's error verdict has no field 16: the same bytes as fault unset. It counts as before.
  const old = buildVerdict(ctx, { kind: "error", fault: "task", reason: "SolverCrashedError: exit 1", stats: { engine: "kissat" } });
  old.fault = FaultKind.FAULT_KIND_UNSPECIFIED;
  const bytes = Verdict.encode(old).finish();
  const tagged = Verdict.encode({ ...old, fault: FaultKind.FAULT_KIND_TASK }).finish();
  assert.equal(tagged.length, bytes.length + 3, "the fault is one more field (tag 16: two bytes, value: one)");
  const read = Verdict.decode(bytes);
  assert.equal(faultOfKind(read.fault), "worker");
  assert.equal(verdictReason(read), "SolverCrashedError: exit 1");
  assert.equal(faultOfKind(99 as FaultKind), "worker", "a fault this version does not know counts as the worker's");
  // Other kinds carry none.
  const unsat = buildVerdict(ctx, { kind: "unsat", stats: { engine: "kissat" } });
  assert.equal(unsat.fault, FaultKind.FAULT_KIND_UNSPECIFIED);
  assert.equal(verdictReason({ ...unsat, reason: "" }), "");
});
