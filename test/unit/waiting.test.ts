/** Why a run waits (coordinator/model/waiting.ts) and which verdicts count as closing a cube for the rates (coordinator/model/rate.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { waitingReason } from "../../coordinator/model/waiting.js";
import { decidedCount } from "../../coordinator/model/rate.js";
import { VerdictKind } from "../../proto/gen/cubist/v1/cube.js";

const runs = new Map([
  ["e2", { name: "e2-full", priority: 0 }],
  ["b8", { name: "brendan-8x8", priority: 5 }],
]);

test("waiting - a run with queued cubes and every slot busy with another run says which run holds them", () => {
  const workers = [{ slots: 2, runs: ["e2", "e2"] }];
  assert.equal(waitingReason({ id: "b8", queued: 10, running: 0 }, workers, runs), "2/2 slots busy with e2-full (priority 0)");
  const mixed = [{ slots: 2, runs: ["e2", "x"] }, { slots: 1, runs: ["e2"] }];
  assert.equal(waitingReason({ id: "b8", queued: 3, running: 0 }, mixed, runs), "3/3 slots busy with e2-full (priority 0, 2 slots), x (not a live run, 1 slot)");
});

test("waiting - no reason while the run has cubes running, none queued, or a free slot; no workers is a reason", () => {
  const busy = [{ slots: 2, runs: ["e2", "e2"] }];
  assert.equal(waitingReason({ id: "b8", queued: 10, running: 1 }, busy, runs), "");
  assert.equal(waitingReason({ id: "b8", queued: 0, running: 0 }, busy, runs), "");
  assert.equal(waitingReason({ id: "b8", queued: 10, running: 0 }, [{ slots: 2, runs: ["e2"] }], runs), "");
  assert.equal(waitingReason({ id: "b8", queued: 10, running: 0 }, [], runs), "no live workers");
});

test("rate - only unsat and sat verdicts close a cube: unknown and error verdicts are not throughput", () => {
  const k = (kind: VerdictKind) => ({ kind });
  assert.equal(decidedCount([k(VerdictKind.VERDICT_KIND_UNKNOWN), k(VerdictKind.VERDICT_KIND_ERROR)]), 0);
  assert.equal(decidedCount([k(VerdictKind.VERDICT_KIND_UNSAT), k(VerdictKind.VERDICT_KIND_UNKNOWN), k(VerdictKind.VERDICT_KIND_SAT)]), 2);
});
