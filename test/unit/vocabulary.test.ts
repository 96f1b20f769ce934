/**
 * The shared vocabulary (proto/vocabulary.ts): names and enums map both ways, and the lists are the enums'.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CUBE_STATE_NAMES, CubeState, cubeStateName, cubeStateOf, isTerminal, RUN_STATE_NAMES, RunState, runStateName, runStateOf,
  VERDICT_LABELS, VerdictKind, verdictLabel,
} from "../../proto/vocabulary.js";
import { boardSize } from "../../coordinator/views.js";

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
  assert.deepEqual([VerdictKind.VERDICT_KIND_SAT, VerdictKind.VERDICT_KIND_UNSAT, VerdictKind.VERDICT_KIND_UNKNOWN, VerdictKind.VERDICT_KIND_ERROR].map(verdictLabel), [...VERDICT_LABELS]);
  assert.equal(verdictLabel(VerdictKind.VERDICT_KIND_UNSPECIFIED), "error");
});

test("views - the board size is read from the first line that is neither blank nor a comment; a triangle has its side and base row", () => {
  assert.deepEqual(boardSize("# name: x\n\n  4 5\n1 0 1 2 0\n"), { shape: "square", rows: 4, cols: 5 });
  assert.deepEqual(boardSize("# only comments\n"), { shape: "square", rows: 0, cols: 0 });
  assert.deepEqual(boardSize("# name: t\ntriangle 6\n1 1 2 3\n"), { shape: "triangle", rows: 6, cols: 11 });
});
